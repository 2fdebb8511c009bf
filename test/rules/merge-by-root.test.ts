/**
 * Candidates of several rules rooted at one group become one finding (engine.ts, `mergeByRoot`). The
 * finding's roots (its group and the other call paths to its site) are not also among its related
 * groups or consequences, as another candidate may have had them: a set detector relating every
 * group of a pipeline (backpressure) merged into a blocked-send finding over 34 call paths listed 33
 * of them twice and counted their goroutines twice.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { candidate, type Detector } from '../../src/rules/candidate.js';
import { DETECTORS } from '../../src/rules/detectors/index.js';
import { runEngine } from '../../src/rules/engine.js';
import { builtinRules } from '../../src/rules/packs.js';
import { SAMPLES } from '../helpers/paths.js';

describe('one finding per root', () => {
  it('does not relate, nor count twice, the groups it roots at', async () => {
    // lock-pileup: 777 goroutines queued at table.go:23 in 3 call paths (core/lock-pileup).
    const dump = await readDump(join(SAMPLES, 'lock-pileup', 'goroutine.debug1.txt'));
    const a = analyze(dump.snapshots[0]);
    const rules = builtinRules();
    const alone = runEngine({ analysis: a, rules, detectors: DETECTORS });
    const pileup = alone.find((f) => f.ruleId === 'core/lock-pileup')!;
    const rootIds = pileup.evidence.groups.filter((g) => g.role === 'root').map((g) => g.id);
    expect(rootIds).toHaveLength(3);
    const listed = new Set(pileup.evidence.groups.map((g) => g.id));
    const other = a.groups.find((g) => !listed.has(g.id))!;
    // A set detector's candidate at the same root, relating the other call paths and one more group.
    const relating: Detector = {
      description: 'relates every group of a set',
      find: (_ctx, rule) => {
        const root = a.groups.find((g) => g.id === rootIds[0])!;
        const related = [...a.groups.filter((g) => rootIds.slice(1).includes(g.id)), other];
        return [candidate(rule, root, { related, consequences: related.slice(0, 1) })];
      },
    };
    const setRule = { ...rules.find((r) => r.id === 'core/lock-pileup')!, id: 'test/set', match: undefined, detector: 'relating', levels: [], severity: 'info' as const };
    const merged = runEngine({ analysis: a, rules: [...rules, setRule], detectors: { ...DETECTORS, relating } });
    const f = merged.find((x) => x.ruleId === 'core/lock-pileup')!;
    const roles = new Map<string, string[]>();
    for (const g of f.evidence.groups) roles.set(g.id, [...(roles.get(g.id) ?? []), g.role]);
    // Each root once, as a root; the one more group related.
    for (const id of rootIds) expect(roles.get(id)).toEqual(['root']);
    expect(roles.get(other.id)).toEqual(['related']);
    expect(f.evidence.groups).toHaveLength(pileup.evidence.groups.length + 1);
    expect(f.evidence.goroutines).toBe(pileup.evidence.goroutines + other.count);
  });
});
