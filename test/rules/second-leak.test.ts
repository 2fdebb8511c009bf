/**
 * A second leak beside a big one. samples/second-leak is a real quote hub (Go 1.19) with two
 * independent leaks: 6,200 fan-out senders blocked on subscribers that left (`feed.(*Hub).deliver`,
 * hub.go:51) and 960 bucket sealers waiting on a channel nobody closes (`archive.(*Bucket).seal`,
 * archive.go:44), 960 of 7,557 goroutines (12.7%), beside a background of live readers, a worker pool,
 * keepalives and gauges. debug1-sets.test.ts checks the rule on hand-built groups; this test checks it
 * on the dumps the program wrote: every format names both sets, each counted whole, and the second is
 * never lost behind the first.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { runRules, type Finding, type LeakscopeConfig } from '../../src/rules/index.js';
import { SAMPLES, sampleCases } from '../helpers/paths.js';
import { expectedOf, findingsOf, summary } from './e2e.js';

const CASE = 'second-leak';
const file = (name: string) => join(SAMPLES, CASE, name);

/** The findings whose root group sits at the expected group's function and line. */
const rootedAtGroup = (fs: Finding[], g: { function: string; line: number }) =>
  fs.filter((f) => f.evidence.groups.some((x) => x.role === 'root' && x.site?.func === g.function && x.site.line === g.line));

/** The one finding rooted at `g`: it must exist, and no second finding may claim the same set. */
function onlyFindingAt(fs: Finding[], g: { id: string; function: string; line: number }): Finding {
  const found = rootedAtGroup(fs, g);
  expect(found, `${g.id}: one finding\n${summary(fs)}`).toHaveLength(1);
  return found[0];
}

describe.skipIf(!sampleCases().includes(CASE))('samples/second-leak: two independent leaks, both reported', () => {
  const exp = expectedOf(CASE);
  const big = exp.groups!.find((g) => g.id === 'deliverSend')!;
  const second = exp.groups!.find((g) => g.id === 'sealWait')!;

  it('the sample is a second leak beside a big one: 6,200 beside 960, the second 12-13% of the dump', () => {
    expect(big.count).toBe(6200);
    expect(second.count).toBe(960);
    const share = second.count / (exp as typeof exp & { total: number }).total;
    expect(share).toBeGreaterThan(0.12);
    expect(share).toBeLessThan(0.13);
  });

  it('debug=1 (state hidden): one hidden-state finding per set, each counting its whole set', async () => {
    const [fs] = await findingsOf(file('goroutine.debug1.txt'));
    const hidden = fs.filter((f) => f.ruleId === 'core/hidden-state');
    expect(hidden.map((f) => f.evidence.goroutines), summary(fs)).toEqual([big.count, second.count]);
    for (const g of [big, second]) {
      const f = onlyFindingAt(fs, g);
      expect(f.ruleId).toBe('core/hidden-state');
      expect(f.evidence.goroutines).toBe(g.count);
      expect(f.title).toMatch(/state hidden by debug=1/);
    }
    // 82% of the dump is an error; the second set, 12.7%, a warning: reported, not demoted to info.
    expect(rootedAtGroup(fs, big)[0].severity).toBe('error');
    expect(rootedAtGroup(fs, second)[0].severity).toBe('warning');
    // The background (169 live readers, 160 pool workers, 64 keepalives, 3 gauges) is not a set.
    expect(fs.filter((f) => f.severity !== 'info').length, summary(fs)).toBe(2);
  });

  it('debug=1: it is the set thresholds that catch the second set (a share threshold above 12.7% loses it)', async () => {
    const dump = await readDump(file('goroutine.debug1.txt'));
    const a = analyze(dump.snapshots[0]);
    const strict: LeakscopeConfig = { overrides: { 'core/hidden-state': { params: { setShare: 0.13 } } } };
    const fs = runRules(a, { config: strict });
    expect(rootedAtGroup(fs, big).map((f) => f.evidence.goroutines), summary(fs)).toEqual([big.count]);
    expect(rootedAtGroup(fs, second), summary(fs)).toEqual([]);
  });

  // debug=2 prints the wait state; debug=0 has none but the runtime frames (chansend, chanrecv) tell
  // it. Both give the same findings. The 960 sealers each park in one receive at their function's
  // entry, which the rules read as a goroutine's own loop: `core/unstopped-loop` ("identical loops"),
  // a warning whose cause names "a done channel that is never closed". Neither format can tell a
  // one-shot receive from a loop waiting for its next item: both stop at the same line.
  for (const name of ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz']) {
    it(`${name}: the senders are an error, the sealers a finding of their own, each counted whole`, async () => {
      const [fs] = await findingsOf(file(name));
      const send = onlyFindingAt(fs, big);
      expect(send.ruleId).toBe('core/blocked-send');
      expect(send.severity).toBe('error');
      expect(send.evidence.goroutines).toBe(big.count);

      const seal = onlyFindingAt(fs, second);
      expect(seal.ruleId).toBe('core/unstopped-loop');
      expect(seal.severity).toBe('warning');
      expect(seal.evidence.goroutines).toBe(second.count);
      expect(seal.title).toMatch(/^960 identical loops at archive\.go:44/);
      // The only error is the senders': no other finding swallows the sealers or counts them again.
      expect(fs.filter((f) => f.severity === 'error'), summary(fs)).toEqual([send]);
      expect(fs.filter((f) => f !== seal && f.evidence.groups.some((g) => g.site?.func === second.function))).toEqual([]);
      // The healthy background (169 subscriber readers, 160 pool workers: ~2% of the process each) is
      // no warning: one snapshot cannot tell a bounded per-object loop from a leak at that size.
      expect(fs.filter((f) => f.severity !== 'info' && f !== send && f !== seal), summary(fs)).toEqual([]);
    });
  }
});
