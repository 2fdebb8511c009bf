/**
 * The audit's rules-stage gaps, on the real Go 1.19 samples:
 * - debug=1 hides the wait state (kind `unknown`); the rules still diagnose what links and counts show,
 *   with lower confidence and saying so: the API-proxy cascade (root = the unknown-state children the
 *   errgroup/WaitGroup parents wait for), very large identical unknown-state groups;
 * - a cascade counts only the waiters behind its root (300 + 300, not 300 + 380);
 * - info findings on healthy services use neutral words (no "nobody sends", no "they leak too");
 * - debug=0 tells a nil-channel park from a blocking one;
 * - a WaitGroup.Wait inside a request with its work in flight is not "goroutines that do not finish".
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/rules/index.js';
import { CORPUS, sampleCases, SAMPLES } from '../helpers/paths.js';
import { errorsOf, expectedOf, findingsOf, groupAt, rootedAt, summary } from './e2e.js';

const cases = sampleCases();
const has = (c: string) => cases.includes(c);
const first = async (path: string) => (await findingsOf(path))[0];
const rootOf = (f: Finding) => f.evidence.groups.filter((g) => g.role === 'root');

describe('debug=1: leaks found from links and counts, the hidden state said', () => {
  for (const name of ['apiproxy-leak', 'apiproxy-leak-renamed']) {
    it.skipIf(!has(name))(`${name}/goroutine.debug1.txt: ONE error rooted at the blocked site, the Wait-ing parents its consequence`, async () => {
      const exp = expectedOf(name);
      const findings = await first(join(SAMPLES, name, 'goroutine.debug1.txt'));
      const errors = errorsOf(findings);
      expect(errors, summary(findings)).toHaveLength(1);
      const f = errors[0];
      expect(f.ruleId).toBe('core/hidden-cascade');
      expect(f.confidence).toBe('medium');
      const root = rootOf(f);
      expect(root).toHaveLength(1);
      expect(root[0]).toMatchObject({ count: exp.leak!.root.count, waitKind: 'unknown', site: { func: exp.leak!.root.function, line: exp.leak!.root.line } });
      expect(f.location?.file.replace(/\\/g, '/').endsWith(exp.leak!.root.file)).toBe(true);
      for (const c of exp.leak!.consequences ?? []) {
        const g = groupAt(f, c);
        expect(g?.role).toBe('consequence');
        expect(g!.count).toBeGreaterThanOrEqual(c.count);
      }
      // Only the waiters behind the root: 300 + 300 (apiproxy-leak), 250 + 250 (renamed).
      const involved = exp.leak!.root.count + (exp.leak!.consequences ?? []).reduce((n, c) => n + c.count, 0);
      expect(f.evidence.goroutines).toBe(involved);
      expect(f.explanation).toMatch(/debug=1 hides the wait state/);
      expect(f.explanation).toMatch(/while their parent waits for them in `Wait`/);
      expect(f.explanation).toMatch(/debug=2 or debug=0/);
      expect(f.evidence.facts.some((x) => /live siblings, not part of this leak/.test(x))).toBe(true);
    });
  }

  const warnsAt: [string, string[]][] = [
    ['blocked-receive', ['warning']],
    ['nil-channel', ['warning']],
    ['unstopped-tickers', ['warning', 'error']],
  ];
  for (const [name, severities] of warnsAt) {
    it.skipIf(!has(name))(`${name}/goroutine.debug1.txt: the root site and count, saying the state is hidden`, async () => {
      const exp = expectedOf(name);
      const findings = await first(join(SAMPLES, name, 'goroutine.debug1.txt'));
      const f = rootedAt(findings, exp.leak!.root);
      expect(f, summary(findings)).toBeDefined();
      expect(f!.ruleId).toBe('core/hidden-state');
      expect(severities).toContain(f!.severity);
      expect(f!.confidence).toBe('low');
      expect(rootOf(f!)[0].count).toBe(exp.leak!.root.count);
      expect(f!.title).toMatch(/state hidden by debug=1/);
      expect(f!.explanation).toMatch(/debug=2 or debug=0 dump/);
    });
  }

  it.skipIf(!has('blocked-receive'))('blocked-receive/debug1: the waiters stand deep in a call, not in a loop', async () => {
    const f = rootedAt(await first(join(SAMPLES, 'blocked-receive', 'goroutine.debug1.txt')), expectedOf('blocked-receive').leak!.root)!;
    expect(f.title).toMatch(/^100 identical goroutines stopped inside a call at processor\.go:47/);
  });

  for (const name of ['healthy-server', 'apiproxy-fixed', 'watch-storm']) {
    it.skipIf(!has(name))(`${name}/goroutine.debug1.txt: no error, no hidden-state finding`, async () => {
      const findings = await first(join(SAMPLES, name, 'goroutine.debug1.txt'));
      expect(errorsOf(findings), summary(findings)).toEqual([]);
      expect(findings.filter((f) => f.ruleId.startsWith('core/hidden-')), summary(findings)).toEqual([]);
    });
  }
});

describe('a cascade counts the waiters behind its root only', () => {
  for (const [name, file] of [
    ['apiproxy-leak', 'goroutine.debug2.txt'],
    ['apiproxy-leak', 'goroutine.debug0.pb.gz'],
    ['apiproxy-leak-renamed', 'goroutine.debug2.txt'],
  ] as const) {
    it.skipIf(!has(name))(`${name}/${file}`, async () => {
      const exp = expectedOf(name);
      const [f] = errorsOf(await first(join(SAMPLES, name, file)));
      expect(f.evidence.goroutines).toBe(exp.leak!.root.count + exp.leak!.consequences!.reduce((n, c) => n + c.count, 0));
      const egWait = groupAt(f, exp.leak!.consequences![0])!;
      const live = egWait.count - exp.leak!.consequences![0].count;
      expect(live).toBeGreaterThan(0);
      expect(f.evidence.facts).toContain(
        `${live} more goroutines at ${exp.leak!.consequences![0].file.split('/').pop()}:${exp.leak!.consequences![0].line} wait for other goroutines they started (live siblings, not part of this leak); not counted`,
      );
    });
  }
});

describe('info findings on healthy services are worded neutrally', () => {
  it.skipIf(!has('apiproxy-fixed'))('apiproxy-fixed: nothing says "nobody sends" or "leak too"', async () => {
    for (const file of ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz', 'goroutine.debug1.txt']) {
      const findings = await first(join(SAMPLES, 'apiproxy-fixed', file));
      expect(findings.filter((f) => f.severity !== 'info'), summary(findings)).toEqual([]);
      for (const f of findings) {
        expect(`${f.title} ${f.explanation}`, file).not.toMatch(/nobody (sends|receives)|leak too|do not finish/);
      }
      // The per-session family (5 groups of 80: a Wait over two loops, a session loop, a stream) is not
      // reported one group at a time.
      expect(findings.filter((f) => f.evidence.groups.some((g) => g.role === 'root' && g.count === 80)), summary(findings)).toEqual([]);
    }
  });
});

describe('debug=0 nil channels', () => {
  it.skipIf(!has('nil-channel'))('nil-channel/debug0: blocked forever, never "idle loops" or "nobody receives"', async () => {
    const exp = expectedOf('nil-channel');
    const findings = await first(join(SAMPLES, 'nil-channel', 'goroutine.debug0.pb.gz'));
    for (const ref of [exp.leak!.root, ...exp.leak!.consequences!]) {
      const f = rootedAt(findings, ref);
      expect(f, summary(findings)).toBeDefined();
      expect(f!.ruleId).toBe('core/blocked-forever');
      expect(f!.severity).toBe('error');
      expect(rootOf(f!)[0]).toMatchObject({ count: ref.count, state: ref.state });
    }
    expect(findings.filter((f) => /Idle loops|nobody receives/.test(f.title)), summary(findings)).toEqual([]);
  });
});

describe('a WaitGroup.Wait with its work in flight', () => {
  const file = join(CORPUS, 'binary', 'flameshow-node-exporter-37.pb.gz');
  it.skipIf(!existsSync(file))('node_exporter during a scrape: nothing alarming', async () => {
    const findings = await first(file);
    expect(findings.filter((f) => f.severity !== 'info'), summary(findings)).toEqual([]);
    for (const f of findings) expect(`${f.title} ${f.explanation}`).not.toMatch(/do not finish|leak too|nobody/);
    const wait = findings.find((f) => f.location?.line === 463);
    if (wait) expect(wait.explanation).toMatch(/normal while the work they started is in flight/);
  });
});
