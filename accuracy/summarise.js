#!/usr/bin/env node
// Summarises the harness's JSON reports (accuracy/run.sh): per repository, per rule (findings and
// causes), the analysis errors, and how often each note kind fires against the policies of its format.
//
//   node accuracy/summarise.js accuracy/.out            the tables (Markdown)
//   node accuracy/summarise.js accuracy/.out --sample RL103 12
//       a reproducible sample of RL103's error/warning findings to judge (spread over repositories)
'use strict';
const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
if (!dir) { console.error('usage: summarise.js OUT_DIR [--sample RULE N]'); process.exit(2); }
const reports = [];
for (const f of fs.readdirSync(dir).sort()) {
  if (!f.endsWith('.json') || f.endsWith('.policies.json')) continue;
  const name = f.slice(0, -5);
  let status = [];
  try { status = fs.readFileSync(path.join(dir, name + '.status'), 'utf8').trim().split('\t'); } catch (e) {}
  const r = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
  reports.push({ name, exit: status[1], time: status[2], pin: status[3], r });
}

// A stable hash, so that a sample is the same on every run of the same reports.
function hash(s) { let h = 2166136261; for (const c of s) { h ^= c.charCodeAt(0); h = Math.imul(h, 16777619) >>> 0; } return h; }

const sampleAt = process.argv.indexOf('--sample');
if (sampleAt > 0) {
  const rule = process.argv[sampleAt + 1], n = Number(process.argv[sampleAt + 2] || 10);
  // Round-robin over repositories, each repository's findings in hash order: every repository
  // where the rule fires is represented before any gets a second pick.
  const perRepo = reports.map(({ name, r }) => r.findings
    .filter(f => f.rule === rule && f.severity !== 'note')
    .map(f => ({ name, f, h: hash(f.fingerprint + f.path + f.line) }))
    .sort((a, b) => a.h - b.h));
  const picked = [];
  for (let i = 0; picked.length < n && perRepo.some(l => l.length > i); i++)
    for (const l of perRepo) if (l.length > i && picked.length < n) picked.push(l[i]);
  for (const { name, f } of picked) console.log(`${name} ${f.path}:${f.line}:${f.column} ${f.rule} ${f.severity} — ${f.message}`);
  process.exit(0);
}

const out = [];
out.push('| repository | pinned | exit | time | files with retries | policies | errors | error/warning | notes |');
out.push('|---|---|---|---|---|---|---|---|---|');
for (const { name, exit, time, pin, r } of reports) {
  const fs_ = r.findings || [];
  const ew = fs_.filter(f => f.severity !== 'note').length;
  out.push(`| ${name} | ${pin || ''} | ${exit ?? ''} | ${time || ''} | ${r.stats.files_analysed} | ${r.stats.policies} | ${(r.errors || []).length} | ${ew} | ${fs_.length - ew} |`);
}

// Per cause as well as per finding: the same config copied into ten example folders is one cause
// a reader meets once. A cause is (repository, rule, message): copies say the same thing with the
// same numbers; what differs between two causes shows in their messages.
const rules = new Map();
for (const { name, r } of reports) for (const f of r.findings || []) {
  const k = f.rule + ' ' + f.name;
  if (!rules.has(k)) rules.set(k, { ew: 0, note: 0, repos: new Map(), causes: new Set() });
  const e = rules.get(k);
  if (f.severity === 'note') e.note++;
  else { e.ew++; e.repos.set(name, (e.repos.get(name) || 0) + 1); e.causes.add(name + '\u0000' + f.message); }
}
out.push('', '| rule | error/warning | causes | notes | error/warning by repository |', '|---|---|---|---|---|');
let findings = 0, causes = 0;
for (const [k, e] of [...rules].sort()) {
  findings += e.ew;
  causes += e.causes.size;
  out.push(`| ${k} | ${e.ew} | ${e.causes.size} | ${e.note} | ${[...e.repos].map(([n, c]) => `${n} ${c}`).join(', ')} |`);
}
out.push(`| **all** | **${findings}** | **${causes}** | | |`);

// Notes against the policies they could fire on: a note kind on more than one policy in ten is
// noise (docs/accuracy.md); aggregated notes ("N retry policies in M files") count as one.
const policies = reports.reduce((n, { r }) => n + (r.stats.policies || 0), 0);
const notes = new Map();
for (const { r } of reports) for (const f of r.findings || []) if (f.severity === 'note') notes.set(f.rule, (notes.get(f.rule) || 0) + 1);
out.push('', `| note | notes | share of the ${policies} policies |`, '|---|---|---|');
for (const [rule, n] of [...notes].sort()) out.push(`| ${rule} | ${n} | ${(100 * n / Math.max(policies, 1)).toFixed(1)} % |`);

const errors = reports.flatMap(({ name, r }) => (r.errors || []).map(e => `${name} ${e.path}:${e.line}: ${e.message}`));
out.push('', `Analysis errors: ${errors.length}`);
for (const e of errors) out.push('- ' + e);
console.log(out.join('\n'));
