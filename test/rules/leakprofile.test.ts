/**
 * The goroutineleak profile (Go 1.26, samples/leakprofile/fetch-fanout, fetched from the program's own
 * /debug/pprof/goroutineleak): at debug=0, 1 and 2, and in a plain goroutine dump taken after the leak
 * GC ran, the leaked fetchers (gateway.go:48) are one proven leak — error, confidence `certain`, the
 * proof stated — with the leaked `wg.Wait()` closers (gateway.go:52) as its consequence, and nothing is
 * guessed beside it about the goroutines the runtime did not mark (the audit backlog at main.go:45, the
 * worker pool at main.go:33). The same process before any leak GC ran is diagnosed by the heuristics.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/rules/index.js';
import { SAMPLES } from '../helpers/paths.js';
import { findingsOf, summary } from './e2e.js';

const DIR = join(SAMPLES, 'leakprofile', 'fetch-fanout');
const SEND = { func: 'example.com/fetchgw/internal/fetch.(*Gateway).FirstAnswer.func1', line: 48 };
const CLOSER = { func: 'example.com/fetchgw/internal/fetch.(*Gateway).FirstAnswer.func2', line: 52 };
const PROOF = "proven by the runtime's leak-detecting GC";
const blaming = (fs: Finding[]) => fs.filter((f) => f.severity !== 'info' && ['leak', 'deadlock', 'contention', 'resource'].includes(f.category ?? ''));
const at = (f: Finding, s: { func: string; line: number }) => f.evidence.groups.find((g) => g.site?.func === s.func && g.site.line === s.line);

describe.skipIf(!existsSync(DIR))('goroutineleak profile: one proven leak, no guess beside it', () => {
  const proven = [
    ['goroutineleak.debug0.pb.gz', 'debug=0: it lists leaked goroutines only'],
    ['goroutineleak.debug1.txt', 'debug=1: it lists leaked goroutines only'],
    ['goroutineleak.debug2.txt', '`(leaked)`'],
    ['goroutine.after-leak-gc.debug2.txt', '`(leaked)`'],
  ] as const;
  for (const [file, how] of proven) {
    it(file, async () => {
      const fs = (await findingsOf(join(DIR, file))).flat();
      const blamed = blaming(fs);
      expect(blamed, summary(fs)).toHaveLength(1);
      const f = blamed[0];
      expect(f).toMatchObject({ ruleId: 'core/leaked', severity: 'error', confidence: 'certain', location: { func: SEND.func, line: SEND.line } });
      expect(f.title).toBe('60 goroutines proven leaked at gateway.go:48');
      expect(f.explanation).toMatch(/^Proven by the runtime's leak-detecting GC/);
      expect(f.evidence.facts.find((x) => x.startsWith(PROOF)), summary(fs)).toContain(how);
      expect(at(f, SEND)?.role).toBe('root');
      expect(at(f, CLOSER)).toMatchObject({ role: 'consequence', count: 20 });
      expect(f.evidence.goroutines).toBe(80);
      // The goroutines the runtime did not mark are blamed by nothing (the debug=2 dumps list them).
      for (const g of fs.filter((x) => x !== f)) {
        expect(g.severity, `${g.ruleId}: ${g.title}`).toBe('info');
        expect(g.location?.func).not.toBe('main.audit');
      }
    });
  }

  it('the same process before any leak GC: no proof, the heuristics find the fetchers', async () => {
    const fs = (await findingsOf(join(DIR, 'goroutine.debug2.txt'))).flat();
    expect(fs.some((f) => f.ruleId === 'core/leaked' || f.confidence === 'certain'), summary(fs)).toBe(false);
    const send = fs.find((f) => f.location?.func === SEND.func);
    expect(send, summary(fs)).toMatchObject({ ruleId: 'core/blocked-send', severity: 'error' });
    // …and, without proof, the audit backlog looks the same (it is reachable: the GC would not mark it).
    expect(fs.some((f) => f.location?.func === 'main.audit' && f.severity === 'error'), summary(fs)).toBe(true);
  });

  it('a proven leak wins its root from a rule that only matched the stack shape', async () => {
    const fs = (await findingsOf(join(DIR, 'goroutineleak.debug2.txt'))).flat();
    expect(fs.filter((f) => f.location?.func === SEND.func).map((f) => f.ruleId)).toEqual(['core/leaked']);
  });
});
