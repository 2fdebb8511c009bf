/**
 * Every text file of the shared corpus through `readDump`: read without exception (the NEGATIVE
 * control is refused), as many goroutines as an independent scan counts headers, as many snapshots
 * as SOURCES.tsv states, crash headlines, prefixes stripped from frames, truncation flagged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dump, Frame } from '../../src/model/dump.js';
import { InputError, readDump } from '../../src/read/index.js';
import { CORPUS, corpusFiles } from '../helpers/paths.js';

const files = corpusFiles().filter((f) => !f.startsWith('binary/'));
const NEGATIVE = 'debug1/NEGATIVE-threadcreate-profile-legacy-godoc.txt';
const dumps = new Map<string, Promise<Dump>>();
const read = (f: string): Promise<Dump> => {
  let d = dumps.get(f);
  if (!d) dumps.set(f, (d = readDump(join(CORPUS, f))));
  return d;
};

/** The file's text lines, with `go test -json` events turned back into their output. */
function textLines(f: string): string[] {
  const raw = readFileSync(join(CORPUS, f), 'utf8');
  if (!f.endsWith('.jsonl')) return raw.split(/\r?\n/);
  let out = '';
  for (const l of raw.split('\n')) {
    if (!l.startsWith('{')) continue;
    const ev = JSON.parse(l) as { Output?: string };
    if (ev.Output) out += ev.Output;
  }
  return out.split('\n');
}

const HEADER = /goroutine (\d+)( gp=\S+ m=\S+( mp=\S+)?)? \[/;

/**
 * Goroutine headers, counted independently of the reader. One exception, which is the runtime's: a
 * goroutine first printed as `goroutine running on other thread; stack unavailable` and then again
 * with its stack by its own crashing thread is one goroutine (gonb-etcd-7070: goroutine 42).
 */
function countHeaders(lines: string[]): number {
  let n = 0;
  const unavailable = new Set<string>();
  lines.forEach((l, i) => {
    const m = HEADER.exec(l);
    if (!m) return;
    if (unavailable.delete(m[1])) return;
    n++;
    if (lines[i + 1]?.trim() === 'goroutine running on other thread; stack unavailable') unavailable.add(m[1]);
  });
  return n;
}

/** SOURCES.tsv `goroutine_count` column, where it states how many dumps a file holds. */
function statedSnapshots(): Map<string, number> {
  const words: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6 };
  const out = new Map<string, number>();
  for (const row of readFileSync(join(CORPUS, 'SOURCES.tsv'), 'utf8').split('\n').slice(1)) {
    const [file, , , , , count] = row.split('\t');
    if (!file || !count) continue;
    const m = /x (\d+) snapshots/.exec(count) ?? /(\d+) dumps/.exec(count) ?? /\((\w+) dumps\)/.exec(count);
    if (m) out.set(file, Number(m[1]) || words[m[1]]);
    else if (/leak total \d+; goroutine total \d+/.test(count)) out.set(file, 2);
  }
  return out;
}

/** Files with text dumps whose goroutine headers the reader must all turn into goroutines. */
const isTraceback = (f: string): boolean => f.startsWith('debug2/') || f.startsWith('crash/');

describe.skipIf(files.length === 0)('corpus text files', () => {
  it.each(files)('%s reads without exception', async (f) => {
    if (f === NEGATIVE) {
      const err = await read(f).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).code).toBe('wrong-profile');
      expect((err as InputError).message).toContain('is a threadcreate profile, not a goroutine profile');
      return;
    }
    const d = await read(f);
    expect(d.snapshots.length + d.races.length).toBeGreaterThan(0);
  });

  it.each(files.filter(isTraceback))('%s: goroutines read = goroutine headers in the text', async (f) => {
    const d = await read(f);
    const headers = countHeaders(textLines(f));
    const total = d.snapshots.reduce((a, s) => a + s.total, 0);
    // The Windows exception prints its one stack without any header.
    expect(total).toBe(f === 'crash/weibospider-windows-exception-cgo.txt' ? 1 : headers);
    expect(d.snapshots.every((s) => s.format === 'debug2')).toBe(true);
  });

  it.each(files.filter((f) => f.startsWith('debug1/') || f.startsWith('leakprofile/')).filter((f) => f !== NEGATIVE))(
    '%s: one debug=1 snapshot per goroutine profile header',
    async (f) => {
      const d = await read(f);
      const headers = textLines(f).filter((l) => /^(goroutine|goroutineleak) profile: total \d+$/.test(l)).length;
      expect(d.snapshots).toHaveLength(headers);
      expect(d.snapshots.every((s) => s.format === 'debug1' && s.declaredTotal !== undefined)).toBe(true);
    },
  );

  it('snapshot counts match SOURCES.tsv where it states them', async () => {
    const stated = statedSnapshots();
    expect(stated.get('crash/droute-logger-prefixed-panic-go1.8.txt')).toBe(6);
    expect(stated.get('debug2/profilernotes-glued-to-shell-output.txt')).toBe(2);
    expect(stated.size).toBeGreaterThanOrEqual(5);
    for (const [f, n] of stated) expect([f, (await read(f)).snapshots.length]).toEqual([f, n]);
    const leak = await read('leakprofile/ko-notes-goroutineleak-debug1-plus-goroutine-profile.txt');
    expect(leak.snapshots.map((s) => [s.profile, s.declaredTotal])).toEqual([['goroutineleak', 3], ['goroutine', 5]]);
  });

  it('crash headlines, and the goroutine that crashed', async () => {
    const expected: Record<string, [string, string, number | undefined]> = {
      'crash/gonb-etcd-7070-race-then-double-concurrent-map-writes.txt': ['fatal-error', 'fatal error: concurrent map writes', 5],
      'crash/insights-operator-oc-logs-timestamps-klog-fatal.txt': ['log-fatal', 'unable to set initial cluster status: context canceled', 1],
      'crash/issue-k8s-37421-syslog-prefixed-concurrent-map-writes-excerpt.txt': ['fatal-error', 'fatal error: concurrent map writes', 19396],
      'crash/journald-kubelet-klog-fatal-tabs-stripped.txt': ['log-fatal', 'failed to run Kubelet: no client provided, cannot use webhook authentication', 1],
      'crash/ko-notes-fatal-removed-godebug.txt': ['fatal-error', 'fatal error: removed GODEBUG "asynctimerchan" set to old value "1" in environment (https://go.dev/doc/godebug#go-127)', 1],
      'crash/learngo-concurrent-map-writes-human-truncated.txt': ['fatal-error', 'fatal error: concurrent map writes', 8],
      'crash/profilernotes-panic-inlined.txt': ['panic', 'panic: oh no', 1],
      'crash/unexpected-return-pc-sigsegv-darwin.txt': ['fatal-error', 'fatal error: unexpected signal during runtime execution', undefined],
      'crash/vcabbage-gotraceback-crash-go1.12-args-elided.txt': ['panic', 'panic: dang', 1],
      'crash/weibospider-windows-exception-cgo.txt': ['exception', 'Exception 0xc0000005 0x0 0x8 0x7ffda9322f15', undefined],
      'debug2/gotestsum-test-timeout-go-test-json.jsonl': ['test-timeout', 'panic: test timed out after 2s', 17],
    };
    for (const [f, [kind, message, crashedId]] of Object.entries(expected)) {
      const s = (await read(f)).snapshots[0];
      expect([f, s.headline?.kind, s.headline?.message]).toEqual([f, kind, message]);
      const crashed = s.groups.filter((g) => g.flags.crashed);
      if (f.includes('weibospider')) expect(crashed.map((g) => g.goroutineIds)).toEqual([[]]);
      else expect([f, crashed.flatMap((g) => g.goroutineIds)]).toEqual([f, crashedId === undefined ? [] : [crashedId]]);
    }
    expect((await read('crash/unexpected-return-pc-sigsegv-darwin.txt')).snapshots[0].headline?.lines[1]).toMatch(/^\[signal SIGSEGV: segmentation violation/);
    const droute = await read('crash/droute-logger-prefixed-panic-go1.8.txt');
    expect(droute.snapshots.map((s) => s.headline?.kind)).toEqual(Array(6).fill('panic'));
    expect(droute.snapshots[2].headline?.message).toMatch(/interface conversion: interface \{\} is nil, not bool$/);
    const glued = await read('debug2/profilernotes-glued-to-shell-output.txt');
    expect(glued.snapshots.map((s) => s.headline?.kind)).toEqual([undefined, 'sigquit']);
  });

  it('prefixes are stripped: every frame has a clean function, file and line', async () => {
    for (const f of files.filter(isTraceback)) {
      for (const s of (await read(f)).snapshots) {
        for (const g of s.groups) {
          for (const fr of [...g.frames, ...g.ancestors.flatMap((a) => a.frames)]) {
            expect([f, fr.func]).toEqual([f, expect.stringMatching(/^[^\s:]+$/)]);
            expect([f, fr.file]).toEqual([f, expect.stringMatching(/^(?:[A-Za-z]:)?[^\s:]+(?: [^\s:]+)*\.(?:go|s)$|^<autogenerated>$/)]);
            expect([f, fr.line > 0]).toEqual([f, true]);
          }
        }
      }
    }
    const frame = async (f: string, func: string): Promise<Frame | undefined> =>
      (await read(f)).snapshots.flatMap((s) => s.groups.flatMap((g) => g.frames)).find((fr) => fr.func === func);
    expect(await frame('crash/journald-kubelet-klog-fatal-tabs-stripped.txt', 'main.main')).toEqual({
      func: 'main.main', pkg: 'main', file: '_output/dockerized/go/src/k8s.io/kubernetes/cmd/kubelet/kubelet.go', line: 41, inlined: false,
    });
    expect(await frame('crash/insights-operator-oc-logs-timestamps-klog-fatal.txt', 'k8s.io/klog/v2.stacks')).toEqual({
      func: 'k8s.io/klog/v2.stacks', pkg: 'k8s.io/klog/v2', file: '/go/src/github.com/openshift/insights-operator/vendor/k8s.io/klog/v2/klog.go', line: 1026, inlined: false,
    });
    expect(await frame('crash/issue-k8s-37421-syslog-prefixed-concurrent-map-writes-excerpt.txt', 'runtime.mapassign1')).toMatchObject({
      file: '/usr/local/go/src/runtime/hashmap.go', line: 445,
    });
  });

  it('capture times from timestamp prefixes and headers', async () => {
    expect((await read('crash/insights-operator-oc-logs-timestamps-klog-fatal.txt')).snapshots[0].capturedAt).toBe('2021-07-19T13:56:01.508Z');
    expect((await read('debug2/gosrc-sigusr-dumper-timestamped-snapshots.txt')).snapshots.map((s) => s.capturedAt)).toEqual(['2019-08-21T12:32:42', '2019-08-21T12:33:45']);
  });

  it('truncated dumps are flagged, complete ones are not', async () => {
    // insights-operator was trimmed at a goroutine boundary: nothing in the text says so.
    const cut = [
      'crash/issue-k8s-37421-syslog-prefixed-concurrent-map-writes-excerpt.txt', // cut mid-token
      'crash/journald-kubelet-klog-fatal-tabs-stripped.txt', // ends at `created by` without its file line
      'crash/learngo-concurrent-map-writes-human-truncated.txt', // `... many more scary lines of text ...`
    ];
    for (const f of files.filter(isTraceback)) {
      const d = await read(f);
      expect([f, d.snapshots.some((s) => s.truncated)]).toEqual([f, cut.includes(f)]);
      if (cut.includes(f)) expect(d.snapshots.at(-1)!.warnings.some((w) => w.code === 'truncated' && w.severity === 'warning')).toBe(true);
    }
    const journald = (await read('crash/journald-kubelet-klog-fatal-tabs-stripped.txt')).snapshots[0];
    expect(journald.groups.at(-1)).toMatchObject({ partial: true, goroutineIds: [4] });
  });

  it('race reports are read wherever they are', async () => {
    for (const f of files.filter((x) => x.startsWith('race/'))) expect([f, (await read(f)).races.length]).toEqual([f, 1]);
    expect((await read('crash/gonb-etcd-7070-race-then-double-concurrent-map-writes.txt')).races).toHaveLength(2);
  });
});
