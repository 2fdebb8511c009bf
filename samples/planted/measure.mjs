#!/usr/bin/env node
// Measures `leakscope inspect DUMP --source CHECKOUT` on every planted case: hit (a cause line is a
// line of the bug), wrong (cause lines, none of the bug), silent (no cause line). The checkout is
// rebuilt from /usr/share/gocode/src/<tree> + bug.patch + the driver, as the tests do.
// Usage: node samples/planted/measure.mjs [path/to/cli/main.js]   (default: this checkout's dist)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const cli = process.argv[2] ?? join(HERE, '..', '..', 'dist', 'cli', 'main.js');
const writable = (d) => { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); chmodSync(p, e.isDirectory() ? 0o755 : 0o644); if (e.isDirectory()) writable(p); } };
const totals = { hit: 0, wrong: 0, silent: 0 };
for (const name of readdirSync(HERE).filter((d) => existsSync(join(HERE, d, 'case.json'))).sort()) {
  const c = JSON.parse(readFileSync(join(HERE, name, 'case.json'), 'utf8'));
  if (!existsSync(join('/usr/share/gocode/src', c.tree))) { console.log(`${name}: skipped (${c.debian} not installed)`); continue; }
  const tmp = mkdtempSync(join(tmpdir(), 'planted-'));
  const root = join(tmp, 'src', c.tree);
  cpSync(join('/usr/share/gocode/src', c.tree), root, { recursive: true });
  writable(root);
  if (existsSync(join(HERE, name, 'bug.patch'))) execFileSync('patch', ['-s', '-p1', '-d', root, '-i', join(HERE, name, 'bug.patch')]);
  for (const f of readdirSync(join(HERE, name)).filter((x) => x.endsWith('.go'))) cpSync(join(HERE, name, f), join(root, c.driver.dir, f));
  for (const v of readdirSync(join(HERE, name)).filter((v) => /^go1\.\d+$/.test(v) && statSync(join(HERE, name, v)).isDirectory())) {
    for (const dump of readdirSync(join(HERE, name, v)).filter((f) => f.endsWith('.txt'))) {
      const r = spawnSync(process.execPath, [cli, 'inspect', join(HERE, name, v, dump), '--source', root, '--format', 'json'], { encoding: 'utf8' });
      const j = JSON.parse(r.stdout);
      const causes = j.findings.flatMap((f) => (f.causeLocations ?? []).map((x) => ({ ...x, rule: f.ruleId, fconf: f.confidence })));
      const isBug = (x) => c.bug.some((b) => x.file === join(root, b.file) && x.line === b.line);
      const verdict = causes.some(isBug) ? 'hit' : causes.length ? 'wrong' : 'silent';
      totals[verdict]++;
      const show = (x) => `${x.file.slice(root.length + 1)}:${x.line} ${x.kind} (${x.confidence})${isBug(x) ? ' [bug]' : ''}`;
      console.log(`${name}/${v}/${dump}: ${verdict}`);
      for (const x of causes) console.log(`    ${x.rule} [finding ${x.fconf ?? '-'}]: ${show(x)}`);
      const notes = r.stderr.split('\n').filter((l) => l.includes('source:'));
      for (const n of notes) console.log(`    note: ${n.replace(/^leakscope: warning: /, '')}`);
    }
  }
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`hit ${totals.hit}, wrong ${totals.wrong}, silent ${totals.silent}`);
