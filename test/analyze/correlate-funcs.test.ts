/**
 * `correlate` given the functions on the groups' stacks (as `analyze` passes them) drops the
 * spawners on none before its pass over every frame: the links must be those it finds without them,
 * on every sample and corpus dump. It reads the groups `analyze` made in the order they were made
 * (`madeOrder`): the links must be those it finds in their sorted order (a copy of the array, which
 * grouping kept nothing about).
 */
import { describe, expect, it } from 'vitest';
import { analyze, correlate, stackFunctions } from '../../src/analyze/index.js';
import { madeOrder } from '../../src/analyze/group.js';
import { sampleAndCorpusDumps } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

describe('correlate with the stacks\' functions', () => {
  it('finds the links it finds without them', async () => {
    const paths = sampleAndCorpusDumps();
    let linked = 0;
    let inferred = 0;
    for await (const { snapshot: s } of snapshotsOf(paths)) {
      const a = analyze(s);
      expect(a.links).toEqual(correlate(s, a.groups));
      expect(correlate(s, a.groups, stackFunctions(a))).toEqual(a.links);
      expect(correlate(s, [...a.groups], stackFunctions(a))).toEqual(a.links);
      expect(madeOrder(a.groups)).not.toBe(a.groups);
      if (a.links.length) linked++;
      if (a.links.some((l) => l.via === 'shared-frames')) inferred++;
    }
    expect(linked).toBeGreaterThan(10);
    expect(inferred).toBeGreaterThan(3);
  });
});
