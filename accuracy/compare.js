#!/usr/bin/env node
// Compares two runs of the harness (accuracy/run.sh), finding by finding: what a change moved.
// A finding is keyed by repository, file, line and rule; one whose severity or message changed
// is printed with both.
//
//   OUT=/tmp/before RETRYLINT=old/retrylint accuracy/run.sh; OUT=/tmp/after accuracy/run.sh
//   node accuracy/compare.js /tmp/before /tmp/after
//
// Exits 1 when the runs differ, so a refactoring can assert that nothing moved.
'use strict';
const fs = require('fs');
const path = require('path');

const [before, after] = process.argv.slice(2);
if (!before || !after) { console.error('usage: compare.js BEFORE_DIR AFTER_DIR'); process.exit(2); }

function load(dir) {
  const out = new Map();
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    let report;
    try { report = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')); } catch (e) { continue; }
    const repo = f.slice(0, -'.json'.length);
    for (const x of report.findings || []) out.set(`${repo} ${x.path}:${x.line} ${x.rule}`, `${x.severity}: ${x.message}`);
  }
  return out;
}

const a = load(before), b = load(after);
let moved = 0;
for (const [k, v] of a) {
  if (!b.has(k)) { console.log(`- ${k}\n    ${v}`); moved++; }
  else if (b.get(k) !== v) { console.log(`~ ${k}\n    was ${v}\n    now ${b.get(k)}`); moved++; }
}
for (const [k, v] of b) if (!a.has(k)) { console.log(`+ ${k}\n    ${v}`); moved++; }
console.log(`${moved} finding(s) moved of ${a.size} before, ${b.size} after`);
process.exit(moved ? 1 : 0);
