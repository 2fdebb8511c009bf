/**
 * Dumps inside other text. A real dump (corpus) is wrapped the way logs and tools wrap it (kubectl
 * timestamps, journald with its tab stripping, docker compose, CRLF, tabs expanded, markdown escaping,
 * `go test -json` events split mid-line) and must read exactly like the plain file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dump } from '../../src/model/dump.js';
import { InputError, readDumpFrom } from '../../src/read/index.js';
import { findAnchor, generalizePrefix, leadingTimestamp, timestampHeader, unescapeMarkdown } from '../../src/read/unwrap.js';
import { CORPUS, SAMPLES, corpusAvailable } from '../helpers/paths.js';

const hasCorpus = corpusAvailable();
const corpus = (f: string): string => readFileSync(join(CORPUS, f), 'utf8');

/** What must survive wrapping: per snapshot, each group's count, state, flags, frames and creator. */
function shape(d: Dump): unknown {
  return d.snapshots.map((s) => ({
    total: s.total,
    truncated: s.truncated,
    headline: s.headline?.message,
    groups: s.groups.map((g) => ({
      count: g.count, state: g.state, flags: g.flags, wait: g.wait, ids: g.goroutineIds, partial: g.partial,
      frames: g.frames.map((f) => `${f.func} ${f.pkg} ${f.file}:${f.line}${f.inlined ? ' inlined' : ''}`),
      creator: g.creator && `${g.creator.func} ${g.creator.file}:${g.creator.line} ${g.creator.goroutineIds}`,
    })),
  }));
}

/** `n` pseudo-random cut points (deterministic), for splitting lines across test2json events. */
function* cuts(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2147483648;
    yield x;
  }
}

describe.skipIf(!hasCorpus)('wrapped dumps read like the plain dump', () => {
  const file = 'debug2/profilernotes-runtime-stack-all.txt';
  const lines = (): string[] => corpus(file).replace(/\n$/, '').split('\n');
  const plain = async (): Promise<unknown> => shape(await readDumpFrom('plain', corpus(file)));

  it('kubectl logs --timestamps (RFC3339Nano; blank dump lines keep no trailing space) and sets capturedAt', async () => {
    const text = lines().map((l, i) => `2021-07-19T13:56:${String(i % 60).padStart(2, '0')}.5083649${i % 10}Z${l ? ` ${l}` : ''}`).join('\n');
    const d = await readDumpFrom('kubectl', text);
    expect(shape(d)).toEqual(await plain());
    expect(d.snapshots[0].capturedAt).toBe('2021-07-19T13:56:00.508Z');
  });

  it('journald: `Mon DD hh:mm:ss host unit[pid]: ` prefix, leading tabs stripped, blank lines dropped', async () => {
    const text = lines().filter((l) => l.length > 0).map((l, i) => `Dec 21 14:33:${String(55 + (i % 5)).padStart(2, '0')} node1 kubelet[28009]: ${l.replace(/^\t/, '')}`).join('\n');
    expect(shape(await readDumpFrom('journald', text))).toEqual(await plain());
  });

  it('docker compose `app-1  | ` prefix', async () => {
    const text = lines().map((l) => `app-1  | ${l}`).join('\n');
    expect(shape(await readDumpFrom('compose', text))).toEqual(await plain());
  });

  it('CRLF line ends and tabs expanded to 8 spaces', async () => {
    expect(shape(await readDumpFrom('crlf', lines().join('\r\n')))).toEqual(await plain());
    expect(shape(await readDumpFrom('spaces', lines().map((l) => l.replace(/^\t/, '        ')).join('\n')))).toEqual(await plain());
  });

  it('markdown-escaped (`goroutine 1 \\[running\\]:`, `runtime\\_pollWait`)', async () => {
    const text = lines().map((l) => l.replace(/([[\]_*])/g, '\\$1')).join('\n');
    expect(text).toContain('goroutine 1 \\[running\\]:');
    expect(shape(await readDumpFrom('markdown', text))).toEqual(await plain());
  });

  it('go test -json: Output split across events at arbitrary points is reassembled', async () => {
    const r = cuts(7);
    const events: string[] = [];
    for (const l of [...lines(), '']) {
      let out = `${l}\n`;
      while (out.length > 0) {
        const k = 1 + (r.next().value as number) % Math.max(1, out.length);
        events.push(JSON.stringify({ Time: '2023-08-12T12:54:46.1356Z', Action: 'output', Package: 'example', Test: 'TestX', Output: out.slice(0, k) }));
        out = out.slice(k);
      }
    }
    expect(events.length).toBeGreaterThan(lines().length);
    expect(shape(await readDumpFrom('json', events.join('\n')))).toEqual(await plain());
  });

  it('go test -json corpus stream (gotestsum-test-timeout-go-test-json)', async () => {
    const d = await readDumpFrom('gotestsum', corpus('debug2/gotestsum-test-timeout-go-test-json.jsonl'));
    expect(d.snapshots).toHaveLength(1);
    expect(d.snapshots[0].headline?.kind).toBe('test-timeout');
    expect(d.snapshots[0].groups.map((g) => g.frames[0].func)).toEqual(['testing.(*M).startAlarm.func1', 'testing.(*T).Run', 'time.Sleep']);
  });
});

describe.skipIf(!hasCorpus)('dumps among other text', () => {
  it('header glued to the end of a line: `…dumping all stacksgoroutine 1 [running]:` (profilernotes-glued-to-shell-output)', async () => {
    const d = await readDumpFrom('glued', corpus('debug2/profilernotes-glued-to-shell-output.txt'));
    expect(d.snapshots[0].lines?.first).toBe(3);
    expect(d.snapshots[0].groups[0].frames[0].func).toBe('main.main');
    expect(d.snapshots.map((s) => s.total)).toEqual([5, 6]);
    expect(d.snapshots[1].headline?.message).toBe('SIGQUIT: quit'); // after the terminal's `^\` echo
  });

  it('text around dumps is skipped and counted in one diagnostic (kitedb-race-with-app-log)', async () => {
    const d = await readDumpFrom('kitedb', corpus('race/kitedb-race-with-app-log.txt'));
    const skipped = d.warnings.filter((w) => w.code === 'skipped-text');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ severity: 'info', line: 1 });
    // 10 application log lines before the report, 10 lines of app log and `go test` trailer after it.
    expect(skipped[0].message).toMatch(/^skipped 20 lines/);
  });

  it('a timestamp line before each dump splits snapshots and dates them (gosrc-sigusr-dumper-timestamped-snapshots)', async () => {
    const d = await readDumpFrom('gosrc', corpus('debug2/gosrc-sigusr-dumper-timestamped-snapshots.txt'));
    expect(d.snapshots.map((s) => [s.total, s.capturedAt])).toEqual([[3, '2019-08-21T12:32:42'], [3, '2019-08-21T12:33:45']]);
  });

  it('debug=2 dumps appended to one file: the goroutine writing each starts its snapshot, even with a new id', async () => {
    // panicparse-panicweb starts with handler goroutine 135, rinha with 31232: neither id repeats.
    const a = corpus('debug2/panicparse-panicweb-nethttp-debug2.txt');
    const b = corpus('debug2/rinha-text-dump-named-pprof.txt');
    const d = await readDumpFrom('appended', `${a}\n${b}`);
    expect(d.snapshots.map((s) => [s.total, s.groups[0].goroutineIds[0]])).toEqual([[71, 135], [128, 31232]]);
  });

  it('input without any dump is refused with what was expected (the corpus README)', async () => {
    const err = await readDumpFrom('README.md', corpus('README.md')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('not-a-dump');
    expect((err as InputError).message).toContain('expected `goroutine N [state]:` headers, a `goroutine profile: total N` header or a pprof protobuf');
  });
});

describe('other inputs', () => {
  it('malformed: the legacy text of another profile is refused as wrong-profile, naming it', async () => {
    const err = await readDumpFrom('heap.txt', 'heap profile: 4: 266528 [123: 11284472] @ heap/1048576\n1: 262144 [4: 376832] @ 0x28d9f 0x2a201\n').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'wrong-profile', message: 'heap.txt: is a heap profile, not a goroutine profile' });
  });
});

describe('prefix learning', () => {
  it('generalizes digits, month names and space runs; the trailing separator may be missing', () => {
    const j = generalizePrefix('Dec 21 14:33:55 node1 kubelet[28009]: ');
    expect(j.exec('Jan  2 03:04:05 node12 kubelet[7]: goroutine 4 [chan receive]:')?.[0]).toBe('Jan  2 03:04:05 node12 kubelet[7]: ');
    expect(j.test('Dec 21 14:33:55 node1 systemd[1]: Started kubelet')).toBe(false);
    const k = generalizePrefix('2021-07-19T13:56:01.508364946Z ');
    expect(k.exec('2021-07-19T13:56:01.508364946Z')?.[0]).toBe('2021-07-19T13:56:01.508364946Z');
    expect(k.exec('2021-07-19T13:56:01.5Z \t/go/src/x.go:1')?.[0]).toBe('2021-07-19T13:56:01.5Z ');
  });

  it('finds anchors after a prefix, not inside log words', () => {
    expect(findAnchor('Nov 23 06:03:13 centos7-image kube-controller-manager: fatal error: concurrent map writes')).toEqual({ offset: 55, kind: 'headline' });
    expect(findAnchor('1m10s has passed, dumping all stacksgoroutine 1 [running]:')).toEqual({ offset: 36, kind: 'header' });
    expect(findAnchor('level=error msg="panic: boom"')).toBeUndefined();
    expect(findAnchor('===== goroutineleak (debug=1)')).toBeUndefined();
    expect(findAnchor('goroutineleak profile: total 3')).toEqual({ offset: 0, kind: 'profile' });
  });

  it('timestamps', () => {
    expect(leadingTimestamp('2021-07-19T13:56:01.508364946Z ')).toBe('2021-07-19T13:56:01.508Z');
    expect(leadingTimestamp('2023-08-12T12:54:46.135570065-04:00')).toBe('2023-08-12T16:54:46.135Z');
    expect(timestampHeader('2019-08-21 12:32:42 stdout:')).toBe('2019-08-21T12:32:42');
    expect(leadingTimestamp('2009/11/10 23:00:00.123456 ')).toBe('2009-11-10T23:00:00.123'); // Go's log package
    expect(timestampHeader('2021-07-19T13:55:45.602876459Z I0719 13:55:45.602129       1 observer_polling.go:111] Observed file "/var/run/secrets/serving-cert/tls.crt" has been created')).toBeUndefined();
  });

  it('markdown unescaping, links included (linkify-markdown-escaped-go1.6)', () => {
    expect(unescapeMarkdown('\\#\t0x2eea0\t\truntime.main+0x2b0')).toBe('#\t0x2eea0\t\truntime.main+0x2b0');
    expect(unescapeMarkdown('/Users/sasha/go/src/[github.com/sasha-s/go-linkify-stacktraces/cmd/linkify-example/lnk.go:33](https://github.com/sasha-s/go-linkify-stacktraces/blob/x/cmd/linkify-example/lnk.go#L33)'))
      .toBe('/Users/sasha/go/src/github.com/sasha-s/go-linkify-stacktraces/cmd/linkify-example/lnk.go:33');
  });
});

describe("Go's 64 MiB debug=2 cap", () => {
  const CAP = 64 * 1024 * 1024;
  /** A real sample's goroutines, renumbered and repeated past 64 MiB, cut at exactly 64 MiB. */
  function capped(): Buffer {
    const all = readFileSync(join(SAMPLES, 'healthy-server', 'goroutine.debug2.txt'), 'utf8').trimEnd().split('\n\n');
    // One dump has one writer goroutine (printed first); the others repeat.
    const blocks = all.filter((b) => !b.includes('runtime/pprof.writeGoroutine'));
    const parts: string[] = [`${all[0].replace(/^goroutine \d+ /, 'goroutine 1 ')}\n\n`];
    let size = 0;
    for (let id = 2; size <= CAP; id++) {
      const b = `${blocks[id % blocks.length].replace(/^goroutine \d+ /, `goroutine ${id} `)}\n\n`;
      parts.push(b);
      size += b.length;
    }
    const buf = Buffer.from(parts.join(''), 'utf8').subarray(0, CAP);
    expect(buf.byteLength).toBe(CAP);
    return buf;
  }

  it('a text dump of exactly 64 MiB ending mid-goroutine is flagged as truncated by net/http/pprof', async () => {
    const buf = capped();
    const d = await readDumpFrom('capped', buf);
    expect(d.snapshots).toHaveLength(1);
    const s = d.snapshots[0];
    expect(s.truncated).toBe(true);
    const w = s.warnings.find((x) => x.code === 'truncated');
    expect(w?.message).toMatch(/exactly 64 MiB.*net\/http\/pprof/);
    const headers = buf.toString('utf8').match(/^goroutine \d+ \[/gm)!.length;
    expect(s.total).toBeGreaterThanOrEqual(headers - 1); // a header cut mid-line cannot be read
    expect(s.total).toBeLessThanOrEqual(headers);
  }, 120_000);
});
