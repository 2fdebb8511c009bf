/**
 * Questions about the waiters of a wait-for graph that every pattern asks: who references an object,
 * who started whom, which goroutines belong to the test harness or idle at their own entry.
 */
import { references } from '../../analyze/waitfor.js';
import { receiverType } from '../../analyze/closures.js';
import type { AnalyzedGroup, WaitFrame, WaitObject, Waiter } from '../../analyze/types.js';
import { isClosure } from '../frames.js';

export const LOCKS = new Set(['lock', 'rlock']);
/** A goroutine of the program in one of these is making progress. */
export const PROGRESS = new Set(['running', 'runnable', 'sleep', 'io', 'syscall']);
export const LEFTOVER = new Set(['io', 'sleep', 'syscall', 'semaphore', 'unknown']);
/** The test harness: goroutines here wait for tests, they never are the bug. */
export const HARNESS = /^testing\.|^runtime\/pprof\.|^os\/signal\./;

export function isHarness(w: Waiter): boolean {
  const f = w.frames[w.site]?.frame;
  // A stack cut short before any frame of the program's (a pasted excerpt): unknown, not harness.
  if (cutShort(w) && w.frames.every((x) => (x.origin === 'runtime' || x.origin === 'stdlib') && !HARNESS.test(x.frame.func))) return false;
  if (!f) return true;
  if (HARNESS.test(f.func) || f.file.endsWith('_testmain.go') || w.frames[w.site].origin !== 'user') return true;
  // Blocked inside the harness on behalf of the test (`t.Parallel()`, `t.Run`): it waits for other tests.
  for (let i = 0; i < w.site; i++) if (HARNESS.test(w.frames[i].frame.func)) return true;
  return false;
}

/** The stack does not reach the goroutine's start: marked partial, or no `created by` and no entry frame. */
export function cutShort(w: Waiter): boolean {
  if (w.readGroup.partial || w.frames.length === 0) return true;
  const last = w.frames[w.frames.length - 1].frame.func;
  return w.readGroup.creator === undefined && last !== 'main.main' && last !== 'runtime.goexit' && last !== 'runtime.main';
}

/**
 * A loop goroutine idling at its own entry: a receive or select in the function the goroutine
 * started in (an event loop, a watcher, `main` waiting for results). Weak alone: such loops idle in
 * healthy programs too; they count when nothing else explains the hang.
 */
export function atEntry(w: Waiter): boolean {
  if (w.on !== 'chan-receive' && w.on !== 'select') return false;
  for (let i = w.site + 1; i < w.frames.length; i++) {
    const f = w.frames[i];
    if (f.origin === 'runtime') continue;
    // A closure that only wraps the site (`Run.func1` → `loop`) keeps it at the entry.
    if (i === w.site + 1 && isClosure(f.frame.func)) continue;
    return false;
  }
  return true;
}

/** Type-only inference compares every pair of goroutines: only on dumps this small. */
export const TYPE_PAIRS_MAX = 400;

/**
 * Goroutines by the exact addresses their frames (at or above the wait site) reference, indexed when
 * first asked: most dumps ask only about lock, Cond and WaitGroup waiters, and a profile of tens of
 * thousands of channel waiters asks nothing (a pass over all their frames costs milliseconds).
 */
export class RefIndex {
  #byAddress: Map<number, Waiter[]> | undefined;

  constructor(private readonly waiters: readonly Waiter[]) {}

  get(p: number): Waiter[] | undefined {
    return (this.#byAddress ??= indexReferences(this.waiters)).get(p);
  }
}

export function refIndex(waiters: readonly Waiter[]): RefIndex {
  return new RefIndex(waiters);
}

function indexReferences(waiters: readonly Waiter[]): Map<number, Waiter[]> {
  const idx = new Map<number, Waiter[]>();
  // Each waiter once per address: it is the last one listed while its frames are read (no set per waiter).
  const add = (p: number, w: Waiter) => {
    const l = idx.get(p);
    if (!l) idx.set(p, [w]);
    else if (l[l.length - 1] !== w) l.push(w);
  };
  // (Indexed loops: cold code allocates an iterator result per for-of step.)
  for (let k = 0; k < waiters.length; k++) {
    const w = waiters[k];
    for (let i = w.site; i < w.frames.length; i++) {
      const f = w.frames[i];
      if (f.origin === 'runtime') continue;
      for (let j = 0; j < f.pointers.length; j++) add(f.pointers[j], w);
      for (let j = 0; j < f.corroborated.length; j++) add(f.corroborated[j], w);
    }
  }
  return idx;
}

/** Goroutines that reference `o` (its struct or its address) in their frames. */
export function referencing(idx: RefIndex, o: WaitObject): Waiter[] {
  if (o.identity === 'type') return [];
  const a = idx.get(o.base) ?? [];
  if (o.addr === o.base) return a;
  const b = idx.get(o.addr) ?? [];
  return b.length ? [...new Set([...a, ...b])] : a;
}

export function sameObject(a: WaitObject, b: WaitObject): boolean {
  if (a.identity === 'type' || b.identity === 'type') return a.identity === b.identity && a.ownerType !== undefined && a.ownerType === b.ownerType;
  return a.base === b.base;
}

/** Frames above the wait site (callers) in the program's code that reference `o`. */
export function callersReferencing(w: Waiter, o: WaitObject): WaitFrame | undefined {
  for (let i = w.site + 1; i < w.frames.length; i++) {
    const f = w.frames[i];
    if (f.origin === 'runtime' || f.origin === 'stdlib') continue;
    if (references(f, o)) return f;
  }
  return undefined;
}

/** Any other goroutine (not waiting for `o` itself) referencing `o`: a possible holder. */
export function otherReferences(o: WaitObject, self: Waiter, idx: RefIndex): Waiter[] {
  return referencing(idx, o).filter((w) => w !== self && !(w.object && LOCKS.has(w.on) && sameObject(w.object, o)));
}

export function stuckByTime(w: Waiter): boolean {
  return (w.detail.waitMinutes ?? 0) >= 1;
}

/** Nothing of the program makes progress: no goroutine with a frame of its own code runs, sleeps or does I/O. */
export function quietProcess(waiters: readonly Waiter[]): boolean {
  return !waiters.some((w) => PROGRESS.has(w.group.waitKind) && w.frames.some((f) => f.origin === 'user'));
}

/** What `w` may hold: objects other lock waiters want, referenced in its frames at or above its site. */
export function holdsFor(w: Waiter, want: WaitObject): WaitFrame | undefined {
  if (want.identity === 'type') return undefined;
  if (w.object && LOCKS.has(w.on) && sameObject(w.object, want)) return undefined;
  for (let i = w.site; i < w.frames.length; i++) {
    const f = w.frames[i];
    if (f.origin === 'runtime') continue;
    if (references(f, want)) return f;
  }
  return undefined;
}

export const WAITS_FOR_OTHERS = new Set(['chan-receive', 'select', 'waitgroup', 'cond']);

/** The goroutine of a test function (`TestX` run by `testing.tRunner`). */
export function testBody(w: Waiter): boolean {
  return w.frames.some((f, i) => i >= w.site && f.frame.func === 'testing.tRunner');
}

/** Who started whom among the waiters, indexed once per graph (childrenOf is asked per waiter). */
interface ChildIndex {
  readonly byId: Map<number, Waiter[]>;
  readonly byCreator: Map<string, Waiter[]>;
  /** The dump prints `created by … in goroutine N` (Go 1.21+): ids are the only link used. */
  readonly ids: boolean;
}

const childIndexes = new WeakMap<readonly Waiter[], ChildIndex>();

function childIndex(waiters: readonly Waiter[]): ChildIndex {
  let ix = childIndexes.get(waiters);
  if (ix) return ix;
  const byId = new Map<number, Waiter[]>();
  const byCreator = new Map<string, Waiter[]>();
  let ids = false;
  for (const c of waiters) {
    const id = c.detail.createdBy;
    if (id !== undefined) {
      ids = true;
      // Goroutines the runtime or the standard library start on the program's behalf (`signal.Notify`'s
      // ensureSigM, net/http's connections) are not what a WaitGroup or a result channel waits for.
      if (c.frames.some((f) => f.origin === 'user')) {
        const l = byId.get(id);
        if (l) l.push(c);
        else byId.set(id, [c]);
      }
    }
    const f = c.readGroup.creator?.func;
    if (f !== undefined) {
      const l = byCreator.get(f);
      if (l) l.push(c);
      else byCreator.set(f, [c]);
    }
  }
  ix = { byId, byCreator, ids };
  childIndexes.set(waiters, ix);
  return ix;
}

/** Goroutines started by `p`: `created by … in goroutine <p>` (Go 1.21+), else by a function on its stack. */
export function childrenOf(p: Waiter, waiters: readonly Waiter[]): Waiter[] {
  const ix = childIndex(waiters);
  const byId = ix.byId.get(p.detail.id);
  if (byId || ix.ids) return byId ?? [];
  const out = new Set<Waiter>();
  for (let i = p.site; i < p.frames.length; i++) {
    const f = p.frames[i];
    if (f.origin !== 'user') continue;
    for (const c of ix.byCreator.get(f.frame.func) ?? []) if (c !== p) out.add(c);
  }
  return [...out];
}

/** Goroutines working on the struct that holds `w`'s WaitGroup (by address; by receiver type without one). */
export function sharingOf(w: Waiter, waiters: readonly Waiter[], idx: RefIndex): Waiter[] {
  const o = w.object;
  if (o === undefined) return [];
  const byAddress = o.identity !== 'type' ? referencing(idx, o).filter((x) => x !== w) : [];
  if (byAddress.length > 0 || waiters.length > TYPE_PAIRS_MAX || o.ownerType === undefined) return byAddress;
  // No frame shows the address (closures, inlined frames): goroutines in methods of the type whose
  // method waits (a server's handlers, an agent's loops) are the ones it may wait for.
  return waiters.filter((x) => x !== w && x.frames.some((f) => f.origin === 'user' && receiverType(f.frame.func) === o.ownerType));
}

/** Analyzed groups of waiters, distinct, in order. */
export function groupsOf(ws: readonly Waiter[]): AnalyzedGroup[] {
  return [...new Set(ws.map((w) => w.group))];
}
