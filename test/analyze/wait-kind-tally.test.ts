/**
 * `analyze` tallies goroutines per wait kind in grouping's own pass over the read-stage groups
 * (groupSnapshot's `byWaitKind`): on every sample and corpus dump, the tally must be the one a pass
 * of its own makes, kinds in the same order (reports list them as they come).
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { memberWaitKind } from '../../src/analyze/group.js';
import { sampleAndCorpusDumps } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

describe('goroutines per wait kind, tallied while grouping', () => {
  it('are what a pass over the read-stage groups tallies, in its order', async () => {
    let kinds = 0;
    for await (const { path: p, snapshot: s } of snapshotsOf(sampleAndCorpusDumps())) {
      const want: Record<string, number> = {};
      for (const g of s.groups) {
        const k = memberWaitKind(g, s.format);
        want[k] = (want[k] ?? 0) + g.count;
      }
      expect(Object.entries(analyze(s).byWaitKind), p).toEqual(Object.entries(want));
      kinds += Object.keys(want).length;
    }
    expect(kinds).toBeGreaterThan(100);
  });
});
