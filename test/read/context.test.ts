/**
 * The context of each snapshot (what produced the dump), read from real text: every file of the
 * corpus' tests/ folder (go test timeouts, runtime deadlocks, leak-checker reports), the samples
 * (test timeout, deadlock, SIGQUIT, crash, profiles) and corpus crash/debug2 files. The goroutines a
 * leak checker prints in its own shapes are read with their ids and states, and the culprit that
 * SOURCES.tsv's last column names is found where the file still shows it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dump, DumpContextKind, Snapshot } from '../../src/model/dump.js';
import { readInParts, readPart } from '../../src/read/chunked.js';
import { dumpContext, goDurationSeconds, newFacts } from '../../src/read/context.js';
import { readDump, readDumpFrom } from '../../src/read/index.js';
import { CORPUS, SAMPLES, corpusAvailable, corpusFiles } from '../helpers/paths.js';

const dumps = new Map<string, Promise<Dump>>();
const read = (path: string): Promise<Dump> => {
  let d = dumps.get(path);
  if (!d) dumps.set(path, (d = readDump(path)));
  return d;
};
const corpus = (f: string): Promise<Dump> => read(join(CORPUS, f));
const sample = (f: string): Promise<Dump> => read(join(SAMPLES, f));

interface Expected {
  kind: DumpContextKind;
  checker?: string;
  timeoutSeconds?: number;
  tests?: string[];
  /** Goroutine ids read, ascending. */
  ids: number[];
  /** The stuck call site SOURCES.tsv names (function + line of some frame); undefined: cut off in the file. */
  culprit?: [func: string, line: number];
  /** The file was cut off: the snapshot is truncated, or (a cut after the last record) warns. */
  cut: 'truncated' | 'warned' | false;
}

const TESTS: Record<string, Expected> = {
  'akash-933-test-timeout-masked-go-path-excerpt.txt': { kind: 'test-timeout', timeoutSeconds: 600, ids: [1, 82, 85], cut: 'truncated' },
  'autonity-442-goleak-chan-send-nested-indent-author-cut.txt': {
    kind: 'leak-report', checker: 'goleak', ids: [47248], culprit: ['github.com/clearmatics/autonity/miner.(*worker).newWorkLoop.func1', 346], cut: 'truncated',
  },
  'bintest-10-leaktest-per-test-leaks-html-wrapped-excerpt.txt': {
    kind: 'leak-report', checker: 'leaktest', ids: [56, 91, 101], culprit: ['github.com/buildkite/bintest.NewMock.func1', 69], cut: 'warned',
    tests: ['TestCallingMockWithStdErrExpected', 'TestCallingMockWithStdOutExpected', 'TestCallingMockWithNoExpectationsSet', 'TestCallingMockWithExpectationsSet'],
  },
  'boulder-6577-test-timeout-actions-log-links-excerpt.txt': { kind: 'test-timeout', timeoutSeconds: 600, ids: [1, 4, 13], cut: 'truncated' },
  'btlet-11-deadlock-elided-paths-shell-prompt.txt': { kind: 'deadlock', ids: [1], culprit: ['main.main', 21], cut: false },
  'gdt-37-test-timeout-running-tests-after-app-log-excerpt.txt': {
    kind: 'test-timeout', timeoutSeconds: 600, tests: ['TestKubernetesClusterHappyPath', 'TestKubernetesClusterHappyPath/happy-path'], ids: [1, 58, 114], cut: 'truncated',
  },
  'githound-73-deadlock-workerpool-chan-send-excerpt.txt': {
    kind: 'deadlock', ids: [1, 19], culprit: ['github.com/tillson/git-hound/internal/app.(*WorkerPool).Submit', 77], cut: 'truncated',
  },
  'golang-19476-sync-test-timeout-waitgroup-386-excerpt.txt': {
    kind: 'test-timeout', timeoutSeconds: 120, ids: [1, 3628, 3647], culprit: ['sync_test.TestWaitGroupMisuse3', 165], cut: 'truncated',
  },
  'goleak-blog-verifynone-go-test-v.txt': {
    kind: 'leak-report', checker: 'goleak', tests: ['TestLeakWithGoleak'], ids: [19], culprit: ['cool-go.gocn.vip/goleak.leak.func1', 24], cut: false,
  },
  // VerifyTestMain reports after `--- PASS: TestLeak`: the leak is the package's, no test is named.
  'goleak-blog-verifytestmain-after-pass.txt': { kind: 'leak-report', checker: 'goleak', ids: [19], culprit: ['cool-go.gocn.vip/goleak.leak.func1', 24], cut: false },
  // The likely culprit, goroutine 151 [semacquire], is cut inside its first call line.
  'pion-webrtc-612-unexpected-routines-custom-checker-excerpt.txt': {
    kind: 'leak-report', checker: 'pion', tests: ['TestDataChannelBufferedAmount/set_after_datachannel_becomes_open'], ids: [151, 153], cut: 'truncated',
  },
  'suture-66-fatal-deadlock-in-go-test.txt': {
    kind: 'deadlock', tests: ['TestFailingSupervisors'], ids: [1, 18, 19], culprit: ['github.com/thejerf/suture/v4.TestFailingSupervisors', 571], cut: false,
  },
  'tchannel-207-found-leaked-goroutine-in-state-go1.6-excerpt.txt': {
    kind: 'leak-report', checker: 'tchannel', tests: ['TestTimeout'], ids: [1306], culprit: ['io.ReadFull', 315], cut: 'truncated',
  },
  'tracee-4044-goleak-new-format-wait-minutes-excerpt.txt': {
    kind: 'leak-report', checker: 'goleak', tests: ['Test_EventsDependencies'], ids: [13, 127, 243],
    culprit: ['github.com/aquasecurity/tracee/tests/testutils.ExecCmdBgWithSudoAndCtx.func1.1', 141], cut: 'truncated',
  },
  'weavescope-363-test-timeout-chan-send-go1.4-excerpt.txt': {
    kind: 'test-timeout', timeoutSeconds: 480, ids: [1, 7, 10, 11, 12], culprit: ['github.com/weaveworks/scope/probe.TestResolver', 56], cut: 'truncated',
  },
};

const ids = (s: Snapshot): number[] => s.groups.flatMap((g) => g.goroutineIds).sort((a, b) => a - b);

describe.skipIf(!corpusAvailable())('every corpus tests/ file', () => {
  it('the table covers every file of tests/ and each has a SOURCES.tsv row', () => {
    const files = corpusFiles().filter((f) => f.startsWith('tests/')).map((f) => f.slice(6));
    expect(files.sort()).toEqual(Object.keys(TESTS).sort());
    const rows = readFileSync(join(CORPUS, 'SOURCES.tsv'), 'utf8').split('\n').map((r) => r.split('\t')[0]);
    for (const f of files) expect(rows).toContain(`tests/${f}`);
  });

  it.each(Object.entries(TESTS))('%s', async (f, e) => {
    const d = await corpus(`tests/${f}`);
    expect(d.snapshots).toHaveLength(1);
    const s = d.snapshots[0];
    const c = s.context!;
    expect(c.kind).toBe(e.kind);
    expect(c.checker).toBe(e.checker);
    expect(c.timeoutSeconds).toBe(e.timeoutSeconds);
    expect(c.tests).toEqual(e.tests);
    expect(c.summary).not.toMatch(/\n/);
    expect(ids(s)).toEqual(e.ids);
    expect(s.total).toBe(e.ids.length);
    if (e.culprit) {
      const [func, line] = e.culprit;
      expect(s.groups.some((g) => g.frames.some((fr) => fr.func === func && fr.line === line))).toBe(true);
    }
    expect(s.truncated).toBe(e.cut === 'truncated');
    if (e.cut === 'warned') expect(s.warnings.some((w) => w.code === 'input-cut' && w.severity === 'warning')).toBe(true);
  });

  it("goleak's newer records, which have no goroutine header, keep their state and wait minutes", async () => {
    const s = (await corpus('tests/tracee-4044-goleak-new-format-wait-minutes-excerpt.txt')).snapshots[0];
    const send = s.groups.find((g) => g.goroutineIds.includes(13))!;
    expect(send).toMatchObject({ count: 2, state: 'chan send', waitKind: 'chan-send', goroutineIds: [13, 127], wait: { min: 1, max: 1, stamped: 2 } });
    expect(send.creator).toMatchObject({ func: 'github.com/aquasecurity/tracee/tests/testutils.ExecCmdBgWithSudoAndCtx.func1', line: 136, goroutineIds: [12, 126] });
    // The third record is cut inside its own line: read, partial, without frames.
    const cut = s.groups.find((g) => g.goroutineIds.includes(243))!;
    expect(cut).toMatchObject({ state: 'chan send', partial: true, frames: [] });
  });

  it("tchannel's and leaktest's records under testing's t.Log indentation give clean frames", async () => {
    const t = (await corpus('tests/tchannel-207-found-leaked-goroutine-in-state-go1.6-excerpt.txt')).snapshots[0];
    expect(t.groups[0]).toMatchObject({ state: 'IO wait', waitKind: 'io' });
    expect(t.groups[0].frames.map((f) => f.func)).toContain('net.(*TCPConn).Read');
    const b = (await corpus('tests/bintest-10-leaktest-per-test-leaks-html-wrapped-excerpt.txt')).snapshots[0];
    expect(b.groups).toHaveLength(1);
    expect(b.groups[0]).toMatchObject({ count: 3, partial: false, creator: { func: 'github.com/buildkite/bintest.NewMock', file: '/home/pda/bk/bintest/mock.go', line: 68 } });
  });
});

describe('context kinds from real dumps', () => {
  it('go test timeout: plain, as go test -json, and with the Go 1.20+ running tests block', async () => {
    expect((await sample('gotest-timeout/gotest-timeout.txt')).snapshots[0].context).toEqual({ kind: 'test-timeout', summary: 'go test timed out after 2s', timeoutSeconds: 2 });
    // go test -json runs -v: `=== RUN TestDrainAfterBurst` without its `--- PASS` names the test (Go 1.19 prints no `running tests:`).
    expect((await sample('gotest-timeout/gotest-timeout.jsonl')).snapshots[0].context).toEqual({
      kind: 'test-timeout', summary: 'go test timed out after 2s — running: TestDrainAfterBurst', timeoutSeconds: 2, tests: ['TestDrainAfterBurst'],
    });
    if (!corpusAvailable()) return;
    const c = (await corpus('debug2/gotestsum-test-timeout-go-test-json.jsonl')).snapshots[0].context;
    expect(c).toEqual({ kind: 'test-timeout', summary: 'go test timed out after 2s — running: TestSleepsTooLong', timeoutSeconds: 2, tests: ['TestSleepsTooLong'] });
  });

  it('every dump of samples/deadlocks: its context by how it was taken (file name), Go 1.23 with its running tests', async () => {
    const root = join(SAMPLES, 'deadlocks');
    const kinds: Record<string, DumpContextKind> = { 'test-timeout.txt': 'test-timeout', 'sigquit.txt': 'signal', 'leak-report.txt': 'leak-report' };
    let n = 0;
    for (const c of readdirSync(root)) {
      for (const go of ['go1.19', 'go1.23']) {
        const dir = join(root, c, go);
        if (!existsSync(dir)) continue;
        for (const f of readdirSync(dir).filter((x) => x in kinds)) {
          const ctx = (await read(join(dir, f))).snapshots[0].context!;
          expect([c, go, f, ctx.kind]).toEqual([c, go, f, kinds[f]]);
          if (f === 'leak-report.txt') expect(ctx.checker).toBe('goleak');
          // Go 1.20+ names the running test under the panic (`\trunning tests:`); Go 1.19 does not.
          if (f === 'test-timeout.txt') expect([c, go, ctx.tests?.length ?? 0]).toEqual([c, go, go === 'go1.23' ? 1 : 0]);
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(50);
    const t = (await read(join(root, 'batch-upload-wg', 'go1.23', 'test-timeout.txt'))).snapshots[0].context;
    expect(t).toEqual({ kind: 'test-timeout', summary: 'go test timed out after 3s — running: TestUploadSkipsEmpty', timeoutSeconds: 3, tests: ['TestUploadSkipsEmpty'] });
  });

  it('deadlock, signal, crash', async () => {
    expect((await sample('lock-inversion/deadlock.txt')).snapshots[0].context).toEqual({ kind: 'deadlock', summary: 'runtime deadlock: all goroutines are asleep' });
    expect((await sample('apiproxy-leak/goroutine-sigquit.txt')).snapshots[0].context).toEqual({ kind: 'signal', summary: 'SIGQUIT dump of a running process (SIGQUIT: quit)' });
    expect((await sample('concurrent-map-crash/crash.txt')).snapshots[0].context).toEqual({ kind: 'crash', summary: 'crash: fatal error: concurrent map iteration and map write' });
  });

  it('profiles: debug=0, debug=1, plain debug=2', async () => {
    for (const f of ['goroutine.debug0.pb.gz', 'goroutine.debug1.txt', 'goroutine.debug2.txt']) {
      const c = (await sample(`apiproxy-leak/${f}`)).snapshots[0].context;
      expect([f, c?.kind]).toEqual([f, 'profile']);
    }
  });

  it.skipIf(!corpusAvailable())('behind log prefixes, glued to shell output, one context per snapshot', async () => {
    const droute = await corpus('crash/droute-logger-prefixed-panic-go1.8.txt');
    expect(droute.snapshots.map((s) => s.context?.kind)).toEqual(Array(6).fill('crash'));
    expect((await corpus('crash/insights-operator-oc-logs-timestamps-klog-fatal.txt')).snapshots[0].context?.kind).toBe('crash');
    const glued = await corpus('debug2/profilernotes-glued-to-shell-output.txt');
    expect(glued.snapshots.map((s) => s.context?.kind)).toEqual(['profile', 'signal']);
    const leak = await corpus('leakprofile/ko-notes-goroutineleak-debug1-plus-goroutine-profile.txt');
    expect(leak.snapshots.map((s) => s.context?.kind)).toEqual(['profile', 'profile']);
  });

  it('every snapshot of every sample and corpus file has a context', async () => {
    const files = [
      ...corpusFiles().filter((f) => !f.includes('NEGATIVE') && !f.startsWith('race/')).map((f) => join(CORPUS, f)),
      join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt'),
    ];
    for (const f of files) {
      for (const s of (await read(f)).snapshots) expect([f, typeof s.context?.summary]).toEqual([f, 'string']);
    }
  });

  it.skipIf(!corpusAvailable())('a snapshot continued by a later part of a large file keeps the first part\'s context', async () => {
    const path = join(CORPUS, 'tests', 'suture-66-fatal-deadlock-in-go-test.txt');
    const bytes = readFileSync(path);
    const cut = bytes.indexOf('\n\ngoroutine 18 [') + 2;
    expect(cut).toBeGreaterThan(2);
    const merged = await readInParts(path, bytes.length, [cut], {}, [(start, end, onBytes) => readPart(path, start, end, {}, onBytes)]);
    expect(merged).toBeDefined();
    expect(merged!.snapshots[0].context).toEqual((await readDump(path)).snapshots[0].context);
    expect(merged!.snapshots[0].context).toMatchObject({ kind: 'deadlock', tests: ['TestFailingSupervisors'] });
    expect(merged!.snapshots[0].total).toBe(3);
  });
});

describe('malformed input (hand-written)', () => {
  it('malformed: a goleak record cut mid-header is read as a partial goroutine, the dump truncated', async () => {
    const d = await readDumpFrom('cut-record', '    x_test.go:9: found unexpected goroutines:\n        [Goroutine 7 in state chan rec');
    const s = d.snapshots[0];
    expect(s.context).toMatchObject({ kind: 'leak-report', checker: 'goleak' });
    expect(s.groups).toMatchObject([{ goroutineIds: [7], state: '', partial: true, frames: [] }]);
    expect(s.truncated).toBe(true);
  });

  it('malformed: an older goleak record followed by its header is one goroutine, not two', async () => {
    const text = '[Goroutine 5 in state select, with main.f on top of the stack:\ngoroutine 5 [select]:\nmain.f()\n\t/x/main.go:3 +0x1\ncreated by main.main\n\t/x/main.go:9 +0x2\n]\n';
    const s = (await readDumpFrom('record', text)).snapshots[0];
    expect(s.total).toBe(1);
    expect(s.truncated).toBe(false);
  });

  it('Go durations', () => {
    expect(['10m0s', '2s', '1h0m0s', '1.5s', '500ms', '2m30s', 'soon', ''].map(goDurationSeconds)).toEqual([600, 2, 3600, 1.5, 0.5, 150, undefined, undefined]);
  });

  // No Go here runs testing/synctest (Go 1.24+) and no real synctest dump with stacks was found
  // (corpus tests/README.md): the headline is the runtime's exact text (internal/synctest, Go 1.25).
  it('synctest deadlocks by their headline, and a deadlock panic in a bubble', () => {
    const headline = (message: string) => ({ kind: 'panic' as const, message, lines: [message] });
    const exited = dumpContext(newFacts(), { format: 'debug2', inBubble: true, headline: headline('panic: deadlock: main bubble goroutine has exited but blocked goroutines remain [recovered, repanicked]') });
    expect(exited.kind).toBe('synctest-deadlock');
    expect(exited.summary).toBe('synctest bubble deadlock: main bubble goroutine has exited but blocked goroutines remain [recovered, repanicked]');
    expect(dumpContext(newFacts(), { format: 'debug2', inBubble: false, headline: headline('panic: deadlock: all goroutines in bubble are blocked') }).kind).toBe('synctest-deadlock');
    expect(dumpContext(newFacts(), { format: 'debug2', inBubble: false, headline: headline('panic: deadlock: my own message') }).kind).toBe('crash');
  });
});
