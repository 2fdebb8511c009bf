/**
 * Waits nothing will end: a Cond, WaitGroup, channel or lock wait of a goroutine parked in the
 * program's code, when the context (a test timeout, a leak report, a runtime deadlock) or the graph (an
 * object nobody alive references, minutes in a lock) says it is stuck rather than slow.
 */
import { hex } from '../../analyze/args.js';
import { enclosing, receiverType } from '../../analyze/closures.js';
import type { Waiter } from '../../analyze/types.js';
import type { DumpContextKind } from '../../model/dump.js';
import { contextPhrase, provenStuck, suspectsAll } from '../context.js';
import { STARTUP } from '../frames.js';
import {
  LEFTOVER, LOCKS, PROGRESS, atEntry, childrenOf, isHarness, quietProcess, referencing, sameObject, sharingOf, stuckByTime,
  type RefIndex,
} from './graph.js';
import type { Confidence, StuckWait } from './types.js';

/**
 * The object `w` waits on (a channel, a Cond) is referenced by no other goroutine, except others
 * waiting on it the same way: nobody alive can complete the operation. Needs a printed address.
 */
/** The goroutine signal.Notify starts to deliver signals (`os/signal.loop` → `signal_recv`). */
const SIGNAL_LOOP = /^os\/signal\.(loop|signal_recv)$/;

/** `signals`: signal.Notify is in use and `w` is not a worker a WaitGroup waits for. */
function orphaned(w: Waiter, idx: RefIndex, signals: boolean): string | undefined {
  const o = w.object;
  if (!o || o.identity === 'type' || (w.on !== 'chan-send' && w.on !== 'chan-receive' && w.on !== 'cond')) return undefined;
  // With signal.Notify in use, the runtime's os/signal loop sends on channels no frame shows: a
  // receive nobody else references may be `<-sigs` or `<-ctx.Done()` of signal.NotifyContext (a
  // `range` or `v, ok :=` receive, chanrecv2, is a worker's, not a signal wait).
  if (signals && w.on === 'chan-receive' && !w.frames.some((f) => f.frame.func === 'runtime.chanrecv2')) return undefined;
  const others = referencing(idx, o).filter((x) => x !== w && !(x.on === w.on && x.object !== undefined && sameObject(x.object, o)));
  if (others.length > 0) return undefined;
  const what = w.on === 'cond' ? 'condition variable' : 'channel';
  return `no other goroutine references the ${what} ${hex(o.addr)} (${o.identity === 'seen' ? 'its address is printed in the wait' : 'the receiver it belongs to'}): nobody alive can ${w.on === 'chan-send' ? 'receive from' : w.on === 'chan-receive' ? 'send on or close' : 'signal'} it`;
}

/** A WaitGroup waiter whose struct is shared only with goroutines that are parked (nothing runs). */
function blockedChildren(w: Waiter, kind: StuckWait['kind'], idx: RefIndex): string | undefined {
  if (kind !== 'waitgroup' || !w.object || w.object.identity === 'type') return undefined;
  const sharing = referencing(idx, w.object).filter((x) => x !== w);
  if (!sharing.length || sharing.some((x) => x.on === 'other')) return undefined;
  return `the goroutines that work on the same object (${hex(w.object.base)}) are all parked (${[...new Set(sharing.map((x) => x.readGroup.state || x.on))].join(', ')}), so none of them can call Done`;
}

/**
 * In this context `stuckReason` may find a wait of any kind stuck; in the others (a plain profile, a
 * crash) only a lock or Cond wait, so `findStuck` looks at no other wait there: on tens of thousands
 * of channel waiters, what it reads of each costs milliseconds.
 */
export function anyWaitMayBeStuck(context: DumpContextKind): boolean {
  return provenStuck(context) || suspectsAll(context) || context === 'signal';
}

export function findStuck(
  waiters: readonly Waiter[],
  used: ReadonlySet<Waiter>,
  context: DumpContextKind,
  idx: RefIndex,
  partial = false,
): StuckWait[] {
  const out: StuckWait[] = [];
  // Absence of a counterpart is evidence only while nothing of the program runs: a busy goroutine may
  // hold a channel in a closure or an inlined frame, where no argument shows it. In an excerpt, what
  // is not shown may run.
  const quiet = !partial && quietProcess(waiters);
  // Both read every waiter (tens of thousands in a large profile): only when some wait needs them.
  let signals: boolean | undefined;
  const signalLoop = () => (signals ??= waiters.some((w) => w.frames.some((f) => SIGNAL_LOOP.test(f.frame.func))));
  let byId: Map<number, Waiter> | undefined;
  const anyKind = anyWaitMayBeStuck(context);
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
    if (!kind || (!anyKind && kind !== 'lock' && kind !== 'cond') || isHarness(w)) continue;
    if (w.group.flags.leaked) continue; // the goroutineleak rule says it with certainty
    // What Wait waits for: goroutines it started, and goroutines that work on the struct holding the
    // WaitGroup (a server's handlers, started elsewhere).
    const sharing = kind === 'waitgroup' ? sharingOf(w, waiters, idx) : [];
    const kids = kind === 'waitgroup' ? childrenOf(w, waiters) : [];
    const nobodyLeft = kind === 'waitgroup' && kids.length === 0 && sharing.length === 0;
    const idle = kind === 'channel' && (atEntry(w) || constructorPool(w, waiters)) && !awaited.has(w);
    const why = stuckReason(w, kind, context, quiet && !idle ? orphaned(w, idx, !awaited.has(w) && signalLoop()) ?? blockedChildren(w, kind, idx) : undefined, quiet && nobodyLeft);
    if (!why) continue;
    const counterparts: Waiter[] = [];
    if (kind === 'waitgroup') {
      for (const c of new Set([...kids, ...sharing])) if (c.on !== 'other' && !PROGRESS.has(c.group.waitKind)) counterparts.push(c);
    } else if (kind === 'cond' && w.object && w.object.identity !== 'type') {
      const o = w.object;
      for (const x of referencing(idx, o)) if (x !== w && x.on !== 'cond') counterparts.push(x);
    }
    const creatorId = w.detail.createdBy;
    const creator = creatorId !== undefined ? (byId ??= new Map(waiters.map((x) => [x.detail.id, x]))).get(creatorId) : undefined;
    const confidence: Confidence = partial ? excerptConfidence(w) : provenStuck(context) ? 'high' : suspectsAll(context) || stuckByTime(w) ? 'medium' : 'low';
    const leaked = kind === 'lock' && quiet && (suspectsAll(context) || provenStuck(context) || context === 'signal') ? noHolder(w, waiters, idx) : undefined;
    out.push({ waiter: w, kind, why, stuckCounterparts: counterparts, ...(creator ? { creator } : {}), confidence, ...(leaked ? { leaked } : {}) });
  }
  return out;
}

/**
 * One of several receivers that a constructor (or `main`, `init`) started at one site and that wait at
 * one site: a worker pool at rest, whose channel the owner keeps in a field or a local that no frame
 * prints. Idle, however deep its receive sits in the worker's calls (`worker` → `take` → `<-p.jobs`).
 */
function constructorPool(w: Waiter, waiters: readonly Waiter[]): boolean {
  const c = w.readGroup.creator;
  if (!c || (w.on !== 'chan-receive' && w.on !== 'select') || !STARTUP.test(enclosing(c.func))) return false;
  const site = w.frames[w.site]?.frame;
  return waiters.some((x) => x !== w && x.on === w.on && x.readGroup.creator?.func === c.func && x.readGroup.creator.line === c.line && x.frames[x.site]?.frame === site);
}

/**
 * In a complete view where nothing of the program runs, the lock `w` waits for has no possible holder:
 * no other goroutine references its object, and none (besides the lock's own waiters) is inside a
 * method of its type. Returns why, or undefined when some goroutine might hold it.
 */
function noHolder(w: Waiter, waiters: readonly Waiter[], idx: RefIndex): string | undefined {
  const o = w.object;
  if (!o) return undefined;
  const sameLock = (x: Waiter) => x.object !== undefined && LOCKS.has(x.on) && sameObject(x.object, o);
  if (o.identity !== 'type' && referencing(idx, o).some((x) => x !== w && !sameLock(x))) return undefined;
  const t = o.ownerType;
  if (t !== undefined && waiters.some((x) => x !== w && !sameLock(x) && x.frames.some((f) => f.origin !== 'runtime' && receiverType(f.frame.func) === t))) return undefined;
  if (t === undefined && o.identity === 'type') return undefined;
  const waiting = waiters.filter(sameLock).length;
  return `no goroutine in the dump can hold it: ${o.identity === 'type' ? '' : `none references ${hex(o.base)}, `}${t ? `none is inside a method of ${t.slice(t.lastIndexOf('/') + 1)}, ` : ''}nothing of the program runs, and ${waiting === 1 ? 'the only goroutine on the lock is this waiter' : `all ${waiting} goroutines on the lock are waiters`}`;
}

/**
 * A goroutine someone chose for an excerpt is a suspect; how long it has waited says how sure: a wait
 * of ten minutes or more is no brief pause, one of a minute rarely is.
 */
function excerptConfidence(w: Waiter): Confidence {
  const m = w.detail.waitMinutes ?? 0;
  return m >= 10 ? 'high' : m >= 1 ? 'medium' : 'low';
}

/** Why `w` is stuck, or undefined. */
export function stuckReason(
  w: Waiter,
  kind: StuckWait['kind'],
  context: DumpContextKind,
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
  // A signal dump is how a hung process is inspected: a wait on an object nobody else alive can reach,
  // or for children none of which is alive, is a suspect. Age alone is not: in a long-running server
  // the oldest waits are its accept loops, listeners, signal and reload waiters and lifetime actors.
  if (context === 'signal') {
    if (orphan) return `${contextPhrase(context)}, and ${orphan}`;
    if (noChildren) return `${contextPhrase(context)}, and nothing is running: no goroutine it started, and none working on the same object, is alive to call Done`;
  }
  return undefined;
}
