/**
 * The readers on a LIVE capture (test/samples/samples.test.ts checks them on the bundled samples):
 * build a Go program (test/live/leakprog, standard library only), run it while it holds a known state,
 * capture its goroutine profile LIVE over HTTP from its own net/http/pprof endpoint on 127.0.0.1 in
 * debug=0/1/2, read each capture with `readDump(url)` and with `readDump(file)` of a capture saved from
 * the same endpoint, and check the readers against the counts the program knows to be true.
 *
 * Where `go` is not on PATH the live tests are skipped, except under CI (CI=true), where a missing
 * `go` fails (`.ci/run` installs golang-go).
 *
 * What the program holds (test/live/leakprog/main.go, lines found by their `@site` markers):
 * `senders` goroutines in an inlined unbuffered send (labels role=sender), `waiters` in
 * WaitGroup.Wait, `selectors` in a select, one mutex holder in a channel receive and `lockers` waiting
 * for its mutex, `sleepers` in time.Sleep, main in time.Sleep, a stdin watcher, and the HTTP server's
 * accept loop. The program checks all of that against its own debug=2 profile before it says READY.
 * Serving a capture adds connection goroutines (net/http `(*conn).serve`, `backgroundRead`), which
 * are accounted for separately: every goroutine read is either one of the known ones or one of them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/analyze/types.js';
import type { Dump, DumpFormat, Group, Snapshot } from '../../src/model/dump.js';
import { readDump } from '../../src/read/index.js';
// @ts-expect-error: a plain ES module shared with bundle.test.ts and bench/run.mjs
import { goEnv } from './bundleprog/collect.mjs';
import { REPO } from '../helpers/paths.js';
import { groupMismatches, membership, type ExpectedGroup } from '../samples/expected.js';

const PROG_DIR = join(REPO, 'test', 'live', 'leakprog');
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const HAVE_GO = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;

/** Counts passed to the program: not its defaults, so a stale capture cannot pass by accident. */
const COUNTS = { senders: 37, waiters: 23, selectors: 11, lockers: 6, sleepers: 4 };

/** `// @site NAME` markers of main.go → line numbers. */
function sites(): Record<string, number> {
  const out: Record<string, number> = {};
  readFileSync(join(PROG_DIR, 'main.go'), 'utf8').split('\n').forEach((l, i) => {
    const m = /\/\/ @site (\w+)\s*$/.exec(l);
    if (m) out[m[1]] = i + 1;
  });
  return out;
}

/** The goroutines the program holds, in the samples' expected.json group shape. */
function programGroups(): ExpectedGroup[] {
  const at = sites();
  const g = (id: string, fn: string, count: number, state: string | undefined, stack: string[], createdBy?: string, extra: Partial<ExpectedGroup> = {}): ExpectedGroup => ({
    id, function: `main.${fn}`, file: 'main.go', line: at[fn], count, ...(state ? { state } : {}), stack, ...(createdBy ? { createdBy } : {}), ...extra,
  });
  return [
    g('senders', 'deliver', COUNTS.senders, 'chan send', ['main.deliver', 'main.sendForever'], 'main.startSenders.func1', { labels: { role: 'sender' } }),
    g('waiters', 'waitAll', COUNTS.waiters, 'semacquire', ['sync.runtime_Semacquire', 'sync.(*WaitGroup).Wait', 'main.waitAll'], 'main.main'),
    g('selectors', 'selectLoop', COUNTS.selectors, 'select', ['main.selectLoop'], 'main.main'),
    g('holder', 'holdLock', 1, 'chan receive', ['main.holdLock'], 'main.main'),
    g('lockers', 'lockWait', COUNTS.lockers, 'semacquire',
      ['sync.runtime_SemacquireMutex', 'sync.(*Mutex).lockSlow', 'sync.(*Mutex).Lock', 'main.lockWait'], 'main.main'),
    g('sleepers', 'nap', COUNTS.sleepers, 'sleep', ['time.Sleep', 'main.nap'], 'main.main'),
    g('main', 'park', 1, 'sleep', ['time.Sleep', 'main.park', 'main.main']),
    // Reading a pipe: `IO wait` or `syscall` depending on how the parent opened it, so no state.
    g('stdinWatch', 'watchParent', 1, undefined, [], 'main.main', { stack: undefined }),
    // Line 0: any line of the function (it is the installed Go's own net/http).
    { id: 'acceptLoop', function: 'net/http.(*Server).Serve', file: 'net/http/server.go', line: 0, state: 'IO wait', count: 1, createdBy: 'main.main' },
  ];
}

/**
 * Functions of the goroutines net/http starts per served connection. `startBackgroundRead.func2` is
 * the `go cr.backgroundRead()` wrapper of a goroutine created just before the handler ran and not
 * yet started: debug=2 shows it as that wrapper + runtime.goexit, debug=1 as a record whose only PC
 * is runtime.goexit (hidden, so no `#` line), debug=0 as a sample with no location at all.
 */
const CONN_FUNCS = ['net/http.(*conn).serve', 'net/http.(*connReader).backgroundRead', 'net/http.(*connReader).startBackgroundRead.func2'];

/** A goroutine with no symbolized frame (debug=1: raw PCs only; debug=0: no location): not yet started. */
const unsymbolized = (g: Group) => g.frames.every((f) => f.file === '' && f.line === 0);

const LEVELS = [
  { debug: 0, format: 'pprof', saveAs: 'capture-debug0.txt', gzip: false },
  { debug: 1, format: 'debug1', saveAs: 'capture-debug1.pprof', gzip: false },
  { debug: 2, format: 'debug2', saveAs: 'capture-debug2.log', gzip: true },
] as const satisfies ReadonlyArray<{ debug: number; format: DumpFormat; saveAs: string; gzip: boolean }>;

describe('live capture prerequisites', () => {
  it.runIf(CI)('under CI, `go` is on PATH (.ci/run installs golang-go)', () => {
    expect(HAVE_GO, '`go version` failed: the live-capture tests need Go under CI').toBe(true);
  });
  it('the live program exists', () => {
    expect(existsSync(join(PROG_DIR, 'main.go'))).toBe(true);
    expect(existsSync(join(PROG_DIR, 'go.mod'))).toBe(true);
    const s = sites();
    for (const k of ['deliver', 'waitAll', 'selectLoop', 'holdLock', 'lockWait', 'nap', 'park', 'watchParent']) expect(s[k], k).toBeGreaterThan(0);
  });
});

describe.runIf(HAVE_GO)('live capture over HTTP from a running Go program', () => {
  let tmp = '';
  let child: ChildProcess | undefined;
  let base = '';
  let ready: { port: number; pid: number; goroutines: number };
  const expected = programGroups();
  const url = (debug: number) => `${base}/debug/pprof/goroutine?debug=${debug}`;
  const fromUrl = {} as Record<DumpFormat, Dump>;
  const fromFile = {} as Record<DumpFormat, Dump>;
  const files = {} as Record<DumpFormat, string>;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'leakscope-live-'));
    const env = goEnv(tmp);
    const bin = join(tmp, 'liveprog');
    const build = spawnSync('go', ['build', '-o', bin, '.'], { cwd: PROG_DIR, env, encoding: 'utf8', timeout: 150_000 });
    if (build.status !== 0) throw new Error(`go build failed (${build.status ?? build.signal}):\n${build.stderr}${build.error ?? ''}`);

    const args = Object.entries(COUNTS).flatMap(([k, v]) => [`-${k}`, String(v)]);
    child = spawn(bin, [...args, '-lifetime', '120s', '-ready-timeout', '15s'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    ready = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`liveprog not READY within 20 s; stderr:\n${stderr}`)), 20_000);
      child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^READY (\{.*\})$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(JSON.parse(m[1]) as typeof ready);
        }
      });
      child!.on('exit', (code, sig) => {
        clearTimeout(timer);
        reject(new Error(`liveprog exited (${code ?? sig}) before READY; stderr:\n${stderr}`));
      });
    });
    expect(ready.pid).toBe(child.pid);
    base = `http://127.0.0.1:${ready.port}`;

    // A capture may catch the accept loop between two accepts (it has just accepted the capture's own
    // connection and is not back in Accept yet, on a loaded machine): not the program's known state,
    // so such a capture is taken again, a few times at most.
    const acceptParked = (d: Dump): boolean =>
      d.snapshots[0]?.groups.some((g) => g.frames.some((f) => f.func === 'net/http.(*Server).Serve') && g.frames.some((f) => f.func === 'internal/poll.(*FD).Accept')) ?? false;
    const settled = async (capture: () => Promise<Dump>): Promise<Dump> => {
      let d = await capture();
      for (let again = 0; again < 4 && !acceptParked(d); again++) d = await capture();
      return d;
    };
    for (const l of LEVELS) {
      // 1. straight from the endpoint
      fromUrl[l.format] = await settled(() => readDump(url(l.debug), { connectTimeoutMs: 10_000, readTimeoutMs: 10_000 }));
      // 2. a capture saved from the same endpoint, under a name that does not say what it is
      files[l.format] = join(tmp, l.saveAs);
      fromFile[l.format] = await settled(async () => {
        const res = await fetch(url(l.debug), { signal: AbortSignal.timeout(10_000) });
        expect(res.status, `GET ${url(l.debug)}`).toBe(200);
        const body = Buffer.from(await res.arrayBuffer());
        writeFileSync(files[l.format], l.gzip ? gzipSync(body) : body);
        return readDump(files[l.format]);
      });
    }
  }, 200_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.stdin?.end();
      child.kill('SIGKILL');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('the program is on a loopback address and still running in its known state', () => {
    expect(new URL(base).hostname).toBe('127.0.0.1');
    expect(child!.exitCode).toBeNull();
    // main + stdin watcher + accept loop + the parked goroutines
    expect(ready.goroutines).toBe(expected.reduce((n, e) => n + e.count, 0));
  });

  const SOURCES = [
    ['from the URL', () => fromUrl, (f: DumpFormat) => url(LEVELS.find((l) => l.format === f)!.debug)],
    ['from a saved file', () => fromFile, (f: DumpFormat) => files[f]],
  ] as const;

  describe.each(SOURCES)('%s', (_label, dumps, sourceOf) => {
    describe.each(LEVELS.map((l) => [l.format, l] as const))('%s', (format) => {
      const snap = (): Snapshot => {
        const d = dumps()[format];
        expect(d.snapshots, 'one snapshot').toHaveLength(1);
        expect(d.races).toHaveLength(0);
        return d.snapshots[0];
      };

      it('one snapshot of the right format and source, read by content', () => {
        const s = snap();
        expect(dumps()[format].source).toBe(sourceOf(format));
        expect(s.source).toBe(sourceOf(format));
        expect(s.format).toBe(format);
        expect(s.profile).toBe('goroutine');
        expect(s.truncated).toBe(false);
        expect(s.groups.reduce((n, g) => n + g.count, 0)).toBe(s.total);
        if (format === 'debug1') expect(s.declaredTotal).toBe(s.total);
        if (format === 'debug2') expect(s.headline).toBeUndefined();
        expect(s.groups.every((g) => !g.partial)).toBe(true);
      });

      it('every known goroutine is read with its count (model membership)', () => {
        const s = snap();
        const m = membership(s, expected);
        expect(m.overlaps).toEqual([]);
        expect(m.counts).toEqual(Object.fromEntries(expected.map((e) => [e.id, e.count])));
      });

      it(`known groups: ${format === 'debug2' ? 'states, creators, ' : 'labels, '}runtime-free stacks`, () => {
        const s = snap();
        const m = membership(s, expected);
        expect(expected.flatMap((e) => groupMismatches(s, e, m.members[e.id]))).toEqual([]);
      });

      it('every other goroutine serves the capture: the total is the known count plus connections', () => {
        const s = snap();
        const m = membership(s, expected);
        const others = s.groups.filter((_, i) => !Object.values(m.members).some((ix) => ix.includes(i)));
        const notStarted = others.filter((g) => format !== 'debug2' && unsymbolized(g));
        // Only the serving connection's background reader can be caught before it first ran.
        expect(notStarted.reduce((n, g) => n + g.count, 0), 'goroutines with no symbolized frame').toBeLessThanOrEqual(1);
        const strays = others.filter((g) => !notStarted.includes(g) && !g.frames.some((f) => CONN_FUNCS.includes(f.func)));
        expect(strays.map((g) => g.frames.map((f) => f.func).join(' < ')), 'goroutines neither known nor net/http connections').toEqual([]);
        const conns = others.reduce((n, g) => n + g.count, 0);
        // At least the connection serving this very request; Node's keep-alive pool may hold more.
        expect(conns).toBeGreaterThanOrEqual(1);
        expect(conns).toBeLessThanOrEqual(12);
        expect(s.total).toBe(ready.goroutines + conns);
        if (format === 'debug2') {
          // Exactly one goroutine runs: the one writing this profile, inside the connection handler.
          const running = s.groups.filter((g) => g.state === 'running');
          expect(running.reduce((n, g) => n + g.count, 0)).toBe(1);
          expect(running[0].frames.some((f) => f.func === 'net/http.(*conn).serve')).toBe(true);
          expect(running[0].frames.some((f) => f.func === 'runtime/pprof.writeGoroutineStacks')).toBe(true);
        }
      });
    });

    it('analyze: the known groups have the same signatures and counts in debug=0/1/2', () => {
      const an = {} as Record<DumpFormat, Analysis>;
      for (const l of LEVELS) an[l.format] = analyze(dumps()[l.format].snapshots[0]);
      // Where inside the runtime, the poller or a syscall a goroutine is caught is timing: the accept
      // loop that has just accepted the connection of a capture is in accept4 instead of its poll wait.
      const signature = (key: string) => key.split('\n').filter((l) => !/^(runtime|internal\/poll|syscall)\./.test(l)).join('\n');
      const keysOf = (f: DumpFormat) => {
        const s = dumps()[f].snapshots[0];
        const m = membership(s, expected);
        const out: Record<string, Record<string, number>> = {};
        for (const e of expected) {
          out[e.id] = {};
          for (const i of m.members[e.id]) {
            const owners = an[f].groups.filter((g) => g.members.includes(i));
            expect(owners, `${f}: model group ${i} in exactly one analyzed group`).toHaveLength(1);
            const k = signature(owners[0].key);
            out[e.id][k] = (out[e.id][k] ?? 0) + s.groups[i].count;
          }
        }
        return out;
      };
      const k2 = keysOf('debug2');
      for (const e of expected) expect(Object.values(k2[e.id]).reduce((a, b) => a + b, 0), e.id).toBe(e.count);
      expect(keysOf('debug1')).toEqual(k2);
      expect(keysOf('pprof')).toEqual(k2);
    });
  });
});
