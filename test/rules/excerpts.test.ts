/**
 * Acceptance on excerpts: samples/excerpts holds goroutines cut from the real dumps of
 * samples/deadlocks the way people paste them (1, 2 or 5 goroutines, with and without the header,
 * starting mid-stack, with `...`; cut.mjs), samples/module-bugs holds excerpts of programs built inside
 * real projects' packages. At least 90% of the buggy excerpts name a stuck site at warning or above,
 * and no healthy excerpt warns.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLES } from '../helpers/paths.js';
import { summary } from './e2e.js';
import { excerptCases, scoreExcerpt, type ExcerptScore } from './excerpts.js';

const TARGET = 0.9;

describe.each(['excerpts'])('samples/%s', (name) => {
  const dir = join(SAMPLES, name);
  const cases = excerptCases(dir);
  it(`names the stuck site in ≥ ${TARGET * 100}% of buggy excerpts, and no healthy excerpt warns`, async () => {
    expect(cases.length).toBeGreaterThan(0);
    const rs: ExcerptScore[] = [];
    for (const c of cases) rs.push(await scoreExcerpt(dir, c));
    const bug = rs.filter((r) => r.c.verdict !== 'healthy');
    const named = bug.filter((r) => r.ok).length;
    const healthy = rs.filter((r) => r.c.verdict === 'healthy');
    const misses = rs.filter((r) => !r.ok).map((r) => `${r.c.path}\n${summary(r.findings)}`);
    if (process.env.EXCERPT_REPORT) {
      console.log(`${name}: buggy named ${named}/${bug.length} (${((100 * named) / bug.length).toFixed(1)}%); healthy quiet ${healthy.filter((r) => r.ok).length}/${healthy.length}`);
      console.log(misses.join('\n\n'));
    }
    expect(healthy.filter((r) => !r.ok).map((r) => r.c.path), misses.join('\n\n')).toEqual([]);
    expect(named / bug.length, misses.slice(0, 10).join('\n\n')).toBeGreaterThanOrEqual(TARGET);
  }, 300_000);
});
