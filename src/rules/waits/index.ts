/**
 * Deadlock patterns in the wait-for graph (analyze/waitfor.ts) of a small dump: who waits for whom.
 * Each pattern names both sides: the goroutine that waits and the one that holds, should signal or
 * should receive (when it is in the dump), with how that is known (an address seen in both stacks, a
 * receiver, a type only) and why it is stuck rather than slow (the runtime said so, the test timed
 * out, the wait lasted minutes). Files, bottom up: types → graph → text → locks, stuck → index.
 */
import type { Analysis, WaitObject, Waiter } from '../../analyze/types.js';
import { contextKind, partialView, provenStuck } from '../context.js';
import {
  LOCKS, TYPE_PAIRS_MAX, WAITS_FOR_OTHERS, atEntry, childrenOf, isHarness, quietProcess, refIndex, sameObject, sharingOf,
  testBody, type RefIndex,
} from './graph.js';
import { findCycles, findHeld, findSelfLocks } from './locks.js';
import { findStuck } from './stuck.js';
import type { HeldLock, LockCycle, StuckWait, WaitPatterns } from './types.js';

export type * from './types.js';
export { atEntry, childrenOf, groupsOf, isHarness, sameObject } from './graph.js';
export { goroutineName, identityText, objectText, ownText, where, whoList } from './text.js';
export { writesToPeer } from './locks.js';

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
  const partial = partialView(a.snapshot);
  const waiters = g.waiters;
  const locks = waiters.filter((w) => LOCKS.has(w.on) && w.object !== undefined);
  const consequences = new Map<Waiter, Waiter[]>();
  // Appended in place: many waiters can queue behind one root (a copy per waiter would be quadratic).
  const addConsequences = (root: Waiter, ws: readonly Waiter[]) => {
    const l = consequences.get(root);
    if (l) l.push(...ws);
    else consequences.set(root, [...ws]);
  };
  const used = new Set<Waiter>();

  const idx = refIndex(waiters);
  const small = waiters.length <= TYPE_PAIRS_MAX;
  // What an excerpt does not show may be running: absence is evidence only in a complete view.
  const quiet = !partial && quietProcess(waiters);
  const selfLocks = findSelfLocks(waiters, locks, context, idx, small, quiet, partial);
  for (const s of selfLocks) used.add(s.waiter);
  const cycles = findCycles(locks.filter((w) => !used.has(w)), idx, context, small, quiet);
  for (const c of cycles) for (const m of c.members) used.add(m.waiter);
  const held = findHeld(waiters, locks, used, context, idx, small, quiet);
  for (const h of held) used.add(h.blocked);

  // Pile-ups: other lock waiters on an object of a pattern are its consequences.
  const pile = (root: Waiter, objs: WaitObject[]) => {
    const q = locks.filter((w) => !used.has(w) && objs.some((o) => sameObject(w.object!, o)));
    for (const w of q) used.add(w);
    if (q.length) addConsequences(root, q);
  };
  for (const s of selfLocks) pile(s.waiter, [s.waiter.object!]);
  for (const c of cycles) pile(c.members[0].waiter, c.members.map((m) => m.waiter.object!));
  for (const h of held) for (const q of h.queued) used.add(q);

  const stuck = findStuck(waiters, used, context, idx, partial);
  // Parents waiting for a stuck child (the test goroutine on `<-done`, main in wg.Wait) are consequences.
  const roots = new Set<Waiter>([...used, ...stuck.map((s) => s.waiter)]);
  const stuckFinal: StuckWait[] = [];
  const waitedOn = new Set<Waiter>();
  // Waited for by a WaitGroup: a loop a parent's receive or select waits for may just be its worker.
  const waitedByWait = new Set<Waiter>();
  for (const s of stuck) {
    const waitsForKids = s.waiter.on === 'waitgroup' || s.waiter.on === 'chan-receive' || s.waiter.on === 'select' || s.waiter.on === 'cond';
    const kids = waitsForKids
      ? [...new Set([...childrenOf(s.waiter, waiters), ...(s.kind === 'waitgroup' ? s.stuckCounterparts : [])])].filter((c) => roots.has(c) && c !== s.waiter)
      : [];
    if (kids.length > 0) {
      for (const k of kids) {
        waitedOn.add(k);
        if (s.waiter.on === 'waitgroup') waitedByWait.add(k);
        const root = rootWaiter(k, cycles, held);
        addConsequences(root, [s.waiter]);
      }
      continue;
    }
    // It waits for goroutines it started that are busy, blocked forever (`select {}`, a nil channel:
    // another rule's root) or queued on a lock no pattern here explains: they are the story; saying
    // "nobody is left" or "nobody will send" about this one would be wrong. (Counterparts parked on a
    // channel, a Cond or a Wait keep it: a shutdown that waits before it closes, a quiet cycle.)
    if (waitsForKids && liveCounterparts(s, waiters, idx).some((c) => c.on === 'other' || LOCKS.has(c.on))) continue;
    stuckFinal.push(s);
  }
  // Before Go 1.21 no `in goroutine N` ties a WaitGroup to the goroutines it counts, and a helper that
  // started them (`readRows`, `parse`) may have returned: a Wait with other suspects beside it waits
  // for them rather than for nobody.
  if (!waiters.some((w) => w.detail.createdBy !== undefined)) {
    for (const s of [...stuckFinal]) {
      if (s.kind !== 'waitgroup') continue;
      const other = stuckFinal.find((y) => y !== s && y.kind !== 'waitgroup' && !testBody(y.waiter))?.waiter ?? [...used].find((u) => !testBody(u));
      if (!other) continue;
      const r = rootWaiter(other, cycles, held);
      addConsequences(r, [s.waiter]);
      stuckFinal.splice(stuckFinal.indexOf(s), 1);
    }
  }
  // A test body waiting (receive, select, Wait) while other suspects exist waits for them: before Go
  // 1.21 nothing links it to goroutines started by a helper that has returned (`Boot` → workers).
  const others = (x: StuckWait) => [...used].some((u) => !testBody(u)) || stuckFinal.some((y) => y !== x && !testBody(y.waiter));
  for (const s of [...stuckFinal]) {
    if (!testBody(s.waiter) || !WAITS_FOR_OTHERS.has(s.waiter.on) || !others(s)) continue;
    const root = stuckFinal.find((y) => y !== s && !testBody(y.waiter))?.waiter ?? [...used].find((u) => !testBody(u))!;
    const r = rootWaiter(root, cycles, held);
    addConsequences(r, [s.waiter]);
    stuckFinal.splice(stuckFinal.indexOf(s), 1);
  }
  // Idle-looking loops are suspects when another goroutine waits for them, or when nothing stronger
  // explains the hang and the test (or a runtime proof, or a leak checker) points at them.
  const strong = stuckFinal.filter((s) => !atEntry(s.waiter) || waitedOn.has(s.waiter));
  // In an excerpt every goroutine shown was chosen, but an idle-looking loop stays idle: it is a
  // suspect only when another goroutine shown waits for it.
  // (A receive loop a test started is no server's idle worker: in an excerpt it stays a suspect; a
  // select loop, which may be watching a ticker and ctx.Done(), stays idle.)
  const byTest = (s: StuckWait) => s.waiter.readGroup.creator?.file.endsWith('_test.go') ?? false;
  const final =
    partial ? stuckFinal.filter((s) => !atEntry(s.waiter) || waitedByWait.has(s.waiter) || (byTest(s) && s.waiter.on !== 'select'))
      : strong.length > 0 || used.size > 0 ? strong
      : provenStuck(context) || context === 'leak-report' ? stuckFinal
        : stuckFinal.filter(byTest);
  return { context, partial, selfLocks, cycles, held, stuck: final, consequences };
}

/** Goroutines `s` waits for that are alive: those it started, and for a WaitGroup those working on its struct. */
function liveCounterparts(s: StuckWait, waiters: readonly Waiter[], idx: RefIndex): Waiter[] {
  const kids = childrenOf(s.waiter, waiters);
  const sharing = s.kind === 'waitgroup' ? sharingOf(s.waiter, waiters, idx) : [];
  return [...new Set([...kids, ...sharing])].filter((c) => c !== s.waiter && !isHarness(c));
}

/** The goroutine a finding is rooted at for `w`: the first of its lock cycle, the holder it queues for, or itself. */
function rootWaiter(w: Waiter, cycles: readonly LockCycle[], held: readonly HeldLock[]): Waiter {
  for (const c of cycles) if (c.members.some((m) => m.waiter === w)) return c.members[0].waiter;
  for (const h of held) if (h.queued.includes(w)) return h.blocked;
  return w;
}
