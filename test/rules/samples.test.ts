/**
 * The acceptance story on the Go samples (samples/<case>/expected.json): each leak is found with the
 * right root site and count, the API-proxy leak (and its renamed WaitGroup variant) is ONE error whose
 * consequences are the waiting parents, and the no-leak controls get no error at all.
 *
 * Formats: debug=2 and SIGQUIT/crash traces print the wait state; debug=0 infers it from runtime
 * frames, except nil channels (they look like ordinary channel ops) and creators (not recorded).
 * debug=1 hides both the runtime frames and the state: its leaks are not asserted, only the absence
 * of false errors.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleCases, SAMPLES } from '../helpers/paths.js';
import { errorsOf, expectedOf, findingsOf, groupAt, rootedAt, summary } from './e2e.js';

const cases = sampleCases();
const has = (c: string) => cases.includes(c);

/** Where each leak sample's root must be found. */
const LEAK_FILES: Record<string, string[]> = {
  'apiproxy-leak': ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz', 'goroutine-sigquit.txt'],
  'apiproxy-leak-renamed': ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz'],
  'blocked-receive': ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz'],
  'nil-channel': ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz'],
  'unstopped-tickers': ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz'],
  'waitgroup-leak': ['goroutine.debug2.txt'],
  'connection-leak': ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz'],
  'lock-inversion': ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz', 'goroutine.debug1.txt', 'deadlock.txt'],
  'gotest-timeout': ['gotest-timeout.txt', 'gotest-timeout.jsonl'],
};

describe.skipIf(!has('apiproxy-leak'))('the API-proxy leak (incident a)', () => {
  for (const name of ['apiproxy-leak', 'apiproxy-leak-renamed']) {
    for (const file of LEAK_FILES[name]) {
      it(`${name}/${file}: ONE error, rooted at the blocked send, the Wait-ing parents as consequences`, async () => {
        const exp = expectedOf(name);
        const [findings] = await findingsOf(join(SAMPLES, name, file));
        const errors = errorsOf(findings);
        expect(errors, summary(findings)).toHaveLength(1);
        const f = errors[0];
        const root = f.evidence.groups.filter((g) => g.role === 'root');
        expect(root).toHaveLength(1);
        expect(root[0]).toMatchObject({ count: exp.leak!.root.count, site: { func: exp.leak!.root.function, line: exp.leak!.root.line } });
        expect(f.location?.file.replace(/\\/g, '/').endsWith(exp.leak!.root.file)).toBe(true);
        for (const c of exp.leak!.consequences ?? []) {
          const g = groupAt(f, c);
          expect(g?.role, `${c.function}:${c.line} in\n${f.evidence.facts.join('\n')}`).toBe('consequence');
          expect(g!.count).toBeGreaterThanOrEqual(c.count);
        }
        expect(f.cause).toMatch(/returned early/);
        expect(f.cause).toMatch(/without draining/);
        expect(f.fix).toMatch(/Drain the channel/);
        expect(f.fix).toMatch(/ctx\.Done\(\)/);
      });
    }
  }
});

describe('every leak sample: the leak, with the right root site and count', () => {
  for (const [name, files] of Object.entries(LEAK_FILES)) {
    if (!has(name) || name.startsWith('apiproxy')) continue;
    for (const file of files) {
      it.skipIf(!existsSync(join(SAMPLES, name, file)))(`${name}/${file}`, async () => {
        const exp = expectedOf(name);
        const [findings] = await findingsOf(join(SAMPLES, name, file));
        const f = rootedAt(findings, exp.leak!.root);
        expect(f, summary(findings)).toBeDefined();
        expect(f!.severity).toBe('error');
        const root = f!.evidence.groups.find((g) => g.role === 'root' && g.site?.line === exp.leak!.root.line)!;
        expect(root.count).toBe(exp.leak!.root.count);
        // The root is never a consequence elsewhere, and nothing else is an error about the same sites.
        expect(findings.filter((x) => x !== f && x.evidence.groups.some((g) => g.id === root.id))).toEqual([]);
      });
    }
  }

  it.skipIf(!has('lock-inversion'))('lock-inversion: the two transfers are the cycle, the 200 readers the pile-up', async () => {
    const exp = expectedOf('lock-inversion');
    const [findings] = await findingsOf(join(SAMPLES, 'lock-inversion', 'goroutine.debug2.txt'));
    const f = rootedAt(findings, exp.leak!.root)!;
    expect(f.ruleId).toBe('core/lock-order');
    const readers = exp.leak!.consequences![0];
    expect(groupAt(f, readers)).toMatchObject({ role: 'consequence', count: readers.count });
  });
});

describe.skipIf(!has('lock-pileup'))('lock-pileup: one blocking site, several call paths, WaitGroup waiters behind it', () => {
  for (const file of ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz', 'goroutine.debug1.txt']) {
    it(`${file}: the first finding counts every goroutine at the Add site and has the queries as consequence`, async () => {
      const exp = expectedOf('lock-pileup');
      const [findings] = await findingsOf(join(SAMPLES, 'lock-pileup', file));
      const f = findings[0];
      if (file === 'goroutine.debug2.txt') {
        // debug=2 prints the arguments that name the holder: the compaction blocked in a receive inside
        // the Table's critical section is the root; the whole queue and the queries behind it follow.
        expect(f.ruleId, summary(findings)).toBe('core/lock-held-blocked');
        expect(f.location?.func).toMatch(/\.\(\*Table\)\.Compact$/);
        const queued = f.evidence.groups.filter((g) => g.role === 'consequence' && g.site?.line === exp.leak!.root.line);
        expect(queued.reduce((n, g) => n + g.count, 0)).toBe(exp.leak!.root.count);
        for (const c of exp.leak!.consequences!) expect(groupAt(f, c)).toMatchObject({ role: 'consequence', count: c.count });
        expect(f.evidence.goroutines).toBe(1 + exp.leak!.root.count + 300);
        expect(findings.filter((x) => x.ruleId === 'core/waitgroup-stuck'), summary(findings)).toEqual([]);
        return;
      }
      expect(f.ruleId, summary(findings)).toBe('core/lock-pileup');
      expect(f.location).toMatchObject({ func: exp.leak!.root.function, line: exp.leak!.root.line });
      const roots = f.evidence.groups.filter((g) => g.role === 'root');
      expect(roots.reduce((n, g) => n + g.count, 0)).toBe(exp.leak!.root.count);
      expect(Math.max(...roots.map((g) => g.count))).toBe(roots[0].count);
      expect(f.title).toContain(`${exp.leak!.root.count} goroutines`);
      for (const c of exp.leak!.consequences!) expect(groupAt(f, c)).toMatchObject({ role: 'consequence', count: c.count });
      expect(f.evidence.goroutines).toBe(exp.leak!.root.count + 300);
      // The waiters are not a finding of their own, and no finding counts fewer than its largest group.
      expect(findings.filter((x) => x.ruleId === 'core/waitgroup-stuck'), summary(findings)).toEqual([]);
      for (const x of findings) expect(x.evidence.goroutines).toBeGreaterThanOrEqual(Math.max(0, ...x.evidence.groups.map((g) => g.count)));
    });
  }
});

describe('controls and other verdicts', () => {
  for (const name of ['healthy-server', 'apiproxy-fixed', 'busy-client']) {
    it.skipIf(!has(name))(`${name}: no error and no warning in any format`, async () => {
      for (const file of ['goroutine.debug2.txt', 'goroutine.debug1.txt', 'goroutine.debug0.pb.gz']) {
        for (const fs of await findingsOf(join(SAMPLES, name, file))) expect(fs.filter((f) => f.severity !== 'info'), `${file}\n${summary(fs)}`).toEqual([]);
      }
    });
  }

  it.skipIf(!has('busy-client'))('busy-client: its pooled connections are an info, counted whole', async () => {
    const readLoops = expectedOf('busy-client').groups!.find((g) => g.id === 'clientReadLoop')!;
    for (const file of ['goroutine.debug2.txt', 'goroutine.debug1.txt', 'goroutine.debug0.pb.gz']) {
      const [findings] = await findingsOf(join(SAMPLES, 'busy-client', file));
      const conns = findings.find((f) => f.ruleId === 'core/connection-leak');
      expect(conns?.severity, summary(findings)).toBe('info');
      expect(conns!.title).toBe(`${readLoops.count} open HTTP client connections`);
    }
  });

  it.skipIf(!has('watch-storm'))('watch-storm: a storm of watch requests (warning), not a leak', async () => {
    const sub = expectedOf('watch-storm').groups!.find((g) => g.id === 'subscriberRoundTrip')!;
    for (const file of ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz', 'goroutine.debug1.txt']) {
      const [findings] = await findingsOf(join(SAMPLES, 'watch-storm', file));
      expect(errorsOf(findings), summary(findings)).toEqual([]);
      const storm = findings.find((f) => f.ruleId === 'core/watch-requests');
      expect(storm?.severity).toBe('warning');
      expect(groupAt(storm!, sub)?.count).toBe(sub.count);
    }
  });

  it.skipIf(!has('concurrent-map-crash'))('concurrent-map-crash: names both sides', async () => {
    const groups = expectedOf('concurrent-map-crash').traces!['crash.txt'].groups!;
    const crashing = groups.find((g) => g.role === 'crashing')!;
    const writers = groups.find((g) => g.role === 'writer')!;
    const [findings] = await findingsOf(join(SAMPLES, 'concurrent-map-crash', 'crash.txt'));
    const f = findings.find((x) => x.ruleId === 'core/map-crash')!;
    expect(f.severity).toBe('error');
    expect(f.location).toMatchObject({ func: crashing.function, line: crashing.line });
    expect(f.explanation).toMatch(/iterating a map \(reflect\.mapiternext\) inside encoding\/json/);
    expect(f.explanation).toContain(`${writers.count} goroutines of clustercache.(*Cache).informer`);
    const writerGroups = f.evidence.groups.filter((g) => g.role === 'related' && g.site && f.evidence.facts.length);
    expect(writerGroups.length).toBeGreaterThan(0);
    expect(f.fix).toMatch(/deep-copy maps/);
    expect(errorsOf(findings).map((x) => x.ruleId)).toEqual(['core/map-crash']);
  });

  it.skipIf(!has('race'))('race: three reports, two distinct pairs of sites', async () => {
    const [findings] = await findingsOf(join(SAMPLES, 'race', 'race.txt'));
    expect(findings.map((f) => f.title)).toEqual([
      'Data race between cache.(*Cache).Get (cache.go:23) and cache.(*Cache).Put (cache.go:18)',
      'Data race between main.handle (main.go:26) and main.refresh (main.go:20)',
    ]);
    expect(findings[0].evidence.facts).toContain('reported 2 times (first at line 2)');
  });
});
