/**
 * Likely stacks from per-function totals (`-top`): pprof keeps no stacks there, only how many
 * goroutines have each function on their stack (cum) and how many park in it (flat). What is known:
 * where the runtime parks (`gopark`), the chains the runtime and the standard library put between a
 * park and the code that asked for it (`gopark` ← `chansend` ← `chansend1` ← caller;
 * `gopark` ← `semacquire1` ← `runtime_Semacquire` ← `WaitGroup.Wait` ← `errgroup.Wait` ← caller, …),
 * and how Go names functions (`P.func3` is a closure defined in `P`; errgroup's `Go.func1` runs the
 * closures handed to `Go`, usually closures of the function that calls `Wait`).
 *
 * So: one bucket per blocking entry point listed (its cum is how many goroutines block there), then
 * for each bucket the caller whose total fits best, and that caller's callers while the totals fit.
 * Joins (`WaitGroup.Wait`) go first: their caller is the function whose closures are listed (it
 * started them), which also tells which closures errgroup ran. Goroutines parked in `gopark` that no
 * listed entry point explains stay as a `gopark`-only group, and dropped functions are not invented.
 * Every count is approximate, and the snapshot says the groups are inferred.
 */
import type { Frame } from '../../model/dump.js';
import { FrameTable } from '../../model/builder.js';
import { packageOf } from '../debug1.js';
import type { ListingHeader } from './header.js';
import type { ListingBody } from './types.js';

export interface FunctionTotal {
  func: string;
  /** Goroutines parked in this function itself; undefined where the paste gave one count only. */
  flat?: number;
  cum: number;
  /** Printed `(inline)`: inlined into its caller. */
  inline: boolean;
  /** Read from a loose `count function` row; the functions of that row (for completing short names). */
  loose?: string[];
}

interface EntryPoint {
  /** The function user code calls. */
  readonly entry: string;
  /** What the runtime runs below it, innermost first, in any Go version (kept where listed; gopark always). */
  readonly below: readonly string[];
  /** The chain below it when the listing shows none of `below` (Go 1.19's names): it decides the wait. */
  readonly canonical?: readonly string[];
  /** Library waits built on it, with the same chain below (suffix match: vendored paths). */
  readonly wrappers?: readonly string[];
  /** A join: its caller waits for goroutines it started. */
  readonly join?: boolean;
  /** Entry points this one calls inside: their totals include this one's. */
  readonly contains?: readonly string[];
  /** Whose callers may be standard library code (I/O: net, bufio, net/http). */
  readonly std?: boolean;
}

const SEMA = ['runtime.goparkunlock', 'runtime.semacquire1'];
const ENTRY_POINTS: readonly EntryPoint[] = [
  { entry: 'runtime.chansend1', below: ['runtime.chansend'], canonical: ['runtime.chansend'] },
  { entry: 'runtime.chanrecv1', below: ['runtime.chanrecv'], canonical: ['runtime.chanrecv'] },
  { entry: 'runtime.chanrecv2', below: ['runtime.chanrecv'], canonical: ['runtime.chanrecv'] },
  { entry: 'runtime.selectgo', below: [], std: true },
  { entry: 'runtime.block', below: [] },
  { entry: 'time.Sleep', below: ['runtime.timeSleep'] },
  {
    entry: 'sync.(*WaitGroup).Wait',
    below: [...SEMA, 'sync.runtime_Semacquire', 'sync.runtime_SemacquireWaitGroup', 'internal/sync.runtime_SemacquireWaitGroup'],
    canonical: ['runtime.semacquire1', 'sync.runtime_Semacquire'],
    wrappers: ['errgroup.(*Group).Wait'],
    join: true,
  },
  {
    entry: 'sync.(*RWMutex).Lock',
    // The writer first takes the RWMutex's own Mutex (Go <= 1.23 print its frames), then waits for readers.
    below: [...SEMA, 'sync.runtime_SemacquireMutex', 'sync.(*Mutex).lockSlow', 'sync.(*Mutex).Lock', 'sync.runtime_SemacquireRWMutex', 'internal/sync.runtime_SemacquireMutex', 'internal/sync.(*Mutex).lockSlow', 'internal/sync.(*Mutex).Lock', 'internal/sync.runtime_SemacquireRWMutex'],
    canonical: ['runtime.semacquire1', 'sync.runtime_SemacquireRWMutex'],
    contains: ['sync.(*Mutex).Lock'],
  },
  {
    entry: 'sync.(*RWMutex).RLock',
    // Go <= 1.19 parks readers in runtime_SemacquireMutex too.
    below: [...SEMA, 'sync.runtime_SemacquireMutex', 'sync.runtime_SemacquireRWMutexR', 'internal/sync.runtime_SemacquireRWMutexR'],
    canonical: ['runtime.semacquire1', 'sync.runtime_SemacquireRWMutexR'],
  },
  {
    entry: 'sync.(*Mutex).Lock',
    below: [...SEMA, 'sync.runtime_SemacquireMutex', 'internal/sync.runtime_SemacquireMutex', 'sync.(*Mutex).lockSlow', 'internal/sync.(*Mutex).lockSlow', 'internal/sync.(*Mutex).Lock'],
    canonical: ['runtime.semacquire1', 'sync.runtime_SemacquireMutex', 'sync.(*Mutex).lockSlow'],
  },
  {
    entry: 'sync.(*Cond).Wait',
    below: ['runtime.goparkunlock', 'runtime.notifyListWait', 'sync.runtime_notifyListWait'],
    canonical: ['runtime.notifyListWait', 'sync.runtime_notifyListWait'],
  },
  { entry: 'internal/poll.runtime_pollWait', below: ['runtime.netpollblock'], canonical: ['runtime.netpollblock'], std: true },
];

/** Functions that run the closures handed to them as new goroutines (suffix match). */
const STARTERS = ['errgroup.(*Group).Go.func1', 'errgroup.(*Group).TryGo.func1', 'sync.(*WaitGroup).Go.func1'];

/**
 * Standard library goroutines whose chains are known (net/http's connection loops and client calls,
 * its server reading a request): `?` marks a function that may be dropped or inlined away. A shape
 * fits a bucket when its required functions are listed; `user` says user code calls its last one.
 */
interface StdShape {
  readonly entry: string;
  readonly frames: readonly string[];
  readonly user?: boolean;
}
const POLL_READ = ['internal/poll.(*pollDesc).wait?', 'internal/poll.(*pollDesc).waitRead?', 'internal/poll.(*FD).Read', 'net.(*netFD).Read?', 'net.(*conn).Read?'];
const STD_SHAPES: readonly StdShape[] = [
  { entry: 'runtime.selectgo', frames: ['net/http.(*persistConn).writeLoop'] },
  {
    entry: 'runtime.selectgo',
    frames: ['net/http.(*persistConn).roundTrip', 'net/http.(*Transport).roundTrip?', 'net/http.(*Transport).RoundTrip?', 'net/http.send?', 'net/http.(*Client).send?', 'net/http.(*Client).do?', 'net/http.(*Client).Do?', 'net/http.(*Client).Get?', 'net/http.(*Client).Post?'],
    user: true,
  },
  { entry: 'internal/poll.runtime_pollWait', frames: [...POLL_READ, 'net/http.(*persistConn).Read', 'bufio.(*Reader).fill?', 'bufio.(*Reader).Peek?', 'net/http.(*persistConn).readLoop'] },
  {
    entry: 'internal/poll.runtime_pollWait',
    frames: [...POLL_READ, 'net/http.(*connReader).Read', 'bufio.(*Reader).fill?', 'bufio.(*Reader).ReadSlice?', 'bufio.(*Reader).ReadLine?', 'net/textproto.(*Reader).readLineSlice?', 'net/textproto.(*Reader).ReadLine?', 'net/http.readRequest?', 'net/http.(*conn).readRequest', 'net/http.(*conn).serve'],
  },
  { entry: 'internal/poll.runtime_pollWait', frames: [...POLL_READ, 'net/http.(*connReader).backgroundRead'] },
  {
    entry: 'internal/poll.runtime_pollWait',
    frames: ['internal/poll.(*pollDesc).wait?', 'internal/poll.(*pollDesc).waitRead?', 'internal/poll.(*FD).Accept', 'net.(*netFD).accept?', 'net.(*TCPListener).accept?', 'net.(*TCPListener).Accept?', 'net/http.(*Server).Serve?'],
    user: true,
  },
];
/** net/http's server calling a handler: the callers of a handler's frame, innermost first. */
const DISPATCH = ['net/http.HandlerFunc.ServeHTTP', 'net/http.(*ServeMux).ServeHTTP', 'net/http.serverHandler.ServeHTTP', 'net/http.(*conn).serve'];

const PARK = 'runtime.gopark';

interface Bucket {
  chain: string[];
  count: number;
  entry: EntryPoint;
}

export function inferChains(totals: readonly FunctionTotal[], h: ListingHeader, body: ListingBody): void {
  const byName = new Map(totals.map((t) => [t.func, t]));
  const cap = new Map(totals.map((t) => [t.func, t.cum]));
  const known = new Set<string>([PARK]);
  for (const e of ENTRY_POINTS) for (const f of [e.entry, ...e.below]) known.add(f);
  const listed = (f: string): boolean => (byName.get(f)?.cum ?? 0) > 0;
  const find = (suffix: string): string | undefined => totals.find((t) => t.func === suffix || t.func.endsWith(`/${suffix}`) || t.func.endsWith(`.${suffix}`))?.func;
  const wrappersListed = new Set<string>();

  const buckets: Bucket[] = [];
  for (const e of ENTRY_POINTS) {
    // A library wait listed without the entry point under it (a paste that kept errgroup.Wait only) stands for it.
    const wrapped = (e.wrappers ?? []).map(find).filter((w): w is string => w !== undefined);
    if (!listed(e.entry) && wrapped.length === 0) continue;
    let count = listed(e.entry) ? byName.get(e.entry)!.cum : Math.max(...wrapped.map((w) => byName.get(w)!.cum));
    // An entry point inside another one (RWMutex.Lock takes a Mutex first): the outer one's count is not this one's.
    for (const outer of ENTRY_POINTS) if (outer.contains?.includes(e.entry) && listed(outer.entry)) count -= byName.get(outer.entry)!.cum;
    const shown = e.below.filter(listed);
    const base = [PARK, ...(shown.length > 0 ? shown : e.canonical ?? []), e.entry];
    for (const w of e.wrappers ?? []) {
      const name = find(w);
      if (!name) continue;
      wrappersListed.add(name);
      const n = Math.min(byName.get(name)!.cum, count);
      if (n > 0) buckets.push({ chain: [...base, name], count: n, entry: e });
      count -= n;
    }
    if (count > 0) buckets.push({ chain: base, count, entry: e });
  }
  buckets.sort((a, b) => b.count - a.count);

  const starter = (f: string): boolean => STARTERS.some((s) => f === s || f.endsWith(`/${s}`) || f.endsWith(`.${s}`));
  const plumbing = (f: string): boolean =>
    known.has(f) || wrappersListed.has(f) || f.startsWith('runtime.') || f.startsWith('internal/') || f.startsWith('sync.') || f.startsWith('runtime/internal');
  const waiters = new Set<string>();
  const table = new FrameTable();
  const frame = (f: string): Frame => table.frame(f, packageOf(f), '', 0, byName.get(f)?.inline ?? false);
  let explained = 0;

  // Best pairs first, over all buckets: a join whose waiter owns listed closures, or an inlined
  // helper right above a send, is placed before looser fits take its functions.
  const open = buckets.map((b) => ({ b, remaining: b.count }));
  /** Chains placed so far (innermost first), to be extended upwards once every bucket has its caller. */
  const placed: { count: number; below: string[]; extend?: boolean }[] = [];
  const callerScore = (b: Bucket) => (t: FunctionTotal): number | undefined => {
    // Standard library callers come from the known shapes only.
    if (plumbing(t.func) || starter(t.func) || isStd(t.func)) return undefined;
    if (b.entry.join) return (hasClosures(t.func, totals) ? 0.5 : 0) - (isClosure(t.func) ? 0.2 : 0);
    // The closures of a function waiting in a join are the goroutines it waits for: they do the blocking.
    if (isClosure(t.func) && waiters.has(parentOf(t.func))) return 0.1 + (t.inline ? 0.3 : 0);
    // A lock is usually taken in a method of the struct that holds it.
    const lock = b.entry.entry.startsWith('sync.(*') && /\.\(\*\w+\)\.\w+$/.test(t.func) ? 0.05 : 0;
    return (t.inline ? 0.3 : 0) + (isClosure(t.func) ? 0 : 0.05) + lock;
  };
  const shapeFit = (o: { b: Bucket; remaining: number }): { frames: string[]; min: number; score: number; user: boolean } | undefined => {
    let best: { frames: string[]; min: number; score: number; user: boolean } | undefined;
    for (const sh of STD_SHAPES) {
      if (sh.entry !== o.b.entry.entry) continue;
      const required = sh.frames.filter((f) => !f.endsWith('?'));
      if (!required.every((f) => (cap.get(f) ?? 0) > 0)) continue;
      const min = Math.min(...required.map((f) => cap.get(f)!));
      const frames = sh.frames.map((f) => f.replace(/\?$/, '')).filter((f) => (cap.get(f) ?? 0) > 0);
      // Known shapes beat loose fits: they are how those goroutines look in every dump.
      const score = Math.min(min, o.remaining) / Math.max(min, o.remaining) + 0.6;
      if (!best || score > best.score) best = { frames, min, score, user: !!sh.user };
    }
    return best;
  };
  while (open.length > 0) {
    let pick: { i: number; func?: string; score: number; shape?: ReturnType<typeof shapeFit> } = { i: 0, score: -Infinity };
    open.forEach((o, i) => {
      const shape = shapeFit(o);
      if (shape && shape.score > pick.score) {
        pick = { i, score: shape.score, shape };
        return;
      }
      const best = bestCaller(totals, cap, o.remaining, callerScore(o.b));
      const score = best ? best.score : -1;
      if (score > pick.score || (score === pick.score && o.b.entry.join && !open[pick.i].b.entry.join)) pick = { i, func: best?.func, score };
    });
    const o = open[pick.i];
    if (pick.shape) {
      const sh = pick.shape;
      const take = Math.min(o.remaining, sh.min);
      for (const f of sh.frames) cap.set(f, Math.max(0, cap.get(f)! - take));
      placed.push({ count: take, below: [...o.b.chain, ...sh.frames], extend: sh.user });
      explained += take;
      o.remaining -= take;
      if (o.remaining <= 0) open.splice(pick.i, 1);
      continue;
    }
    if (!pick.func) {
      placed.push({ count: o.remaining, below: o.b.chain, extend: false });
      explained += o.remaining;
      open.splice(pick.i, 1);
      continue;
    }
    const first = pick.func;
    const take = cap.get(first)! >= 0.9 * o.remaining ? o.remaining : cap.get(first)!;
    if (o.b.entry.join) waiters.add(first);
    // An inlined helper is part of its caller's frame: that caller is placed with it, now.
    // So is a join's waiter's caller: the waiter's place in the program is known from its closures.
    const with_ = byName.get(first)?.inline || o.b.entry.join ? callersOf(first, take, totals, cap, waiters, plumbing, starter, new Set(o.b.chain)) : [];
    for (const f of [first, ...with_]) cap.set(f, Math.max(0, cap.get(f)! - take));
    placed.push({ count: take, below: [...o.b.chain, first, ...with_], extend: with_.length === 0 });
    explained += take;
    o.remaining -= take;
    if (o.remaining <= 0) open.splice(pick.i, 1);
  }

  // Then the callers above each placed caller, largest groups first, from what is left of the totals.
  placed.sort((a, b) => b.count - a.count);
  for (const p of placed) {
    const above = p.extend ? callersOf(p.below[p.below.length - 1], p.count, totals, cap, waiters, plumbing, starter, new Set(p.below)) : [];
    for (const f of above) cap.set(f, Math.max(0, cap.get(f)! - p.count));
    body.records.push({ count: p.count, frames: [...p.below, ...above].map(frame) });
  }

  // Parked goroutines no listed entry point explains (their chains were dropped or cut): gopark only.
  const park = byName.get(PARK);
  const parked = park ? (park.flat ?? park.cum) : 0;
  if (parked > explained) {
    body.records.push({ count: parked - explained, frames: [frame(PARK)], waitKind: 'unknown' });
    // Most often a -top sorted by flat and cut by -nodecount: the blocking calls all have flat 0.
    body.warnings.push({
      severity: parked - explained > parked / 2 ? 'warning' : 'info',
      code: 'listing-unplaced',
      message: `${parked - explained} of ${parked} goroutines parked in runtime.gopark are under no blocking call the listing shows: what they wait for is unknown (\`go tool pprof -top -cum\` lists the calls, \`-traces\` the stacks)`,
    });
  }
  // Goroutines running in a leaf other than gopark (the profiler's own frame): that frame alone.
  for (const t of totals) {
    if (t.func !== PARK && (t.flat ?? 0) > 0) body.records.push({ count: t.flat!, frames: [frame(t.func)] });
  }
  if (buckets.length === 0 && !park && totals.length > 0) {
    body.warnings.push({ severity: 'warning', code: 'no-park', message: 'the listing shows no runtime.gopark and no blocking call the runtime makes: no goroutine can be placed' });
  }
  void h;
}

/** The candidate whose remaining total fits `count` best (with `bonus`; undefined excludes it). */
function bestCaller(
  totals: readonly FunctionTotal[],
  cap: Map<string, number>,
  count: number,
  bonus: (t: FunctionTotal) => number | undefined,
  minCloseness = 0.1,
): { func: string; score: number } | undefined {
  let best: string | undefined;
  let bestScore = -Infinity;
  for (const t of totals) {
    const c = cap.get(t.func)!;
    if (!(c > 0)) continue;
    const b = bonus(t);
    if (b === undefined) continue;
    const closeness = Math.min(c, count) / Math.max(c, count);
    if (closeness < minCloseness) continue;
    const score = closeness + b;
    if (score > bestScore) {
      bestScore = score;
      best = t.func;
    }
  }
  return best === undefined ? undefined : { func: best, score: bestScore };
}

/**
 * The callers above `f` while a listed total fits: a caller has at least the `count` goroutines on its
 * stack. A closure is where a goroutine starts, unless errgroup (or `WaitGroup.Go`) ran it for the
 * function that waits for it; errgroup's starter is always a root.
 */
function callersOf(
  f: string,
  count: number,
  totals: readonly FunctionTotal[],
  cap: Map<string, number>,
  waiters: Set<string>,
  plumbing: (f: string) => boolean,
  starter: (f: string) => boolean,
  exclude: ReadonlySet<string> = new Set(),
): string[] {
  const inlined = new Set(totals.filter((t) => t.inline).map((t) => t.func));
  const byName = new Map(totals.map((t) => [t.func, t]));
  const chain: string[] = [];
  let cur = f;
  for (let depth = 0; depth < 6; depth++) {
    if (starter(cur)) break;
    const closure = isClosure(cur);
    const fromWaiter = closure && waiters.has(parentOf(cur));
    if (closure && !fromWaiter) break;
    // An inlined helper sits in the frame of its caller, which may be the closure a starter runs.
    const inline = inlined.has(cur);
    const inChain = new Set([f, ...chain, ...exclude]);
    if (!isStd(cur)) {
      // A handler: net/http's server calls it; that chain is known and ends the goroutine.
      const dispatch = DISPATCH.filter((d) => !inChain.has(d) && (cap.get(d) ?? 0) >= 0.98 * count);
      if (dispatch.includes('net/http.serverHandler.ServeHTTP') && dispatch.includes('net/http.(*conn).serve')) {
        chain.push(...dispatch);
        break;
      }
    }
    const next = bestCaller(totals, cap, count, (t) => {
      if (inChain.has(t.func) || plumbing(t.func) || t.func.startsWith(`${cur}.`)) return undefined;
      if (cap.get(t.func)! < 0.98 * count) return undefined;
      // The program's code is called by the program's code (net/http's dispatch is handled above),
      // and the standard library's by the program's (its own chains come from the known shapes).
      if (isStd(t.func)) return undefined;
      // errgroup runs the waiter's closure whose total matches its own (the waiter's other closures
      // are plain `go` statements).
      if (fromWaiter) return starter(t.func) && Math.abs(t.cum - (byName.get(cur)?.cum ?? 0)) <= 0.05 * t.cum ? 0.5 : undefined;
      // Only closures and method values are handed to a starter.
      if (starter(t.func)) return inline ? -0.05 : undefined;
      return (isClosure(t.func) ? 0.1 : 0) + (samePrefix(t.func, cur) ? 0.1 : 0);
    }, 0.5)?.func;
    if (!next) break;
    chain.push(next);
    cur = next;
  }
  return chain;
}

/** `P.func3`, `P.func1.2`, `P.gowrap1`, `T.Method-fm`: a function value, not a named function. */
export function isClosure(f: string): boolean {
  return /\.(?:func|gowrap)\d+(?:\.\d+)*$/.test(f) || f.endsWith('-fm');
}

function parentOf(f: string): string {
  return f.replace(/(?:\.(?:func|gowrap)\d+(?:\.\d+)*)+$/, '');
}

function hasClosures(f: string, totals: readonly FunctionTotal[]): boolean {
  return totals.some((t) => t.func.startsWith(`${f}.func`) && isClosure(t.func) && parentOf(t.func) === f);
}

/** Package and receiver of a function: `example.com/x/proxy.(*Store)` of `example.com/x/proxy.(*Store).watch.func1`. */
function samePrefix(a: string, b: string): boolean {
  const prefix = (f: string): string => {
    const base = parentOf(f);
    const i = Math.max(base.lastIndexOf('.'), base.lastIndexOf(')'));
    return base.slice(0, i);
  };
  return prefix(a) !== '' && prefix(a) === prefix(b);
}

/** Top-level packages of the standard library (a pasted name may drop a module path, so not "no dot"). */
const STD = new Set(
  ('archive bufio bytes cmp compress container context crypto database debug embed encoding errors expvar flag fmt go hash html ' +
    'image index internal io iter log maps math mime net os path plugin reflect regexp runtime slices sort strconv strings ' +
    'structs sync syscall testing text time unicode unique unsafe weak').split(' '),
);

/** A standard library function. */
function isStd(f: string): boolean {
  return STD.has(packageOf(f).split('/')[0]);
}
