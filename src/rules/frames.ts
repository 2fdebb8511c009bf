/** Reading Go function names and stacks the way a person does: closures, enclosing functions, sites. */
import type { Analysis, AnalyzedGroup, SiteFrame } from '../analyze/types.js';
import type { Frame } from '../model/dump.js';

import { enclosing, isClosure, receiverType } from '../analyze/closures.js';
import { stackFunctions } from '../analyze/index.js';
import { peerWrites, type PeerWrites } from '../analyze/peers.js';

import { shortFunc } from '../model/func-name.js';
import { SiteSetCollector } from './site-sets.js';

export { enclosing, isClosure, receiverType, shortFunc };

/** Base name of a file path (either separator). */
export function baseName(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i >= 0 ? file.slice(i + 1) : file;
}

/** `proxy_store.go:49` */
export function siteText(f: (Pick<Frame, 'file' | 'line'> & { readonly func?: string }) | undefined): string {
  if (!f) return 'an unknown site';
  // A frame without a file (a pprof listing without line numbers) is named by its function.
  return f.line > 0 ? `${baseName(f.file)}:${f.line}` : baseName(f.file) || (f.func ? shortFunc(f.func) : 'an unknown site');
}

/** The frame a finding points at: the blocking site, else the first non-runtime frame, else the leaf. */
export function siteOf(g: AnalyzedGroup): SiteFrame | undefined {
  return g.blockingSite ?? innermostCall(g) ?? g.frames[0];
}

/** The innermost frame past the runtime's: the call the goroutine is parked in (`(*DB).conn`, `roundTrip`). */
export function innermostCall(g: AnalyzedGroup): SiteFrame | undefined {
  return g.frames.find((f) => f.origin !== 'runtime');
}

/**
 * Parked at one place: same wait kind and blocking site (function, file, line). Such groups are one
 * stuck set reached through several call paths; a group without a blocking site is at no such place.
 */
export function sameSite(g: AnalyzedGroup, h: AnalyzedGroup): boolean {
  const s = g.blockingSite;
  const t = h.blockingSite;
  if (!s || !t || g.waitKind !== h.waitKind) return false;
  // Site frames are shared between groups (analyze/origin.ts): mostly the same object.
  return s === t || (s.func === t.func && s.file === t.file && s.line === t.line);
}

/**
 * What the rules ask of every group of an analysis, gathered in one pass: a pass over tens of
 * thousands of groups (each its own objects, spread over the heap) costs milliseconds, and the rules
 * would otherwise make one per question.
 */
export interface GroupCensus {
  /** Every function on a stack, once. */
  readonly funcs: ReadonlySet<string>;
  /** Join waiters (`isJoinWaiter`), in group order. */
  readonly joinWaiters: readonly AnalyzedGroup[];
  /** Groups running, runnable or waiting on their own workers (WaitGroup, semaphore), in group order. */
  readonly busy: readonly AnalyzedGroup[];
  /** The first group marked crashed, and the first running. */
  readonly crashed?: AnalyzedGroup;
  readonly running?: AnalyzedGroup;
  /** Some group carries the runtime's `(leaked)` mark. */
  readonly leakMarks: boolean;
  /** Functions that may have started some group (`spawnersOf`). */
  readonly spawners: ReadonlySet<string>;
  /** Goroutines of the largest group. */
  readonly maxCount: number;
  /** The longest wait of any group (`wait.max`, minutes), 0 without one. */
  readonly maxWait: number;
  /** Groups by blocking site and wait kind (site-sets.ts). */
  readonly siteSets: SiteSetCollector;
}

/**
 * Functions that may have started `child`, most likely first: the functions enclosing its outermost
 * closures (up to 4), then its `created by` function. Written into `out` (reused: one per child).
 */
export function spawnersOf(child: AnalyzedGroup, out: string[]): string[] {
  // (Emptied by pops: `length = 0` drops the array's storage, and the next push allocates it again.)
  while (out.length > 0) out.pop();
  for (let i = child.frames.length - 1; i >= 0 && out.length < 4; i--) {
    const f = child.frames[i].func;
    if (f === 'runtime.goexit') continue;
    if (!isClosure(f)) break;
    out.push(enclosing(f));
  }
  if (child.creator) out.push(child.creator.func);
  return out;
}

const censusMemo = new WeakMap<Analysis, GroupCensus>();

export function census(a: Analysis): GroupCensus {
  let c = censusMemo.get(a);
  if (c) return c;
  const known = stackFunctions(a);
  const funcs = known === undefined ? new Set<string>() : undefined;
  const joinWaiters: AnalyzedGroup[] = [];
  const busy: AnalyzedGroup[] = [];
  let crashed: AnalyzedGroup | undefined;
  let running: AnalyzedGroup | undefined;
  let leakMarks = false;
  const spawners = new Set<string>();
  const scratch: string[] = [];
  let maxCount = 0;
  let maxWait = 0;
  const siteSets = new SiteSetCollector();
  let last = '';
  // Indexed loops: cold code (every run of the CLI is one) allocates an iterator result per for-of step.
  for (let i = 0; i < a.groups.length; i++) {
    const g = a.groups[i];
    if (funcs !== undefined) {
      const frames = g.frames;
      for (let j = 0; j < frames.length; j++) {
        // (Recursion and shared frames repeat a name: skip the set when it does.)
        const f = frames[j].func;
        if (f !== last) funcs.add((last = f));
      }
    }
    const k = g.waitKind;
    if (k === 'running' || k === 'runnable' || k === 'waitgroup' || k === 'semaphore') busy.push(g);
    if (k === 'running') running ??= g;
    if (isJoinWaiter(g)) joinWaiters.push(g);
    if (g.flags.crashed) crashed ??= g;
    if (g.flags.leaked === true || (g.leaked ?? 0) > 0) leakMarks = true;
    spawnersOf(g, scratch);
    for (let j = 0; j < scratch.length; j++) spawners.add(scratch[j]);
    if (g.count > maxCount) maxCount = g.count;
    if (g.wait !== undefined && g.wait.max > maxWait) maxWait = g.wait.max;
    siteSets.add(g);
  }
  c = { funcs: known ?? funcs!, joinWaiters, busy, crashed, running, leakMarks, spawners, maxCount, maxWait, siteSets };
  censusMemo.set(a, c);
  return c;
}

/** Every function on a stack of the analysis, once (asked by the links and by rule matching). */
export function stackFuncs(a: Analysis): ReadonlySet<string> {
  return census(a).funcs;
}

/**
 * The analysis's writes to peers (analyze/peers.ts), once: backpressure, the relay's consumers, a lock
 * pile-up's likely holders and a series' counter all ask, several per analysis.
 */
export function writesToPeers(a: Analysis): PeerWrites {
  let w = peerMemo.get(a);
  if (!w) peerMemo.set(a, (w = peerWrites(a, stackFuncs(a))));
  return w;
}

const peerMemo = new WeakMap<Analysis, PeerWrites>();

/** The outermost frame of the program's own code (the goroutine's entry point from the user's view). */
export function userEntry(g: AnalyzedGroup): SiteFrame | undefined {
  for (let i = g.frames.length - 1; i >= 0; i--) if (g.frames[i].origin === 'user') return g.frames[i];
  return undefined;
}

/** Frames that only start or wrap a goroutine's function: they do not make it a callback of a library. */
const ENTRY_WRAPPER = /^runtime\/pprof\.Do$|^golang\.org\/x\/sync\/errgroup\.|^sync\.\(\*WaitGroup\)\.Go|^k8s\.io\/apimachinery\/pkg\/util\/wait\.|^github\.com\/sourcegraph\/conc|^github\.com\/panjf2000\/ants|^testing\.tRunner$/;

/**
 * The blocking site is the goroutine's entry: its outermost user frame, or the frame right above an
 * outermost closure that only wraps it (`Session.Run.func1` → `Session.loop`), and nothing but
 * goroutine-starting helpers (`pprof.Do`, errgroup) below. Loop goroutines (workers, event loops,
 * tickers) look like this; a request waiting for one result deep in a call chain does not, nor does a
 * handler called back by a library (`net/http.(*conn).serve` → handler).
 */
export function siteAtEntry(g: AnalyzedGroup): boolean {
  const site = g.blockingSite;
  const entry = userEntry(g);
  if (!site || !entry || site.origin !== 'user' || !startedByGo(g, entry)) return false;
  if (site.index === entry.index) return true;
  return entry.index === site.index + 1 && isClosure(entry.func);
}

/**
 * Nothing but the runtime and goroutine-starting helpers (`pprof.Do`, errgroup) below `entry`, the
 * group's outermost user frame: a `go` statement started it, no library calls it back.
 */
export function startedByGo(g: AnalyzedGroup, entry: SiteFrame): boolean {
  for (let i = entry.index + 1; i < g.frames.length; i++) {
    const f = g.frames[i];
    if (f.origin !== 'runtime' && !ENTRY_WRAPPER.test(f.func)) return false;
  }
  return true;
}

/**
 * Looks stuck rather than idle: a send, a nil-channel op, a lock or join wait, or a receive/select
 * deep inside a call (not the goroutine's own loop, which is how live workers and event loops idle).
 */
export function looksStuck(g: AnalyzedGroup): boolean {
  if (g.flags.leaked) return true;
  switch (g.waitKind) {
    case 'chan-send':
    case 'blocked-forever':
    case 'mutex':
    case 'rwmutex':
    case 'waitgroup':
    case 'semaphore':
      return true;
    case 'chan-receive':
    case 'select':
    case 'cond':
      return !siteAtEntry(g);
    default:
      return false;
  }
}

/**
 * singleflight's `Do`: golang.org/x/sync's, groupcache's, the standard library's internal copy, and
 * the vendored and generic (`Group[K, V]`) copies of them.
 */
export const SINGLEFLIGHT_DO = /(^|\/)singleflight\.\(\*Group(\[[^\]]*\])?\)\.Do$/;

const coalescedFrames = new WeakMap<readonly SiteFrame[], number>();

/**
 * Where a caller of singleflight's `Do` waits for the call another caller of the same key is running
 * (`WaitGroup.Wait` right inside `Do`): the index of the `Do` frame, else -1. Scanned once per stack.
 */
export function coalescedAt(g: AnalyzedGroup): number {
  let at = coalescedFrames.get(g.frames);
  if (at === undefined) {
    at = -1;
    const f = g.frames;
    // Past the runtime's and sync's own frames (runtime_Semacquire, and a goroutine's park frames).
    for (let i = 0; i < f.length - 1 && i < 6; i++) {
      if (f[i].func !== 'sync.(*WaitGroup).Wait') continue;
      if (SINGLEFLIGHT_DO.test(f[i + 1].func)) at = i + 1;
      break;
    }
    coalescedFrames.set(g.frames, at);
  }
  return at;
}

/** A caller of singleflight's `Do` waiting for another caller's call of its key (`coalescedAt`). */
export function isCoalescedWaiter(g: AnalyzedGroup): boolean {
  return coalescedAt(g) >= 0;
}

const WAIT_FUNCS = /^sync\.\(\*WaitGroup\)\.Wait$|errgroup\.\(\*Group\)\.Wait$|conc(\/pool)?\.\(\*(WaitGroup|Pool|ErrorPool|ContextPool)\)\.Wait$/;

/** Groups are immutable and asked again and again (links, detectors, evidence): their frames are scanned once. */
const joinFrames = new WeakMap<readonly SiteFrame[], boolean>();

/** errgroup's `Go`, which sends on the group's semaphore when `SetLimit` set one. */
const SLOT_SEND = /(^|\/)errgroup\.\(\*Group\)\.Go$/;

/** Goroutines of `a` with `func` on their stack. */
export function goroutinesIn(a: Analysis, func: string): number {
  let n = 0;
  for (const g of a.groups) if (g.frames.some((f) => f.func === func)) n += g.count;
  return n;
}

/**
 * Reading an HTTP/2 stream's body (a server's request body, a client's response body): it waits on
 * the stream's pipe, a Cond the connection's frame reader signals when the peer sends DATA. A wait
 * for the network, whose reader lives: no signal nobody will send.
 */
export function readsHttp2Stream(g: AnalyzedGroup): boolean {
  return g.frames.some((f) => HTTP2_PIPE_READ.test(f.func));
}

const HTTP2_PIPE_READ = /^net\/http\.\(\*http2pipe\)\.Read$|^golang\.org\/x\/net\/http2\.\(\*pipe\)\.Read$/;

/**
 * Parked in errgroup's `Go` for a free slot of its `SetLimit` (a send on the group's semaphore, the
 * innermost call past the runtime): a slot frees when one of the group's goroutines returns, so it
 * waits for them, as `Wait` does, not for a receiver.
 */
export function isSlotWaiter(g: AnalyzedGroup): boolean {
  if (g.waitKind !== 'chan-send' && g.waitKind !== 'unknown') return false;
  const f = innermostCall(g);
  return f !== undefined && SLOT_SEND.test(f.func);
}

/**
 * A group parked until other goroutines finish: `WaitGroup.Wait`, `errgroup.Wait`, conc pools, and
 * errgroup's `Go` waiting for a slot (`isSlotWaiter`). Not a caller of singleflight's `Do` waiting for
 * another caller's call: it started nothing (`isCoalescedWaiter`).
 */
export function isJoinWaiter(g: AnalyzedGroup): boolean {
  if (g.waitKind === 'waitgroup') return coalescedAt(g) < 0;
  if (g.waitKind === 'chan-send') return isSlotWaiter(g);
  if (g.waitKind !== 'semaphore' && g.waitKind !== 'unknown') return false;
  if (coalescedAt(g) >= 0) return false;
  if (g.waitKind === 'unknown' && isSlotWaiter(g)) return true;
  // Keyed by the frames, which a group's site views (rules/match.ts) share with it.
  let j = joinFrames.get(g.frames);
  if (j === undefined) {
    j = g.frames.some((f) => WAIT_FUNCS.test(f.func));
    joinFrames.set(g.frames, j);
  }
  return j;
}

/** Kinds that mean "parked, waiting for something" (as opposed to running, I/O or syscalls). */
export function isParked(g: AnalyzedGroup): boolean {
  return ['chan-send', 'chan-receive', 'select', 'blocked-forever', 'mutex', 'rwmutex', 'waitgroup', 'cond', 'semaphore'].includes(g.waitKind);
}

/**
 * The state as the runtime would print it: the printed one, else (debug=0, which prints none) what the
 * frames show for the states that matter to the rules: `chan receive (nil chan)`,
 * `chan send (nil chan)`, `select (no cases)`. '' when neither tells.
 */
export function stateOf(g: AnalyzedGroup): string {
  if (g.states[0]) return g.states[0];
  if (g.waitKind === 'blocked-forever') {
    for (const f of g.frames) {
      if (f.func === 'runtime.chanrecv') return 'chan receive (nil chan)';
      if (f.func === 'runtime.chansend') return 'chan send (nil chan)';
      if (f.func === 'runtime.block') return 'select (no cases)';
    }
  }
  return '';
}

/** The wait state hidden by the format (debug=1 prints no state and no leading runtime frames). */
export function stateHidden(g: AnalyzedGroup): boolean {
  return g.waitKind === 'unknown';
}

/** `runtime.chanrecv2` (`for v := range c` / `v, ok := <-c`) visible in the stack. */
export function receivesInRange(g: AnalyzedGroup): boolean {
  return g.frames.some((f) => f.func === 'runtime.chanrecv2');
}

/** Functions of the stack as a set, for fast "is F on the path" tests. */
export function funcSet(g: AnalyzedGroup): Set<string> {
  return new Set(g.frames.map((f) => f.func));
}

/** Wait text: `12–30 minutes`, `30 minutes`, or '' when no goroutine printed a wait. */
export function waitText(w: AnalyzedGroup['wait']): string {
  if (!w) return '';
  return w.min === w.max ? `${w.max} minutes` : `${w.min}–${w.max} minutes`;
}

export function pct(share: number): string {
  if (share >= 0.995) return '100%';
  if (share >= 0.1) return `${Math.round(share * 100)}%`;
  if (share >= 0.01) return `${(share * 100).toFixed(1)}%`;
  // (A share that rounds to 0.00% is not none: 1 goroutine of 20,001.)
  if (share > 0 && share < 0.00005) return '<0.01%';
  return `${(share * 100).toFixed(2)}%`;
}

/** `113097` → `113,097` (fixed format, independent of the host locale). */
export function num(n: number): string {
  // (Below 1,000 there is nothing to separate: asked once per group of a large finding.)
  if (Number.isInteger(n) && n < 1000 && n > -1000) return String(n);
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `1 goroutine`, `1,000 goroutines` */
export function goroutines(count: number): string {
  return `${num(count)} goroutine${count === 1 ? '' : 's'}`;
}

/** `main`, `init` or a constructor (`New…`, `Start…`): code that runs once, at start-up. */
export const STARTUP = /(^main\.main$|(^|\.)init(\.\d+)?$|\.(New|new|Start|start|Run|run)[A-Z]?\w*$)/;
