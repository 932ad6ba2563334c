#!/usr/bin/env node
// Recall at first contact. For C++ (read-first rows: repo, path, first_line, last_line, kind,
// problems, note): a site with a covered problem is found when an error/warning finding of one of
// its rules falls within its extent. For configurations (rows: repo, path, line, problem, note):
// an expected problem is found when a finding of its rule is in its file within 6 lines.
// usage: node recall.js cpp|config READ_FIRST_TSV OUT_DIR
const fs = require('fs'), path = require('path');
const [kind, rf, out] = process.argv.slice(2);
const findings = {};
for (const f of fs.readdirSync(out))
  if (f.endsWith('.json')) {
    try { findings[f.slice(0, -5)] = JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')).findings; } catch (e) {}
  }
let total = 0, hit = 0, hitEW = 0;
for (const line of fs.readFileSync(rf, 'utf8').split('\n')) {
  if (!line || line.startsWith('#') || line.startsWith('repo\t')) continue;
  const c = line.split('\t');
  const rules = (kind === 'cpp' ? c[5] : c[3] || '').match(/RL\d{3}/g);
  if (!rules || (kind === 'cpp' && c[4] === 'not-retry')) continue;
  total++;
  const [repo, file] = c;
  const same = (x) => x.path.endsWith(file) || file.endsWith(x.path);
  let got;
  if (kind === 'cpp') {
    const a = +c[2], b = +c[3];
    got = (findings[repo] || []).filter((x) => same(x) && x.line >= a && x.line <= b && x.severity !== 'note');
  } else {
    const l = parseInt(c[2], 10);
    got = (findings[repo] || []).filter((x) => same(x) && (isNaN(l) || Math.abs(x.line - l) <= 6));
  }
  got = got.filter((x) => rules.includes(x.rule));
  const ew = got.filter((x) => x.severity !== 'note');
  if (got.length) hit++;
  if (ew.length) hitEW++;
  console.log(`${ew.length ? 'HIT ' : got.length ? 'NOTE' : 'MISS'}\t${repo}\t${file}:${c[2]}\t${kind === 'cpp' ? c[4] : ''}\t${rules.join(',')}`);
}
if (kind === 'cpp') console.log(`recall ${hitEW}/${total}`);
else console.log(`recall ${hit}/${total} (any severity), ${hitEW}/${total} at error/warning`);
