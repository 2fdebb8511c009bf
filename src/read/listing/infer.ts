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
  /** What the runtime runs below it, innermost first (kept where listed; gopark always). */
  readonly below: readonly string[];
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
  { entry: 'runtime.chansend1', below: ['runtime.chansend'] },
  { entry: 'runtime.chanrecv1', below: ['runtime.chanrecv'] },
  { entry: 'runtime.chanrecv2', below: ['runtime.chanrecv'] },
  { entry: 'runtime.selectgo', below: [], std: true },
  { entry: 'runtime.block', below: [] },
  { entry: 'time.Sleep', below: ['runtime.timeSleep'] },
  {
    entry: 'sync.(*WaitGroup).Wait',
    below: [...SEMA, 'sync.runtime_Semacquire', 'sync.runtime_SemacquireWaitGroup', 'internal/sync.runtime_SemacquireWaitGroup'],
    wrappers: ['errgroup.(*Group).Wait'],
    join: true,
  },
  {
    entry: 'sync.(*RWMutex).Lock',
    below: [...SEMA, 'sync.runtime_SemacquireRWMutex', 'internal/sync.runtime_SemacquireRWMutex'],
    contains: ['sync.(*Mutex).Lock'],
  },
  { entry: 'sync.(*RWMutex).RLock', below: [...SEMA, 'sync.runtime_SemacquireRWMutexR', 'internal/sync.runtime_SemacquireRWMutexR'] },
  {
    entry: 'sync.(*Mutex).Lock',
    below: [...SEMA, 'sync.runtime_SemacquireMutex', 'internal/sync.runtime_SemacquireMutex', 'sync.(*Mutex).lockSlow', 'internal/sync.(*Mutex).lockSlow', 'internal/sync.(*Mutex).Lock'],
  },
  { entry: 'sync.(*Cond).Wait', below: ['runtime.goparkunlock', 'runtime.notifyListWait', 'sync.runtime_notifyListWait'] },
  { entry: 'internal/poll.runtime_pollWait', below: ['runtime.netpollblock'], std: true },
];

/** Functions that run the closures handed to them as new goroutines (suffix match). */
const STARTERS = ['errgroup.(*Group).Go.func1', 'errgroup.(*Group).TryGo.func1', 'sync.(*WaitGroup).Go.func1'];

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
    if (!listed(e.entry)) continue;
    let count = byName.get(e.entry)!.cum;
    // An entry point inside another one (RWMutex.Lock takes a Mutex first): the outer one's count is not this one's.
    for (const outer of ENTRY_POINTS) if (outer.contains?.includes(e.entry) && listed(outer.entry)) count -= byName.get(outer.entry)!.cum;
    const base = [PARK, ...e.below.filter(listed), e.entry];
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
  buckets.sort((a, b) => Number(!!b.entry.join) - Number(!!a.entry.join) || b.count - a.count);

  const starter = (f: string): boolean => STARTERS.some((s) => f === s || f.endsWith(`/${s}`) || f.endsWith(`.${s}`));
  const plumbing = (f: string): boolean =>
    known.has(f) || wrappersListed.has(f) || f.startsWith('runtime.') || f.startsWith('internal/') || f.startsWith('sync.') || f.startsWith('runtime/internal');
  const waiters = new Set<string>();
  const table = new FrameTable();
  const frame = (f: string): Frame => table.frame(f, packageOf(f), '', 0, byName.get(f)?.inline ?? false);
  let explained = 0;

  for (const b of buckets) {
    let remaining = b.count;
    while (remaining > 0) {
      const first = bestCaller(totals, cap, remaining, (t) => {
        if (plumbing(t.func) || starter(t.func) || (!b.entry.std && isStd(t.func))) return undefined;
        let bonus = t.inline ? 0.3 : 0;
        if (b.entry.join) bonus += (hasClosures(t.func, totals) ? 0.5 : 0) - (isClosure(t.func) ? 0.2 : 0);
        else bonus += isClosure(t.func) ? 0 : 0.05;
        return bonus;
      });
      if (!first) {
        body.records.push({ count: remaining, frames: b.chain.map(frame), partial: true });
        explained += remaining;
        break;
      }
      const take = cap.get(first)! >= 0.9 * remaining ? remaining : cap.get(first)!;
      if (b.entry.join) waiters.add(first);
      const chain = [first, ...callersOf(first, take, totals, cap, waiters, plumbing, starter)];
      for (const f of chain) cap.set(f, Math.max(0, cap.get(f)! - take));
      body.records.push({ count: take, frames: [...b.chain, ...chain].map(frame) });
      explained += take;
      remaining -= take;
    }
  }

  // Parked goroutines no listed entry point explains (their chains were dropped or cut): gopark only.
  const park = byName.get(PARK);
  const parked = park ? (park.flat ?? park.cum) : 0;
  if (parked > explained) body.records.push({ count: parked - explained, frames: [frame(PARK)], partial: true });
  // Goroutines running in a leaf other than gopark (the profiler's own frame): that frame alone.
  for (const t of totals) {
    if (t.func !== PARK && (t.flat ?? 0) > 0) body.records.push({ count: t.flat!, frames: [frame(t.func)], partial: true });
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
): string | undefined {
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
  return best;
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
): string[] {
  const chain: string[] = [];
  let cur = f;
  for (let depth = 0; depth < 6; depth++) {
    if (starter(cur)) break;
    const closure = isClosure(cur);
    const fromWaiter = closure && waiters.has(parentOf(cur));
    if (closure && !fromWaiter) break;
    const inChain = new Set([f, ...chain]);
    const next = bestCaller(totals, cap, count, (t) => {
      if (inChain.has(t.func) || plumbing(t.func) || t.func.startsWith(`${cur}.`)) return undefined;
      if (cap.get(t.func)! < 0.98 * count) return undefined;
      if (fromWaiter) return starter(t.func) ? 0.5 : undefined;
      // Only closures and method values are handed to a starter.
      if (starter(t.func)) return undefined;
      return (isClosure(t.func) ? 0.1 : 0) + (samePrefix(t.func, cur) ? 0.1 : 0);
    }, 0.5);
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
