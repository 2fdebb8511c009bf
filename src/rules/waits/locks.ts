/**
 * Lock patterns: double locking (a lock wait on the object the goroutine's own caller works on, or a
 * recursive RLock behind a queued writer), lock-order cycles, and a lock held while blocked.
 */
import { hex } from '../../analyze/args.js';
import { references } from '../../analyze/waitfor.js';
import { receiverType } from '../../analyze/closures.js';
import type { WaitFrame, WaitObject, Waiter } from '../../analyze/types.js';
import type { DumpContextKind } from '../../model/dump.js';
import { provenStuck, suspectsAll } from '../context.js';
import { shortFunc, siteText } from '../frames.js';
import {
  LOCKS, PROGRESS, WAITS_FOR_OTHERS, callersReferencing, childrenOf, holdsFor, otherReferences, referencing, sameObject, stuckByTime,
  type RefIndex,
} from './graph.js';
import { identityText } from './text.js';
import type { Confidence, HeldLock, LockCycle, SelfLock } from './types.js';

/**
 * One snapshot of a busy process can catch a goroutine waiting briefly for a lock whose holder the
 * dump cannot tie to it (a closure holds it, no argument shows it). So, outside a test timeout, a leak
 * report or a runtime deadlock, a lock pattern needs more: a wait of a minute or more, a signal dump of
 * a process where nothing runs, or (held while blocked) a queue no healthy lock builds.
 */
export function lockEvidence(context: DumpContextKind, ws: readonly Waiter[], quiet: boolean, queued = 0): boolean {
  return suspectsAll(context) || provenStuck(context) || ws.some(stuckByTime) || (context === 'signal' && quiet) || queued >= QUEUE_EVIDENCE;
}

/** Goroutines queued behind one parked holder that no brief critical section explains. */
const QUEUE_EVIDENCE = 10;

export function findSelfLocks(
  waiters: readonly Waiter[],
  locks: readonly Waiter[],
  context: DumpContextKind,
  idx: RefIndex,
  small: boolean,
  quiet: boolean,
  partial = false,
): SelfLock[] {
  const out: SelfLock[] = [];
  // Inferred from who is alive (onlyReader): only in a complete view, and only for a read lock whose
  // queued writers are not themselves waiting for a lock their own caller holds (then the writer is
  // the self-deadlock and the reader its victim).
  const late: Waiter[] = [];
  for (const w of locks) {
    if (!lockEvidence(context, [w], quiet)) continue;
    const o = w.object!;
    let holder: WaitFrame | undefined;
    let confidence: Confidence;
    let how: string;
    if (o.identity !== 'type') {
      holder = callersReferencing(w, o);
      // A test function or its closure that only passes the object along does not lock it: the
      // methods it calls do. Blaming it would name a holder that was never one.
      if (holder && !mayHold(holder, o, w)) holder = undefined;
      if (!holder) {
        if (w.on === 'rlock' && !partial) late.push(w);
        continue;
      }
      if (otherReferences(o, w, idx).some((x) => !LOCKS.has(x.on))) continue;
      const tied = references(holder, o);
      confidence = !tied ? 'medium' : o.identity === 'seen' ? 'high' : 'medium';
      how = `the caller ${shortFunc(holder.frame.func)} (${siteText(holder.frame)}) works on the same object ${hex(o.base)} (${identityText(o)})`;
    } else {
      // Only the type: a caller that is a method of the same type, and nobody else in such a method.
      if (!small) continue;
      const t = o.ownerType;
      holder = w.frames.slice(w.site + 1).find((f) => f.origin === 'user' && receiverType(f.frame.func) === t);
      if (!holder) continue;
      const others = waiters.filter((x) => x !== w && x.frames.some((f) => receiverType(f.frame.func) === t));
      if (others.some((x) => !LOCKS.has(x.on))) continue;
      if (!stuckByTime(w) && !suspectsAll(context) && context !== 'signal') continue;
      confidence = 'low';
      how = `the caller ${shortFunc(holder.frame.func)} (${siteText(holder.frame)}) is a method of the same type ${shortFunc(t!)} (no exact address printed: inferred from types)`;
    }
    const writers = w.on === 'rlock' ? locks.filter((x) => x !== w && x.on === 'lock' && sameObject(x.object!, o)) : [];
    out.push({ waiter: w, holder, writers, confidence, how });
  }
  for (const w of late) {
    const o = w.object!;
    if (out.some((s) => s.waiter.on === 'lock' && sameObject(s.waiter.object!, o))) continue;
    const holder = onlyReader(w, locks, waiters);
    if (!holder || otherReferences(o, w, idx).some((x) => !LOCKS.has(x.on))) continue;
    const how = `a writer waits for the readers of ${hex(o.base)} to leave, and no other goroutine of ${shortFunc(holder.frame.pkg)} is alive to hold a read lock: the caller ${shortFunc(holder.frame.func)} (${siteText(holder.frame)}) holds it (inferred)`;
    const writers = locks.filter((x) => x !== w && x.on === 'lock' && sameObject(x.object!, o));
    out.push({ waiter: w, holder, writers, confidence: 'medium', how });
  }
  return out;
}

/**
 * A caller frame referencing the lock's object may hold its lock unless it is test code that is no
 * method of the lock's type (a test body or its closure handing the object to the code under test).
 */
function mayHold(holder: WaitFrame, o: WaitObject, w: Waiter): boolean {
  if (!holder.frame.file.endsWith('_test.go')) return true;
  const t = o.ownerType ?? receiverType(w.frames[w.site]?.frame.func ?? '');
  return t !== undefined && receiverType(holder.frame.func) === t;
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
  // A parent parked until the goroutines on the lock finish (`<-done`, `wg.Wait`) holds no read lock for them.
  const parentOf = (x: Waiter) => WAITS_FOR_OTHERS.has(x.on) && childrenOf(x, waiters).some((c) => onX.has(c));
  const others = waiters.filter((x) => !onX.has(x) && !parentOf(x) && x.frames.some((f) => f.frame.pkg === pkg && f.origin === 'user'));
  if (others.length) return undefined;
  for (let i = r.site + 1; i < r.frames.length; i++) if (r.frames[i].frame.pkg === pkg) return r.frames[i];
  return undefined;
}

export function findCycles(locks: readonly Waiter[], idx: RefIndex, context: DumpContextKind, small: boolean, quiet: boolean): LockCycle[] {
  // Edge w → h: h (a lock waiter) references the object w waits for, so may hold it. In a small dump
  // with evidence that it is stuck, also by type: h is inside a method of the type whose lock w waits
  // for (a callback registry's Fire holding its lock while it calls out), when no address shows it.
  const isLock = new Set(locks);
  const typed = small && lockEvidence(context, locks, quiet);
  const edges = new Map<Waiter, { to: Waiter; frame: WaitFrame; byType: boolean }[]>();
  for (const w of locks) {
    const list: { to: Waiter; frame: WaitFrame; byType: boolean }[] = [];
    for (const h of referencing(idx, w.object!)) {
      if (h === w || !isLock.has(h)) continue;
      const f = holdsFor(h, w.object!);
      if (f) list.push({ to: h, frame: f, byType: false });
    }
    const t = w.object!.ownerType;
    if (typed && t !== undefined) {
      for (const h of locks) {
        if (h === w || list.some((e) => e.to === h) || h.object!.ownerType === t) continue;
        const f = h.frames.find((x) => x.index >= h.site && x.origin === 'user' && receiverType(x.frame.func) === t);
        if (f) list.push({ to: h, frame: f, byType: true });
      }
    }
    edges.set(w, list);
  }
  const out: LockCycle[] = [];
  const inCycle = new Set<Waiter>();
  for (const start of locks) {
    if (inCycle.has(start)) continue;
    // Shortest cycle back to `start` (breadth first; dumps here are small).
    const prev = new Map<Waiter, { from: Waiter; frame: WaitFrame; byType: boolean }>();
    let frontier = [start];
    let closing: { from: Waiter; frame: WaitFrame; byType: boolean } | undefined;
    for (let depth = 0; depth < 6 && frontier.length && !closing; depth++) {
      const next: Waiter[] = [];
      for (const x of frontier) {
        for (const e of edges.get(x) ?? []) {
          if (e.to === start) {
            closing = { from: x, frame: e.frame, byType: e.byType };
            break;
          }
          if (prev.has(e.to) || inCycle.has(e.to)) continue;
          prev.set(e.to, { from: x, frame: e.frame, byType: e.byType });
          next.push(e.to);
        }
        if (closing) break;
      }
      frontier = next;
    }
    if (!closing) continue;
    // Walk back: each member holds what its predecessor waits for.
    const chain: { waiter: Waiter; holds: WaitFrame; held: WaitObject; byType: boolean }[] = [];
    let cur = closing.from;
    chain.push({ waiter: start, holds: closing.frame, held: cur.object!, byType: closing.byType });
    while (cur !== start) {
      const p = prev.get(cur)!;
      chain.push({ waiter: cur, holds: p.frame, held: p.from.object!, byType: p.byType });
      cur = p.from;
    }
    // In wait order: each member waits for what the next one holds (the last for the first's).
    chain.reverse();
    for (const m of chain) inCycle.add(m.waiter);
    const seenAll = chain.every((m) => m.waiter.object!.identity === 'seen' && !m.byType);
    out.push({ members: chain, confidence: chain.some((m) => m.byType) ? 'low' : seenAll ? 'high' : 'medium' });
  }
  return out;
}

export function findHeld(
  waiters: readonly Waiter[],
  locks: readonly Waiter[],
  used: ReadonlySet<Waiter>,
  context: DumpContextKind,
  idx: RefIndex,
  small: boolean,
  quiet: boolean,
): HeldLock[] {
  const out: HeldLock[] = [];
  const free = locks.filter((w) => !used.has(w));
  if (!free.length) return out;
  const blocked = (b: Waiter) => !used.has(b) && !LOCKS.has(b.on) && (b.on !== 'other' || writesToPeer(b));
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
        ? b.frames.slice(b.site).find((x) => x.origin === 'user' && receiverType(x.frame.func) === o.ownerType)
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
      // A holder writing to a peer that does not read is evidence of its own (how much: the detector).
      if (!lockEvidence(context, [b, ...e.queued], quiet, e.queued.length) && !writesToPeer(b)) continue;
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

/**
 * Parked in a socket write: the kernel's send buffer is full because the peer does not read. Held
 * across such a write, a lock waits for a client, not for the program (a per-connection write lock
 * whose holder writes to a client that stopped reading).
 */
export function writesToPeer(w: Waiter): boolean {
  if (w.group.waitKind !== 'io') return false;
  const fr = w.group.frames;
  return fr.some((f) => f.func === 'internal/poll.(*pollDesc).waitWrite') && fr.some((f) => NET_WRITE.test(f.func));
}

/** A connection's write (not a dial, which also waits for writability). */
const NET_WRITE = /^net\.\(\*(netFD|conn|TCPConn|UnixConn)\)\.(Write|write|writeBuffers)$/;
