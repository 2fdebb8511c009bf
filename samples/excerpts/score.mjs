// node samples/excerpts/score.mjs <dist dir> <samples/excerpts dir>: the excerpt score of a build (buggy excerpts
// naming a stuck site at warning or above; healthy excerpts with no warning), as test/rules/excerpts.test.ts counts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const [dist, dir] = process.argv.slice(2);
const { readDump } = await import(join(dist, 'read/index.js'));
const { analyze } = await import(join(dist, 'analyze/index.js'));
const { runRules } = await import(join(dist, 'rules/index.js'));
const cases = JSON.parse(readFileSync(join(dir, 'excerpts.json'), 'utf8')).excerpts;
const names = (f, s) => (f.location?.func === s.function && f.location.line === s.line) || f.evidence.groups.some((g) => g.site?.func === s.function && g.site.line === s.line);
let bug = 0, ok = 0, healthy = 0, quiet = 0;
const bySrc = {};
for (const c of cases) {
  let d;
  try { d = await readDump(join(dir, c.path)); } catch { d = { snapshots: [] }; }
  const fs = d.snapshots.flatMap((s) => runRules(analyze(s)));
  const loud = fs.filter((f) => f.severity !== 'info');
  const src = c.from.split('/')[0];
  const b = (bySrc[src] ??= [0, 0]);
  if (c.verdict === 'healthy') { healthy++; if (!loud.length) quiet++; continue; }
  bug++; b[1]++;
  if ((c.stuck ?? []).some((s) => loud.some((f) => names(f, s)))) { ok++; b[0]++; }
}
console.log(`${dist}: buggy excerpts naming a stuck site at warning+: ${ok}/${bug} (${(100 * ok / bug).toFixed(1)}%) ${JSON.stringify(bySrc)}; healthy excerpts without warning: ${quiet}/${healthy}`);
