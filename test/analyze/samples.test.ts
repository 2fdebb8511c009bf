/**
 * Acceptance on the real samples (samples/<case>/, Go 1.19 programs that wrote debug=0/1/2 of
 * themselves once in a known state): "captures of one process in debug=0/1/2 produce matching
 * groups", wait kinds per format, blocking sites, and the links the cascade diagnosis needs.
 * Read through readDump, the way the CLI reads them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { keyFrames } from '../../src/analyze/signature.js';
import type { Analysis, AnalyzedGroup } from '../../src/analyze/types.js';
import type { WaitKind } from '../../src/model/dump.js';
import { readDump } from '../../src/read/index.js';
import { SAMPLES, sampleCases } from '../helpers/paths.js';
import { fileMatches } from '../samples/expected.js';

const FILES = { pprof: 'goroutine.debug0.pb.gz', debug1: 'goroutine.debug1.txt', debug2: 'goroutine.debug2.txt' } as const;
type Fmt = keyof typeof FILES;

interface ExpectedGroup {
  id: string; role?: string; function: string; file: string; line: number; state?: string; count: number;
  stack?: string[]; createdBy?: string;
}
interface Expected {
  case: string;
  groups?: ExpectedGroup[];
  leak?: { root: { group?: string }; consequences?: Array<{ group?: string }> };
}

/** Cases that have all three pprof captures. */
const cases = sampleCases().filter((c) => Object.values(FILES).every((f) => existsSync(join(SAMPLES, c, f))));

/** Groups holding the frame an expected group is identified by (function + file suffix + line). */
function holding(a: Analysis, e: ExpectedGroup): AnalyzedGroup[] {
  return a.groups.filter((g) =>
    g.frames.some((f) => f.func === e.function && f.line === e.line && fileMatches(f.file, e.file)));
}

/** What the printed state says, and what each format can see of it. */
function expectedKind(e: ExpectedGroup, fmt: Fmt): WaitKind | WaitKind[] {
  const stack = e.stack ?? [];
  const syncKind = (): WaitKind[] =>
    stack.includes('sync.(*WaitGroup).Wait') ? ['waitgroup']
      : stack.some((f) => f.startsWith('sync.(*RWMutex).')) ? ['rwmutex']
      : stack.includes('sync.(*Mutex).Lock') ? ['mutex']
        : ['mutex', 'rwmutex', 'waitgroup', 'cond', 'semaphore'];
  const hiddenInDebug1 = (k: WaitKind): WaitKind => (fmt === 'debug1' ? 'unknown' : k);
  switch (e.state) {
    case 'chan send': return hiddenInDebug1('chan-send');
    case 'chan receive': return hiddenInDebug1('chan-receive');
    case 'select': return hiddenInDebug1('select');
    // debug=0 sees the park inside runtime.chansend/chanrecv: the nil-channel branch is the park right
    // below the compiler entry point (chansend1/chanrecv1/2), the blocking one 100+ lines further.
    case 'chan send (nil chan)': return hiddenInDebug1('blocked-forever');
    case 'chan receive (nil chan)': return hiddenInDebug1('blocked-forever');
    case 'select (no cases)': return hiddenInDebug1('blocked-forever');
    case 'semacquire': return syncKind();
    case 'sync.Cond.Wait': return 'cond';
    case 'IO wait': return 'io';
    case 'syscall': return 'syscall';
    case 'sleep': return 'sleep';
    case 'running': return 'running';
    default: throw new Error(`no expectation for state ${e.state}`);
  }
}

/** Groups of the program, not of the dump itself (the goroutine writing it) or of the runtime. */
const programGroups = (a: Analysis) => a.groups.filter((g) => g.waitKind !== 'running' && g.waitKind !== 'runtime');

describe.each(cases)('sample %s', (name) => {
  const expected = JSON.parse(readFileSync(join(SAMPLES, name, 'expected.json'), 'utf8')) as Expected;
  const an = {} as Record<Fmt, Analysis>;

  beforeAll(async () => {
    for (const fmt of Object.keys(FILES) as Fmt[]) {
      const dump = await readDump(join(SAMPLES, name, FILES[fmt]));
      expect(dump.snapshots[0].format).toBe(fmt);
      an[fmt] = analyze(dump.snapshots[0]);
    }
  });

  it('debug=0/1/2 give the same group keys and counts (program goroutines)', () => {
    const keys = (fmt: Fmt) => new Map(programGroups(an[fmt]).map((g) => [g.key, g.count]));
    const k2 = keys('debug2');
    expect(k2.size).toBeGreaterThan(0);
    expect(keys('pprof')).toEqual(k2);
    expect(keys('debug1')).toEqual(k2);
    // Same ids too: reports cross-reference groups by id.
    const ids = (fmt: Fmt) => programGroups(an[fmt]).map((g) => g.id).sort();
    expect(ids('pprof')).toEqual(ids('debug2'));
    expect(ids('debug1')).toEqual(ids('debug2'));
  });

  const groups = (expected.groups ?? []).filter((e) => e.count > 0 && e.role !== 'dumper');

  it.each(groups.map((e) => [e.id, e] as const))('group %s: counts, stack and wait kind in every format', (_id, e) => {
    for (const fmt of Object.keys(FILES) as Fmt[]) {
      const hs = holding(an[fmt], e);
      expect(hs.reduce((s, g) => s + g.count, 0), `${fmt} count`).toBe(e.count);
      const want = expectedKind(e, fmt);
      for (const g of hs) {
        if (Array.isArray(want)) expect(want, `${fmt} kind of ${g.id}`).toContain(g.waitKind);
        else expect(g.waitKind, `${fmt} kind of ${g.id}`).toBe(want);
        if (e.stack) expect(keyFrames(g.frames).map((f) => f.func), `${fmt} stack`).toEqual(e.stack);
      }
    }
  });

  const root = expected.leak?.root.group ? groups.find((g) => g.id === expected.leak!.root.group) : undefined;
  it.runIf(root && name.startsWith('apiproxy-leak'))('the root group blocks at the user send, linked to its waiting parent', () => {
    const consequence = groups.find((g) => g.id === expected.leak!.consequences![0].group)!;
    for (const fmt of Object.keys(FILES) as Fmt[]) {
      const [r] = holding(an[fmt], root!);
      const [c] = holding(an[fmt], consequence);
      // The send in returnErr (inlined into the errgroup closure), not errgroup nor the runtime.
      expect(r.blockingSite, fmt).toMatchObject({ func: root!.function, line: root!.line, origin: 'user' });
      expect(c.blockingSite, fmt).toMatchObject({ func: consequence.function, line: consequence.line, origin: 'user' });
      // Go 1.19 prints no creator ids: the link is inferred, in every format.
      expect(an[fmt].links, fmt).toContainEqual(expect.objectContaining({ child: r.id, parent: c.id, count: r.count, via: 'shared-frames' }));
    }
  });
});

describe('level-2 traceback of the same process (SIGQUIT, runtime frames and fp/sp shown)', () => {
  const trace = join(SAMPLES, 'apiproxy-leak', 'goroutine-sigquit.txt');
  it.runIf(existsSync(trace))('groups whose stack is printed alike match the debug=2 keys', async () => {
    const expected = JSON.parse(readFileSync(join(SAMPLES, 'apiproxy-leak', 'expected.json'), 'utf8')) as Expected & {
      traces: Record<string, { groups: ExpectedGroup[] }>;
    };
    const a2 = analyze((await readDump(join(SAMPLES, 'apiproxy-leak', FILES.debug2))).snapshots[0]);
    const aq = analyze((await readDump(trace)).snapshots[0]);
    const pprofStacks = new Map((expected.groups ?? []).map((g) => [g.id, JSON.stringify(g.stack)]));
    let compared = 0;
    for (const e of expected.traces['goroutine-sigquit.txt'].groups) {
      // Level 2 shows the go-statement wrappers (`Run.func2`) that level 1 elides: Go < 1.21 names them
      // like closures, so those stacks legitimately differ (see analyze/signature.ts).
      if (pprofStacks.get(e.id) !== JSON.stringify(e.stack)) continue;
      const [q] = holding(aq, e);
      const [d] = holding(a2, e);
      expect(q.key, e.id).toBe(d.key);
      expect(q.count, e.id).toBe(d.count);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(4);
  });

  it('Go 1.21+ names its go-statement wrappers (`gowrapN`): they and `<autogenerated>` method wrappers are out of the keys', async () => {
    // upload-api's server under Go 1.23, dumped by debug=2 and then SIGQUIT: the goroutines parked
    // the whole time (accept loops, 6 handlers reading bodies, 6 connections reading headers).
    const dir = join(SAMPLES, 'servers', 'upload-api', 'dumps', 'go1.23');
    const a2 = analyze((await readDump(join(dir, 'stalled-1m.debug2.txt.gz'))).snapshots[0]);
    const aq = analyze((await readDump(join(dir, 'stalled-1m.sigquit.txt.gz'))).snapshots[0]);
    const wrapped = aq.groups.filter((g) => g.frames.some((f) => /\.gowrap\d+$/.test(f.func) || f.file === '<autogenerated>'));
    expect(wrapped.length).toBeGreaterThan(0);
    const parked = (a: Analysis) => a.groups.filter((g) => g.waitKind === 'io' && (g.wait?.max ?? 0) >= 1 || g.frames.some((f) => f.func === 'net/http.(*Server).Serve'));
    const keys = (a: Analysis) => new Map(parked(a).map((g) => [g.key, g.count]));
    expect(keys(aq)).toEqual(keys(a2));
    expect([...keys(a2).values()].reduce((n, c) => n + c, 0)).toBe(14);
    // The stdlib-only header readers are named by the function the wrapper starts, as in debug=2.
    const site = (a: Analysis) => a.groups.find((g) => g.frames.some((f) => f.func === 'net/textproto.readMIMEHeader'))?.blockingSite?.func;
    expect(site(aq)).toBe('net/http.(*conn).serve');
    expect(site(a2)).toBe('net/http.(*conn).serve');
  });
});
