/**
 * Deadlock patterns in the wait-for graph (analyze/waitfor.ts) of a small dump: who waits for whom.
 * Each pattern names both sides: the goroutine that waits and the one that holds, should signal or
 * should receive (when it is in the dump), with how that is known (an address seen in both stacks, a
 * receiver, a type only) and why it is stuck rather than slow (the runtime said so, the test timed
 * out, the wait lasted minutes).
 */
import { methodType, references } from '../analyze/waitfor.js';
import { hex } from '../analyze/args.js';
import type { Analysis, AnalyzedGroup, WaitFrame, WaitObject, Waiter } from '../analyze/types.js';
import type { DumpContextKind } from '../model/dump.js';
import { contextKind, contextPhrase, provenStuck, suspectsAll } from './context.js';
import { isClosure, shortFunc, siteText } from './frames.js';

export type Confidence = 'high' | 'medium' | 'low';

/** A goroutine that waits for a lock it (probably) already holds higher in its own stack. */
export interface SelfLock {
  readonly waiter: Waiter;
  /** The caller frame on the same object: where the lock was (probably) taken. */
  readonly holder: WaitFrame;
  /** Writers queued on the same RWMutex (a recursive RLock behind a pending writer). */
  readonly writers: readonly Waiter[];
  readonly confidence: Confidence;
  readonly how: string;
}

/** Lock waiters each holding (probably) what the next one waits for. */
export interface LockCycle {
  readonly members: readonly { readonly waiter: Waiter; readonly holds: WaitFrame; readonly held: WaitObject }[];
  readonly confidence: Confidence;
}

/** A goroutine blocked (channel, Wait, Cond) inside a critical section others queue for. */
export interface HeldLock {
  readonly blocked: Waiter;
  readonly frame: WaitFrame;
  readonly object: WaitObject;
  readonly queued: readonly Waiter[];
  /** What the blocked goroutine waits for, when the dump shows it: the parked goroutines a WaitGroup counts. */
  readonly waitsFor: readonly Waiter[];
  readonly confidence: Confidence;
  readonly how: string;
}

/** A Cond, WaitGroup or channel wait that nothing will end. */
export interface StuckWait {
  readonly waiter: Waiter;
  readonly kind: 'cond' | 'waitgroup' | 'channel' | 'lock' | 'leftover';
  /** Why it is stuck rather than slow. */
  readonly why: string;
  /** Goroutines it waits for that are alive and stuck themselves (children of a WaitGroup, a Cond's signaller). */
  readonly stuckCounterparts: readonly Waiter[];
  /** The goroutine that created it, alive in the dump (a parent may be the counterpart). */
  readonly creator?: Waiter;
  readonly confidence: Confidence;
}

export interface WaitPatterns {
  readonly context: DumpContextKind;
  readonly selfLocks: readonly SelfLock[];
  readonly cycles: readonly LockCycle[];
  readonly held: readonly HeldLock[];
  readonly stuck: readonly StuckWait[];
  /** Waiters that only wait for others of a pattern (the test runner, a parent in Wait): never roots. */
  readonly consequences: ReadonlyMap<Waiter, readonly Waiter[]>;
}

const LOCKS = new Set(['lock', 'rlock']);
/** A goroutine of the program in one of these is making progress. */
const PROGRESS = new Set(['running', 'runnable', 'sleep', 'io', 'syscall']);
const LEFTOVER = new Set(['io', 'sleep', 'syscall', 'semaphore', 'unknown']);
/** The test harness: goroutines here wait for tests, they never are the bug. */
const HARNESS = /^testing\.|^runtime\/pprof\.|^os\/signal\./;

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
function cutShort(w: Waiter): boolean {
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

function ownText(w: Waiter, i = w.site): string {
  const f = w.frames[i]?.frame;
  if (!f) return 'a stack cut off before its first frame';
  return cutShort(w) && w.frames.every((x) => x.origin !== 'user')
    ? `${shortFunc(f.func)} (${siteText(f)}; the stack is cut off before the program's own frames)`
    : `${shortFunc(f.func)} (${siteText(f)})`;
}

export function where(w: Waiter, i = w.site): string {
  return `goroutine ${w.detail.id} in ${ownText(w, i)}`;
}

/**
 * Goroutines named by site, as a person reads them: `goroutine 7 in Add (table.go:23)` for one,
 * `750 goroutines (7, 8, 9, …) in Add (table.go:23) [semacquire]` for many at one site.
 */
export function whoList(ws: readonly Waiter[], withState = true): string[] {
  const bySite = new Map<string, Waiter[]>();
  for (const w of ws) {
    const k = `${ownText(w)}${withState ? ` [${w.readGroup.state || w.on}]` : ''}`;
    const l = bySite.get(k);
    if (l) l.push(w);
    else bySite.set(k, [w]);
  }
  return [...bySite].map(([site, l]) => {
    if (l.length === 1) return `goroutine ${l[0].detail.id} in ${site}`;
    const ids = l.map((w) => w.detail.id).sort((a, b) => a - b);
    return `${l.length} goroutines (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}) in ${site}`;
  });
}

function objectText(o: WaitObject): string {
  if (o.identity === 'type') return `a lock of ${o.ownerType ? shortFunc(o.ownerType) : 'an object'}`;
  return o.addr === o.base ? hex(o.addr) : `${hex(o.addr)} (${o.addr - o.base} bytes into the object at ${hex(o.base)})`;
}

/** `0xc000082050 (seen in sync.(*Mutex).lockSlow)` */
function identityText(o: WaitObject): string {
  switch (o.identity) {
    case 'seen':
      return 'address printed as the argument of the lock call';
    case 'receiver':
      return 'inferred from the receiver of the locking method, of which the lock is a field';
    default:
      return 'inferred from the receiver type only (no exact address printed)';
  }
}

/** Type-only inference compares every pair of goroutines: only on dumps this small. */
const TYPE_PAIRS_MAX = 400;

/** Goroutines by the exact addresses their frames (at or above the wait site) reference. */
type RefIndex = Map<number, Waiter[]>;

function refIndex(waiters: readonly Waiter[]): RefIndex {
  const idx: RefIndex = new Map();
  for (const w of waiters) {
    const seen = new Set<number>();
    for (let i = w.site; i < w.frames.length; i++) {
      const f = w.frames[i];
      if (f.origin === 'runtime') continue;
      for (const p of f.pointers) seen.add(p);
      for (const p of f.corroborated) seen.add(p);
    }
    for (const p of seen) {
      const l = idx.get(p);
      if (l) l.push(w);
      else idx.set(p, [w]);
    }
  }
  return idx;
}

/** Goroutines that reference `o` (its struct or its address) in their frames. */
function referencing(idx: RefIndex, o: WaitObject): Waiter[] {
  if (o.identity === 'type') return [];
  const a = idx.get(o.base) ?? [];
  if (o.addr === o.base) return a;
  const b = idx.get(o.addr) ?? [];
  return b.length ? [...new Set([...a, ...b])] : a;
}

const memo = new WeakMap<Analysis, WaitPatterns | undefined>();

export function waitPatterns(a: Analysis): WaitPatterns | undefined {
  if (memo.has(a)) return memo.get(a);
  const p = a.waits ? findPatterns(a) : undefined;
  memo.set(a, p);
  return p;
}

function findPatterns(a: Analysis): WaitPatterns {
  const g = a.waits!;
  const context = contextKind(a.snapshot);
  const waiters = g.waiters;
  const locks = waiters.filter((w) => LOCKS.has(w.on) && w.object !== undefined);
  const maxMinutes = waiters.reduce((m, w) => Math.max(m, w.detail.waitMinutes ?? 0), 0);
  const consequences = new Map<Waiter, Waiter[]>();
  const used = new Set<Waiter>();

  const idx = refIndex(waiters);
  const small = waiters.length <= TYPE_PAIRS_MAX;
  const selfLocks = findSelfLocks(waiters, locks, context, idx, small);
  for (const s of selfLocks) used.add(s.waiter);
  const cycles = findCycles(locks.filter((w) => !used.has(w)), idx);
  for (const c of cycles) for (const m of c.members) used.add(m.waiter);
  const held = findHeld(waiters, locks, used, context, idx, small);
  for (const h of held) used.add(h.blocked);

  // Pile-ups: other lock waiters on an object of a pattern are its consequences.
  const pile = (root: Waiter, objs: WaitObject[]) => {
    const q = locks.filter((w) => !used.has(w) && objs.some((o) => sameObject(w.object!, o)));
    for (const w of q) used.add(w);
    if (q.length) consequences.set(root, [...(consequences.get(root) ?? []), ...q]);
  };
  for (const s of selfLocks) pile(s.waiter, [s.waiter.object!]);
  for (const c of cycles) pile(c.members[0].waiter, c.members.map((m) => m.waiter.object!));
  for (const h of held) for (const q of h.queued) used.add(q);

  const stuck = findStuck(waiters, used, context, maxMinutes, idx);
  // Parents waiting for a stuck child (the test goroutine on `<-done`, main in wg.Wait) are consequences.
  const roots = new Set<Waiter>([...used, ...stuck.map((s) => s.waiter)]);
  const stuckFinal: StuckWait[] = [];
  const waitedOn = new Set<Waiter>();
  for (const s of stuck) {
    const waitsForKids = s.waiter.on === 'waitgroup' || s.waiter.on === 'chan-receive' || s.waiter.on === 'select' || s.waiter.on === 'cond';
    const kids = waitsForKids
      ? [...new Set([...childrenOf(s.waiter, waiters), ...(s.kind === 'waitgroup' ? s.stuckCounterparts : [])])].filter((c) => roots.has(c) && c !== s.waiter)
      : [];
    if (kids.length > 0) {
      for (const k of kids) {
        waitedOn.add(k);
        const root = rootWaiter(k, selfLocks, cycles, held);
        consequences.set(root, [...(consequences.get(root) ?? []), s.waiter]);
      }
      continue;
    }
    stuckFinal.push(s);
  }
  // A test body waiting (receive, select, Wait) while other suspects exist waits for them: before Go
  // 1.21 nothing links it to goroutines started by a helper that has returned (`Boot` → workers).
  const others = (x: StuckWait) => [...used].some((u) => !testBody(u)) || stuckFinal.some((y) => y !== x && !testBody(y.waiter));
  for (const s of [...stuckFinal]) {
    if (!testBody(s.waiter) || !WAITS_FOR_OTHERS.has(s.waiter.on) || !others(s)) continue;
    const root = stuckFinal.find((y) => y !== s && !testBody(y.waiter))?.waiter ?? [...used].find((u) => !testBody(u))!;
    const r = rootWaiter(root, selfLocks, cycles, held);
    consequences.set(r, [...(consequences.get(r) ?? []), s.waiter]);
    stuckFinal.splice(stuckFinal.indexOf(s), 1);
  }
  // Idle-looking loops are suspects when another goroutine waits for them, or when nothing stronger
  // explains the hang and the test (or a runtime proof, or a leak checker) points at them.
  const strong = stuckFinal.filter((s) => !atEntry(s.waiter) || waitedOn.has(s.waiter));
  const final =
    strong.length > 0 || used.size > 0 ? strong
      : provenStuck(context) || context === 'leak-report' ? stuckFinal
        : stuckFinal.filter((s) => s.waiter.readGroup.creator?.file.endsWith('_test.go'));
  return { context, selfLocks, cycles, held, stuck: final, consequences };
}

function rootWaiter(w: Waiter, self: readonly SelfLock[], cycles: readonly LockCycle[], held: readonly HeldLock[]): Waiter {
  for (const c of cycles) if (c.members.some((m) => m.waiter === w)) return c.members[0].waiter;
  for (const h of held) if (h.queued.includes(w)) return h.blocked;
  void self;
  return w;
}

export function sameObject(a: WaitObject, b: WaitObject): boolean {
  if (a.identity === 'type' || b.identity === 'type') return a.identity === b.identity && a.ownerType !== undefined && a.ownerType === b.ownerType;
  return a.base === b.base;
}

/** Frames above the wait site (callers) in the program's code that reference `o`. */
function callersReferencing(w: Waiter, o: WaitObject): WaitFrame | undefined {
  for (let i = w.site + 1; i < w.frames.length; i++) {
    const f = w.frames[i];
    if (f.origin === 'runtime' || f.origin === 'stdlib') continue;
    if (references(f, o)) return f;
  }
  return undefined;
}

/** Any other goroutine (not waiting for `o` itself) referencing `o`: a possible holder. */
function otherReferences(o: WaitObject, self: Waiter, idx: RefIndex): Waiter[] {
  return referencing(idx, o).filter((w) => w !== self && !(w.object && LOCKS.has(w.on) && sameObject(w.object, o)));
}

function findSelfLocks(waiters: readonly Waiter[], locks: readonly Waiter[], context: DumpContextKind, idx: RefIndex, small: boolean): SelfLock[] {
  const out: SelfLock[] = [];
  for (const w of locks) {
    const o = w.object!;
    let holder: WaitFrame | undefined;
    let confidence: Confidence;
    let how: string;
    if (o.identity !== 'type') {
      holder = callersReferencing(w, o);
      if (!holder && w.on === 'rlock') holder = onlyReader(w, locks, waiters);
      if (!holder) continue;
      if (otherReferences(o, w, idx).some((x) => !LOCKS.has(x.on))) continue;
      const tied = references(holder, o);
      confidence = !tied ? 'medium' : o.identity === 'seen' ? 'high' : 'medium';
      how = tied
        ? `the caller ${shortFunc(holder.frame.func)} (${siteText(holder.frame)}) works on the same object ${hex(o.base)} (${identityText(o)})`
        : `a writer waits for the readers of ${hex(o.base)} to leave, and no other goroutine of ${shortFunc(holder.frame.pkg)} is alive to hold a read lock: the caller ${shortFunc(holder.frame.func)} (${siteText(holder.frame)}) holds it (inferred)`;
    } else {
      // Only the type: a caller that is a method of the same type, and nobody else in such a method.
      if (!small) continue;
      const t = o.ownerType;
      holder = w.frames.slice(w.site + 1).find((f) => f.origin === 'user' && methodType(f.frame.func) === t);
      if (!holder) continue;
      const others = waiters.filter((x) => x !== w && x.frames.some((f) => methodType(f.frame.func) === t));
      if (others.some((x) => !LOCKS.has(x.on))) continue;
      if (!stuckByTime(w) && !suspectsAll(context) && context !== 'signal') continue;
      confidence = 'low';
      how = `the caller ${shortFunc(holder.frame.func)} (${siteText(holder.frame)}) is a method of the same type ${shortFunc(t!)} (no exact address printed: inferred from types)`;
    }
    const writers = w.on === 'rlock' ? locks.filter((x) => x !== w && x.on === 'lock' && sameObject(x.object!, o)) : [];
    out.push({ waiter: w, holder, writers, confidence, how });
  }
  return out;
}

/**
 * A writer is queued on the RWMutex `r` read-waits for, and no other goroutine of the program could
 * be holding a read lock of it (none is in `r`'s package outside the waits on it): the read lock the
 * writer waits out is `r`'s own, taken by a caller. Returns that caller's frame (closures capture the
 * mutex, so no address ties them: this is inferred from who is alive).
 */
function onlyReader(r: Waiter, locks: readonly Waiter[], waiters: readonly Waiter[]): WaitFrame | undefined {
  const o = r.object!;
  const writers = locks.filter((x) => x !== r && x.on === 'lock' && sameObject(x.object!, o));
  if (!writers.length) return undefined;
  const pkg = r.frames[r.site]?.frame.pkg;
  if (!pkg) return undefined;
  const onX = new Set([r, ...locks.filter((x) => sameObject(x.object!, o))]);
  const others = waiters.filter((x) => !onX.has(x) && x.frames.some((f) => f.frame.pkg === pkg && f.origin === 'user'));
  if (others.length) return undefined;
  for (let i = r.site + 1; i < r.frames.length; i++) if (r.frames[i].frame.pkg === pkg) return r.frames[i];
  return undefined;
}

function stuckByTime(w: Waiter): boolean {
  return (w.detail.waitMinutes ?? 0) >= 1;
}

/** What `w` may hold: objects other lock waiters want, referenced in its frames at or above its site. */
function holdsFor(w: Waiter, want: WaitObject): WaitFrame | undefined {
  if (want.identity === 'type') return undefined;
  if (w.object && LOCKS.has(w.on) && sameObject(w.object, want)) return undefined;
  for (let i = w.site; i < w.frames.length; i++) {
    const f = w.frames[i];
    if (f.origin === 'runtime') continue;
    if (references(f, want)) return f;
  }
  return undefined;
}

function findCycles(locks: readonly Waiter[], idx: RefIndex): LockCycle[] {
  // Edge w → h: h (a lock waiter) references the object w waits for, so may hold it.
  const isLock = new Set(locks);
  const edges = new Map<Waiter, { to: Waiter; frame: WaitFrame }[]>();
  for (const w of locks) {
    const list: { to: Waiter; frame: WaitFrame }[] = [];
    for (const h of referencing(idx, w.object!)) {
      if (h === w || !isLock.has(h)) continue;
      const f = holdsFor(h, w.object!);
      if (f) list.push({ to: h, frame: f });
    }
    edges.set(w, list);
  }
  const out: LockCycle[] = [];
  const inCycle = new Set<Waiter>();
  for (const start of locks) {
    if (inCycle.has(start)) continue;
    // Shortest cycle back to `start` (breadth first; dumps here are small).
    const prev = new Map<Waiter, { from: Waiter; frame: WaitFrame }>();
    let frontier = [start];
    let closing: { from: Waiter; frame: WaitFrame } | undefined;
    for (let depth = 0; depth < 6 && frontier.length && !closing; depth++) {
      const next: Waiter[] = [];
      for (const x of frontier) {
        for (const e of edges.get(x) ?? []) {
          if (e.to === start) {
            closing = { from: x, frame: e.frame };
            break;
          }
          if (prev.has(e.to) || inCycle.has(e.to)) continue;
          prev.set(e.to, { from: x, frame: e.frame });
          next.push(e.to);
        }
        if (closing) break;
      }
      frontier = next;
    }
    if (!closing) continue;
    // Walk back: each member holds what its predecessor waits for.
    const chain: { waiter: Waiter; holds: WaitFrame; held: WaitObject }[] = [];
    let cur = closing.from;
    chain.push({ waiter: start, holds: closing.frame, held: cur.object! });
    while (cur !== start) {
      const p = prev.get(cur)!;
      chain.push({ waiter: cur, holds: p.frame, held: p.from.object! });
      cur = p.from;
    }
    chain.reverse();
    // Rotate so that member i holds what member i-1 waits for, starting from the lowest id.
    for (const m of chain) inCycle.add(m.waiter);
    const seenAll = chain.every((m) => m.waiter.object!.identity === 'seen');
    out.push({ members: chain, confidence: seenAll ? 'high' : 'medium' });
  }
  return out;
}

function findHeld(
  waiters: readonly Waiter[],
  locks: readonly Waiter[],
  used: ReadonlySet<Waiter>,
  context: DumpContextKind,
  idx: RefIndex,
  small: boolean,
): HeldLock[] {
  const out: HeldLock[] = [];
  const free = locks.filter((w) => !used.has(w));
  if (!free.length) return out;
  const blocked = (b: Waiter) => !used.has(b) && !LOCKS.has(b.on) && b.on !== 'other';
  // Per blocked goroutine: the queued lock waiters whose object it references above its wait.
  const per = new Map<Waiter, Map<number | string, { object: WaitObject; frame: WaitFrame; queued: Waiter[] }>>();
  for (const w of free) {
    const o = w.object!;
    const typed = o.identity === 'type';
    if (typed && !(small && (stuckByTime(w) || suspectsAll(context)))) continue;
    const cands = typed ? waiters : referencing(idx, o);
    for (const b of cands) {
      if (b === w || !blocked(b)) continue;
      const f = typed
        ? b.frames.slice(b.site).find((x) => x.origin === 'user' && methodType(x.frame.func) === o.ownerType)
        : holdsFor(b, o);
      if (!f) continue;
      let byObject = per.get(b);
      if (!byObject) per.set(b, (byObject = new Map()));
      const key = typed ? `t:${o.ownerType}` : o.base;
      const e = byObject.get(key) ?? { object: o, frame: f, queued: [] };
      e.queued.push(w);
      byObject.set(key, e);
    }
  }
  for (const [b, byObject] of per) {
    for (const e of byObject.values()) {
      const typed = e.object.identity === 'type';
      out.push({
        blocked: b,
        frame: e.frame,
        object: e.object,
        queued: e.queued,
        waitsFor: b.on === 'waitgroup' ? childrenOf(b, waiters).filter((c) => c.on !== 'other' && !PROGRESS.has(c.group.waitKind) && !e.queued.includes(c)) : [],
        confidence: typed ? 'low' : 'medium',
        how: typed
          ? `${shortFunc(e.frame.frame.func)} (${siteText(e.frame.frame)}) is a method of ${shortFunc(e.object.ownerType!)}, whose lock the others wait for (no exact address printed: inferred from types)`
          : `${shortFunc(e.frame.frame.func)} (${siteText(e.frame.frame)}) works on ${hex(e.object.base)}, the object whose lock ${e.queued.length === 1 ? 'the other waits' : 'the others wait'} for (${identityText(e.object)})`,
      });
    }
  }
  return out;
}

const WAITS_FOR_OTHERS = new Set(['chan-receive', 'select', 'waitgroup', 'cond']);

/** The goroutine of a test function (`TestX` run by `testing.tRunner`). */
function testBody(w: Waiter): boolean {
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

/**
 * The object `w` waits on (a channel, a Cond) is referenced by no other goroutine, except others
 * waiting on it the same way: nobody alive can complete the operation. Needs a printed address.
 */
function orphaned(w: Waiter, idx: RefIndex): string | undefined {
  const o = w.object;
  if (!o || o.identity === 'type' || (w.on !== 'chan-send' && w.on !== 'chan-receive' && w.on !== 'cond')) return undefined;
  const others = referencing(idx, o).filter((x) => x !== w && !(x.on === w.on && x.object !== undefined && sameObject(x.object, o)));
  if (others.length > 0) return undefined;
  const what = w.on === 'cond' ? 'condition variable' : 'channel';
  return `no other goroutine references the ${what} ${hex(o.addr)} (${o.identity === 'seen' ? 'its address is printed in the wait' : 'the receiver it belongs to'}): nobody alive can ${w.on === 'chan-send' ? 'receive from' : w.on === 'chan-receive' ? 'send on or close' : 'signal'} it`;
}

/** Goroutines working on the struct that holds `w`'s WaitGroup (by address; by receiver type without one). */
function sharingOf(w: Waiter, waiters: readonly Waiter[], idx: RefIndex): Waiter[] {
  const o = w.object;
  if (o === undefined) return [];
  if (o.identity !== 'type') return referencing(idx, o).filter((x) => x !== w);
  if (waiters.length > TYPE_PAIRS_MAX) return [];
  return waiters.filter((x) => x !== w && x.frames.some((f) => f.origin === 'user' && methodType(f.frame.func) === o.ownerType));
}

/** A WaitGroup waiter whose struct is shared only with goroutines that are parked (nothing runs). */
function blockedChildren(w: Waiter, kind: StuckWait['kind'], waiters: readonly Waiter[], idx: RefIndex): string | undefined {
  if (kind !== 'waitgroup' || !w.object || w.object.identity === 'type') return undefined;
  const sharing = referencing(idx, w.object).filter((x) => x !== w);
  if (!sharing.length || sharing.some((x) => x.on === 'other')) return undefined;
  void waiters;
  return `the goroutines that work on the same object (${hex(w.object.base)}) are all parked (${[...new Set(sharing.map((x) => x.readGroup.state || x.on))].join(', ')}), so none of them can call Done`;
}

function findStuck(
  waiters: readonly Waiter[],
  used: ReadonlySet<Waiter>,
  context: DumpContextKind,
  maxMinutes: number,
  idx: RefIndex,
): StuckWait[] {
  const out: StuckWait[] = [];
  // Absence of a counterpart is evidence only while nothing of the program runs: a busy goroutine may
  // hold a channel in a closure or an inlined frame, where no argument shows it.
  const quiet = !waiters.some((w) => PROGRESS.has(w.group.waitKind) && w.frames.some((f) => f.origin === 'user'));
  // An idle loop (a receive at its own entry) nobody can feed is a suspect only when a WaitGroup waits
  // for it: a pool at rest also receives on a channel no other frame shows (main keeps it in a local).
  const awaited = new Set<Waiter>();
  for (const w of waiters) {
    if (used.has(w) || w.on !== 'waitgroup') continue;
    for (const c of [...childrenOf(w, waiters), ...sharingOf(w, waiters, idx)]) awaited.add(c);
  }
  for (const w of waiters) {
    if (used.has(w)) continue;
    const kind: StuckWait['kind'] | undefined =
      w.on === 'cond' ? 'cond'
        : w.on === 'waitgroup' ? 'waitgroup'
          : w.on === 'chan-send' || w.on === 'chan-receive' || w.on === 'select' ? 'channel'
            : LOCKS.has(w.on) ? 'lock'
              // A leak checker lists goroutines still alive after the test, whatever they wait on (I/O, a sleep).
              : context === 'leak-report' && LEFTOVER.has(w.group.waitKind) ? 'leftover' : undefined;
    if (!kind || isHarness(w)) continue;
    if (w.group.flags.leaked) continue; // the goroutineleak rule says it with certainty
    // What Wait waits for: goroutines it started, and goroutines that work on the struct holding the
    // WaitGroup (a server's handlers, started elsewhere).
    const sharing = kind === 'waitgroup' ? sharingOf(w, waiters, idx) : [];
    const kids = kind === 'waitgroup' ? childrenOf(w, waiters) : [];
    const nobodyLeft = kind === 'waitgroup' && kids.length === 0 && sharing.length === 0;
    const idle = kind === 'channel' && atEntry(w) && !awaited.has(w);
    const why = stuckReason(w, kind, context, maxMinutes, quiet && !idle ? orphaned(w, idx) ?? blockedChildren(w, kind, waiters, idx) : undefined, quiet && nobodyLeft);
    if (!why) continue;
    const counterparts: Waiter[] = [];
    if (kind === 'waitgroup') {
      for (const c of new Set([...kids, ...sharing])) if (c.on !== 'other' && !PROGRESS.has(c.group.waitKind)) counterparts.push(c);
    } else if (kind === 'cond' && w.object && w.object.identity !== 'type') {
      const o = w.object;
      for (const x of referencing(idx, o)) if (x !== w && x.on !== 'cond') counterparts.push(x);
    }
    const creatorId = w.detail.createdBy;
    const creator = creatorId !== undefined ? waiters.find((x) => x.detail.id === creatorId) : undefined;
    const confidence: Confidence = provenStuck(context) ? 'high' : suspectsAll(context) || stuckByTime(w) ? 'medium' : 'low';
    out.push({ waiter: w, kind, why, stuckCounterparts: counterparts, ...(creator ? { creator } : {}), confidence });
  }
  return out;
}

function stuckReason(
  w: Waiter,
  kind: StuckWait['kind'],
  context: DumpContextKind,
  maxMinutes: number,
  orphan: string | undefined,
  noChildren: boolean,
): string | undefined {
  const m = w.detail.waitMinutes ?? 0;
  if (provenStuck(context) || suspectsAll(context)) {
    return contextPhrase(context) + (m > 0 ? `; it has waited ${m} minute${m === 1 ? '' : 's'}` : '') + (orphan ? `; ${orphan}` : '');
  }
  // Locks are never idle: a minute in Lock is stuck whatever the dump.
  if (kind === 'lock' && m >= 1) return `it has waited ${m} minute${m === 1 ? '' : 's'} for a lock, and a lock is never held that long by healthy code`;
  if (kind === 'cond' && m >= 1) return `it has waited ${m} minute${m === 1 ? '' : 's'} on a condition variable`;
  // A signal dump is how a hung process is inspected: a wait inside a call (not an idle loop) as old
  // as the oldest goroutines is a suspect.
  // A signal dump is how a hung process is inspected: a wait inside a call (not an idle loop) as old
  // as the oldest goroutines, or on an object nobody else alive can reach, is a suspect.
  if (context === 'signal') {
    if (m >= 1 && m >= maxMinutes && !(kind === 'channel' && atEntry(w))) {
      return `${contextPhrase(context)}, and it has waited ${m} minutes, as long as the oldest goroutines`;
    }
    if (orphan) return `${contextPhrase(context)}, and ${orphan}`;
    if (noChildren) return `${contextPhrase(context)}, and nothing is running: no goroutine it started, and none working on the same object, is alive to call Done`;
  }
  return undefined;
}

/** Analyzed groups of waiters, distinct, in order. */
export function groupsOf(ws: readonly Waiter[]): AnalyzedGroup[] {
  return [...new Set(ws.map((w) => w.group))];
}

export { objectText, identityText, ownText };
