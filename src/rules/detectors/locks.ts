/**
 * `lock-order`: lock-order inversion from stacks alone. For each group waiting on a Mutex/RWMutex we
 * know the lock it *wants* (the function that called Lock, and its receiver type) and what it may
 * *hold* (the functions and receiver types of its callers: a caller that locked and then called down
 * still holds its lock). Two small groups each wanting what the other holds form a cycle: the root
 * of a deadlock. Other groups waiting for the same locks are the pile-up behind it (consequences).
 */
import type { AnalyzedGroup, SiteFrame } from '../../analyze/types.js';
import { candidate, type Candidate, type Detector } from '../candidate.js';
import { describe } from '../evidence.js';
import { receiverType, shortFunc, siteText } from '../frames.js';
import { lockCycleCandidates } from './waitfor.js';

const LOCK_FRAME = /^sync\.\(\*(Mutex|RWMutex)\)\.|^internal\/sync\.|^sync\.runtime_Semacquire|^runtime\./;
const LOCK_CALL = /^sync\.\(\*(Mutex|RWMutex)\)\.(Lock|RLock)$|^internal\/sync\.\(\*Mutex\)\.Lock$/;

export interface LockWait {
  readonly group: AnalyzedGroup;
  /** The frame that called Lock/RLock. */
  readonly site: SiteFrame;
  readonly wants: Set<string>;
  readonly holds: Set<string>;
}

export function lockWait(g: AnalyzedGroup): LockWait | undefined {
  if (g.waitKind !== 'mutex' && g.waitKind !== 'rwmutex') return undefined;
  let i = g.frames.findIndex((f) => LOCK_CALL.test(f.func));
  if (i < 0) i = g.frames.findIndex((f) => !LOCK_FRAME.test(f.func)) - 1;
  else while (i + 1 < g.frames.length && LOCK_FRAME.test(g.frames[i + 1].func)) i++;
  const site = g.frames[i + 1];
  if (!site) return undefined;
  const wants = new Set<string>([site.func]);
  const t = receiverType(site.func);
  if (t) wants.add(`type:${t}`);
  const holds = new Set<string>();
  for (let j = i + 2; j < g.frames.length; j++) {
    const f = g.frames[j];
    if (f.origin === 'runtime') continue;
    holds.add(f.func);
    const rt = receiverType(f.func);
    if (rt) holds.add(`type:${rt}`);
  }
  return { group: g, site, wants, holds };
}

function intersects(a: Set<string>, b: Set<string>): boolean {
  for (const x of a) if (b.has(x)) return true;
  return false;
}

/**
 * The lock cycles among small lock-waiting groups (pairs; longer cycles are rare and named pairwise).
 * Each group is in at most one pair, the first it forms: a group already paired is the root of a
 * finding and is not asked again, so thousands of waiters on one type cost one pass, not all pairs.
 */
export function lockCycles(waits: LockWait[], maxCount: number): [LockWait, LockWait][] {
  const small = waits.filter((w) => w.group.count <= maxCount);
  const out: [LockWait, LockWait][] = [];
  // Index by what is held, so each group only meets the groups that hold what it wants.
  const holders = new Map<string, LockWait[]>();
  for (const w of small) {
    for (const h of w.holds) {
      const l = holders.get(h);
      if (l) l.push(w);
      else holders.set(h, [w]);
    }
  }
  // Per list, the entries before the cursor are paired (and stay so).
  const cursor = new Map<LockWait[], number>();
  const paired = new Set<LockWait>();
  for (const a of small) {
    if (paired.has(a)) continue;
    search: for (const want of a.wants) {
      const list = holders.get(want);
      if (!list) continue;
      let i = cursor.get(list) ?? 0;
      while (i < list.length && paired.has(list[i])) i++;
      cursor.set(list, i);
      for (; i < list.length; i++) {
        const b = list[i];
        if (b === a || paired.has(b) || !intersects(b.wants, a.holds)) continue;
        paired.add(a);
        paired.add(b);
        out.push(a.group.count >= b.group.count ? [a, b] : [b, a]);
        break search;
      }
    }
  }
  return out;
}

/**
 * A lock waiter has a visible holder when some goroutine that is not itself waiting for a lock runs
 * the same function, or a method of the same receiver type, as its lock site: the usual shape of a
 * goroutine inside the critical section (doing I/O, sleeping, computing).
 */
function hasVisibleHolder(w: LockWait, holders: { funcs: Set<string>; types: Set<string> }): boolean {
  const type = receiverType(w.site.func);
  return holders.funcs.has(w.site.func) || (type !== undefined && holders.types.has(type));
}

/** Functions and receiver types on the stacks of goroutines that are not waiting for a lock. */
function possibleHolders(groups: readonly AnalyzedGroup[], waiting: Set<AnalyzedGroup>): { funcs: Set<string>; types: Set<string> } {
  const funcs = new Set<string>();
  const types = new Set<string>();
  for (const h of groups) {
    if (waiting.has(h) || h.waitKind === 'runtime') continue;
    for (let j = 0; j < h.frames.length; j++) {
      const f = h.frames[j];
      funcs.add(f.func);
      const t = receiverType(f.func);
      if (t) types.add(t);
    }
  }
  return { funcs, types };
}

function lockText(w: LockWait): string {
  return `${shortFunc(w.site.func)} (${siteText(w.site)})`;
}

export const lockOrderDetector: Detector = {
  description: 'lock-order inversion: small lock-waiting groups that wait for each other (or with no holder anywhere), with the pile-up behind them',
  vars: ['cycle', 'pileup'],
  find(ctx, rule) {
    // With frame arguments (debug=2, crash dumps) the cycle is read from addresses, never guessed
    // from function names: two unrelated lock waits are not a cycle.
    const byAddress = lockCycleCandidates(ctx, rule);
    if (byAddress !== undefined) return byAddress;
    const groups = ctx.analysis.groups;
    const waits = groups.map(lockWait).filter((w): w is LockWait => w !== undefined);
    const maxCount = ctx.param(rule, 'maxCycleCount', 8);
    const out: Candidate[] = [];
    const used = new Set<string>();
    const emit = (roots: LockWait[], pile: LockWait[], cycle: string, facts: string[]) => {
      for (const w of [...roots, ...pile]) used.add(w.group.id);
      out.push(
        candidate(rule, roots[0].group, {
          roots: roots.slice(1).map((w) => w.group),
          consequences: pile.map((p) => p.group),
          vars: {
            cycle,
            pileup: pile.length ? ` Behind them, ${pile.map((p) => describe(p.group)).join('; ')} wait for the same locks.` : '',
          },
          facts,
        }),
      );
    };
    for (const [a, b] of lockCycles(waits, maxCount)) {
      if (used.has(a.group.id) || used.has(b.group.id)) continue;
      const wanted = new Set([...a.wants, ...b.wants]);
      const pile = waits.filter((w) => w !== a && w !== b && !used.has(w.group.id) && intersects(w.wants, wanted));
      emit([a, b], pile, `${lockText(a)} and ${lockText(b)} each wait for a lock the other holds`, [
        `cycle: ${describe(a.group)} wants the lock of ${lockText(a)}, held on the path of ${describe(b.group)}`,
        `cycle: ${describe(b.group)} wants the lock of ${lockText(b)}, held on the path of ${describe(a.group)}`,
      ]);
    }
    // No cycle visible in the frames: if nobody outside the lock waiters could be holding their locks,
    // the holders are among the waiters. The few (a cycle needs few goroutines) are the root.
    const waiting = new Set(waits.map((w) => w.group));
    const holders = possibleHolders(groups, waiting);
    const closed = waits.filter((w) => !used.has(w.group.id) && !hasVisibleHolder(w, holders));
    const small = closed.filter((w) => w.group.count <= maxCount).sort((x, y) => x.group.count - y.group.count);
    if (small.reduce((n, w) => n + w.group.count, 0) >= 2) {
      const pile = closed.filter((w) => !small.includes(w));
      const cycle =
        small.length === 1
          ? `${small[0].group.count} goroutines in ${lockText(small[0])} each hold a lock another one waits for`
          : `${small.map(lockText).join(' and ')} wait for each other's locks`;
      emit(small, pile, cycle, [
        `no goroutine outside the lock waiters runs ${[...new Set(closed.map((w) => shortFunc(w.site.func)))].join(', ')}: the holders are waiting too`,
        ...small.map((w) => `cycle: ${describe(w.group)}`),
      ]);
    }
    return out.map((c) => ({ ...c, confidence: 'medium' as const }));
  },
};
