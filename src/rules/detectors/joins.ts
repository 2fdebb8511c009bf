/**
 * `orphan-wait`: a group parked in `WaitGroup.Wait` (or errgroup/conc Wait) while no goroutine it
 * could be waiting for exists any more — nothing started by the waiting function (its `created by`
 * or closures) is in the dump. Some goroutine returned without `Done()`: the wait can never end.
 * Only decided where creators are printed (debug=2): elsewhere `go worker()` children are invisible
 * (`variant: unlinked`, neutral text). Children mostly doing I/O or running (work in flight) make it `live`.
 * A waiter whose children are all alive and idle (workers in their loops) is `variant: live`: waiting
 * for live goroutines is what Wait is for. Stuck children are left to the cascade (the root is them).
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import type { Detector } from '../candidate.js';
import { partialView } from '../context.js';
import { enclosing, isClosure, isCoalescedWaiter, isJoinWaiter, looksStuck, stackFuncs } from '../frames.js';

interface ChildIndex {
  /** Groups by the function of their `created by`. */
  readonly byCreator: Map<string, AnalyzedGroup[]>;
  /** Closure frames by their enclosing function: the group and the closure's own name. */
  readonly byEnclosing: Map<string, { group: AnalyzedGroup; func: string }[]>;
  readonly position: Map<AnalyzedGroup, number>;
}

const childIndexes = new WeakMap<Analysis, ChildIndex>();

/** Built once per analysis: which groups each function could have started. */
function childIndex(a: Analysis): ChildIndex {
  let idx = childIndexes.get(a);
  if (idx) return idx;
  const groups = a.groups;
  // Without a closure among the functions on its stacks (each listed once), no frame needs a look.
  const closures = [...stackFuncs(a)].some(isClosure);
  const byCreator = new Map<string, AnalyzedGroup[]>();
  const byEnclosing = new Map<string, { group: AnalyzedGroup; func: string }[]>();
  const position = new Map<AnalyzedGroup, number>();
  groups.forEach((h, i) => {
    position.set(h, i);
    if (h.creator !== undefined) {
      const l = byCreator.get(h.creator.func);
      if (l) l.push(h);
      else byCreator.set(h.creator.func, [h]);
    }
    for (let j = 0; closures && j < h.frames.length; j++) {
      const f = h.frames[j];
      if (!isClosure(f.func)) continue;
      const enc = enclosing(f.func);
      const l = byEnclosing.get(enc);
      if (l) l.push({ group: h, func: f.func });
      else byEnclosing.set(enc, [{ group: h, func: f.func }]);
    }
  });
  idx = { byCreator, byEnclosing, position };
  childIndexes.set(a, idx);
  return idx;
}

/** Groups that some function on `g`'s stack could have started (by `created by` or by closure). */
export function possibleChildren(g: AnalyzedGroup, a: Analysis): AnalyzedGroup[] {
  const groups = a.groups;
  const mine = new Set(g.frames.filter((f) => f.origin === 'user' || f.origin === 'dependency').map((f) => f.func));
  const { byCreator, byEnclosing, position } = childIndex(a);
  const found = new Set<AnalyzedGroup>();
  for (const fn of mine) {
    for (const h of byCreator.get(fn) ?? []) found.add(h);
    for (const c of byEnclosing.get(fn) ?? []) if (!mine.has(c.func)) found.add(c.group);
  }
  found.delete(g);
  // In the order of `groups`, as filtering it would give.
  if (found.size === 0) return [];
  const at = [...found].map((h) => position.get(h)!).sort((x, y) => x - y);
  const out: AnalyzedGroup[] = [];
  for (const i of at) out.push(groups[i]);
  return out;
}

const ACTIVE = new Set(['io', 'syscall', 'running', 'runnable', 'sleep']);

export const orphanWaitDetector: Detector = {
  description: 'join waiters: no child left = `variant: orphan` (a missing Done); only idle live children = `variant: live`',
  refine(ctx, _rule, c) {
    const g = c.root;
    // Callers of singleflight's Do wait for another caller's call, not for children (core/coalesced-wait).
    if (g && isCoalescedWaiter(g)) return null;
    if (!g || !isJoinWaiter(g)) return c;
    const kids = [...new Set([...ctx.graph.childrenOf(g).map((e) => e.child), ...possibleChildren(g, ctx.analysis)])];
    if (kids.length) {
      const stuck = kids.filter(looksStuck).reduce((n, k) => n + k.count, 0);
      // Work in flight: children doing I/O, syscalls or running outnumber the parked ones (a scrape
      // fanning out to collectors, one of which waits for a reply). Waiting for them is what Wait is for.
      const active = kids.filter((k) => ACTIVE.has(k.waitKind)).reduce((n, k) => n + k.count, 0);
      if (!stuck || active > stuck) return { ...c, variant: 'live' };
      return c;
    }
    // debug=0/1 print no `created by`: children started by `go worker()` are invisible, so "none left"
    // is no evidence. Say only what the dump shows. Nor is it in an excerpt: they may be in the part not shown.
    if (ctx.analysis.snapshot.format !== 'debug2') return { ...c, variant: 'unlinked' };
    if (partialView(ctx.analysis.snapshot)) return { ...c, variant: 'excerpt', facts: [...c.facts, 'the dump is an excerpt: no goroutine started by the waiting code is shown, which says nothing of the part not shown'] };
    return { ...c, variant: 'orphan', facts: [...c.facts, 'no goroutine started by the waiting code is left in the dump'] };
  },
};
