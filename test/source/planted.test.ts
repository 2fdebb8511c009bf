/**
 * Bugs planted in real projects (samples/planted, Debian golang-*-dev sources): `--source` points at
 * a line of the bug, the checkout's modules are taken as the program's, the walk's confirmation is
 * never a contradiction. The figures (hit / wrong / silent) go to test-artifacts/planted.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.js';
import { buildCheckout, dumpsOf, packageAvailable, plantedCases, runPlanted, type PlantedRun } from './planted.js';

const results: Record<string, { verdict: PlantedRun['verdict']; wrong: string[] }> = {};

describe.each(plantedCases())('$case', (c) => {
  for (const dump of dumpsOf(c)) {
    it.runIf(packageAvailable(c))(`${dump}: --source points at a line of the bug`, async () => {
      const co = buildCheckout(c);
      try {
        const r = await runPlanted(c, dump, co.root);
        results[`${c.case}/${dump}`] = { verdict: r.verdict, wrong: r.wrongLines };
        expect(r.modules).toContain(c.tree);
        expect(r.verdict, JSON.stringify(r.findings.map((f) => f.causeLocations?.map((x) => `${x.kind} ${x.line}`)))).toBe('hit');
        // The surest cause of some finding is a line of the bug.
        const best = r.findings.map((f) => f.causeLocations?.[0]).filter((x) => !!x);
        expect(best.some((x) => c.bug.some((b) => x!.file.endsWith(`/${b.file}`) && x!.line === b.line))).toBe(true);
        // No finding is lowered by the source ("could not follow" is not "contradicts").
        for (const f of r.findings) expect(f.evidence.facts.join('\n')).not.toMatch(/contradicts|does not match/);
      } finally {
        co.dispose();
      }
    });
  }
});

afterAll(() => {
  if (Object.keys(results).length === 0) return;
  const out = join(REPO, 'test-artifacts');
  mkdirSync(out, { recursive: true });
  const count = (v: string) => Object.values(results).filter((r) => r.verdict === v).length;
  writeFileSync(join(out, 'planted.json'), `${JSON.stringify({ hit: count('hit'), wrong: count('wrong'), silent: count('silent'), cases: results }, null, 2)}\n`);
});
