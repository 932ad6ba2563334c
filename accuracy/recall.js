#!/usr/bin/env node
// Recall of the C++ front end: which of the retries found by reading (accuracy/cpp-recall.tsv)
// retrylint saw as a retry policy. Needs the policy lists of a harness run with POLICIES=1.
//
//   POLICIES=1 REPOS=accuracy/cpp-repos.tsv OUT=/tmp/out accuracy/run.sh
//   node accuracy/recall.js /tmp/out [accuracy/cpp-recall.tsv]
//
// A retry counts as seen when a policy is reported in its file within 3 lines of its line (the
// loop keyword; a policy anchors there or on the `do`). Loops and recursions are the measure;
// "timer" retries (re-issued from a callback) are counted apart.
'use strict';
const fs = require('fs');
const path = require('path');

const out = process.argv[2];
const list = process.argv[3] || path.join(__dirname, 'cpp-recall.tsv');
if (!out) { console.error('usage: recall.js OUT_DIR [RECALL_TSV]'); process.exit(2); }
const policies = new Map();
function policiesOf(name) {
  if (!policies.has(name)) {
    let p = [];
    try { p = JSON.parse(fs.readFileSync(path.join(out, name + '.policies.json'), 'utf8')).unplaced_policies || []; }
    catch (e) { console.error(`recall: no ${name}.policies.json in ${out} (run with POLICIES=1)`); process.exit(2); }
    policies.set(name, p);
  }
  return policies.get(name);
}
const rows = fs.readFileSync(list, 'utf8').split('\n').filter(l => l && !l.startsWith('#')).map(l => l.split('\t'));
const per = new Map();
const missed = [];
for (const [name, where, kind, what] of rows) {
  const at = where.lastIndexOf(':');
  const file = where.slice(0, at), line = Number(where.slice(at + 1));
  const seen = policiesOf(name).some(p => p.path.replace(/^\.\//, '') === file && Math.abs(p.line - line) <= 3);
  const k = kind === 'timer' || kind === 'borderline' ? kind : 'loop';
  const e = per.get(name) || { loop: [0, 0], timer: [0, 0], borderline: [0, 0] };
  e[k][1]++;
  if (seen) e[k][0]++;
  else if (k === 'loop') missed.push(`${name} ${where} (${kind}) ${what}`);
  per.set(name, e);
}
console.log('| repository | loops and recursions seen | borderline seen | timer retries seen |');
console.log('|---|---|---|---|');
let tl = [0, 0], tt = [0, 0], tb = [0, 0];
const add = (a, b) => [a[0] + b[0], a[1] + b[1]];
for (const [name, e] of per) {
  console.log(`| ${name} | ${e.loop[0]} / ${e.loop[1]} | ${e.borderline[0]} / ${e.borderline[1]} | ${e.timer[0]} / ${e.timer[1]} |`);
  tl = add(tl, e.loop);
  tt = add(tt, e.timer);
  tb = add(tb, e.borderline);
}
const pct = (a, b) => b ? `${Math.round(100 * a / b)} %` : '–';
console.log(`| **all** | **${tl[0]} / ${tl[1]} (${pct(tl[0], tl[1])})** | ${tb[0]} / ${tb[1]} | ${tt[0]} / ${tt[1]} |`);
console.log('\nMissed loops and recursions:');
for (const m of missed) console.log('- ' + m);
