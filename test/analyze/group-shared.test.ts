/**
 * A group of one read-stage group shares a frozen empty flags object when its member has no flag,
 * and one frozen `[state]` array with the groups of its state: each must still be what the member
 * says (every true flag, the synctest bubble, the state), on every sample and corpus dump.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { sampleAndCorpusDumps } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

const FLAGS = ['leaked', 'durable', 'lockedToThread', 'scan', 'stackUnavailable', 'crashed'] as const;

describe('flags and states of one-member groups', () => {
  it('are the member\'s', async () => {
    const paths = sampleAndCorpusDumps();
    let flagged = 0;
    let plain = 0;
    for await (const { snapshot: s } of snapshotsOf(paths)) {
      for (const g of analyze(s).groups) {
        if (g.members.length !== 1) continue;
        const m = s.groups[g.members[0]];
        const want: Record<string, unknown> = {};
        for (const k of FLAGS) if (m.flags[k]) want[k] = true;
        if (m.flags.synctestBubble !== undefined) want.synctestBubble = m.flags.synctestBubble;
        expect(g.flags).toEqual(want);
        expect(g.states).toEqual([m.state]);
        expect(Object.isFrozen(g.states)).toBe(true);
        if (Object.keys(want).length) flagged++;
        else {
          expect(Object.isFrozen(g.flags)).toBe(true);
          plain++;
        }
      }
    }
    expect(flagged).toBeGreaterThan(20);
    expect(plain).toBeGreaterThan(1000);
  });
});
