/**
 * What the census gathers in its one pass over the groups (frames.ts) must be what a pass of its
 * own gives. The site sets the rules match (groups by blocking site and wait kind, site-sets.ts) are collected
 * in the census's one pass over the groups, and a whole set's goroutines are recorded for its
 * candidates (`knownSiteSet`) instead of summed over its groups again. Both must give what the plain
 * way gives, on every sample and corpus dump: sets made by grouping each group's site text and wait
 * kind, largest first (stable), in order of their first group; and the sums `siteCount` and
 * `goroutinesOf` make over a copy of the roots (which nothing was recorded for).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import type { Analysis, AnalyzedGroup } from '../../src/analyze/types.js';
import { goroutinesOf, knownSiteSet, siteCount, type Candidate } from '../../src/rules/candidate.js';
import { census } from '../../src/rules/frames.js';
import { CORPUS, SAMPLES, corpusAvailable, filesUnder } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

const DUMPS = /^(?!expected|dumps\.json|package).*\.(txt|pb\.gz|json|jsonl|log)$/;

/** Site sets the plain way: one map from site text and wait kind, then a stable sort of each set. */
function plainSets(a: Analysis): AnalyzedGroup[][] {
  const byKey = new Map<string, AnalyzedGroup[]>();
  const sets: AnalyzedGroup[][] = [];
  for (const g of a.groups) {
    const s = g.blockingSite;
    if (!s) {
      sets.push([g]);
      continue;
    }
    const key = `${s.func}\u0000${s.file}\u0000${s.line}\u0000${g.waitKind}`;
    const set = byKey.get(key);
    if (set) set.push(g);
    else {
      const fresh = [g];
      byKey.set(key, fresh);
      sets.push(fresh);
    }
  }
  return sets.map((set) => [...set].sort((x, y) => y.count - x.count));
}

const sum = (gs: readonly AnalyzedGroup[]) => gs.reduce((n, g) => n + g.count, 0);

describe('census of an analysis', () => {
  it('site sets are the groups by site text and wait kind, and a set records the sums its groups give; the longest wait is the longest of any group', async () => {
    const paths = ['servers', 'deadlocks', 'apiproxy-leak', 'lock-pileup', 'go-versions'].flatMap((d) => filesUnder(join(SAMPLES, d), DUMPS));
    if (corpusAvailable()) paths.push(...filesUnder(CORPUS, DUMPS));
    let n = 0;
    let multi = 0;
    let waits = 0;
    for await (const { snapshot: s } of snapshotsOf(paths)) {
      const a = analyze(s);
      const { sets, total, byKind } = census(a).siteSets.sets();
      expect(sets).toEqual(plainSets(a));
      for (const [i, set] of sets.entries()) {
        expect(total.get(set)).toEqual({ count: sum(set), index: i });
        expect(byKind.get(set[0].waitKind)).toContain(set);
        if (set.length < 2) continue;
        multi++;
        const roots = set.slice(1);
        knownSiteSet(set[0], roots, total.get(set)!.count);
        const recorded = { root: set[0], roots } as Candidate;
        const copy = { root: set[0], roots: [...roots] } as Candidate;
        expect(siteCount(recorded)).toBe(siteCount(copy));
        expect(goroutinesOf(roots)).toBe(goroutinesOf([...roots]));
      }
      // The longest wait, by which a rule's `minWaitMinutes` is impossible in a dump (`possibleIn`).
      expect(census(a).maxWait).toBe(Math.max(0, ...a.groups.map((g) => g.wait?.max ?? 0)));
      if (census(a).maxWait > 0) waits++;
      n++;
    }
    expect(n).toBeGreaterThan(50);
    expect(multi).toBeGreaterThan(5);
    expect(waits).toBeGreaterThan(5);
  });
});
