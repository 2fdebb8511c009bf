/**
 * Detectors about how groups compare with the rest of the snapshot.
 * - `proportional`: several big groups with (nearly) the same count are per-object workers that scale
 *   together (N consumers × 5 goroutines each): worth one info finding, and a reason to call a big
 *   loop group "proportional" rather than runaway.
 * - `loops`: marks a candidate `variant: proportional` when its group belongs to such a set.
 * - `long-park`: keeps a candidate only when its group has waited far longer than the other parked
 *   goroutines (wait minutes are stamped at GC, so a long wait alone is weak evidence).
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import { candidate, type Detector, type ResolvedRule, type RuleContext } from '../candidate.js';
import { census, isJoinWaiter, isParked, looksStuck, num } from '../frames.js';
import { busySenders, inFlightFact, ownerInUse } from './inflight.js';
import { roleOf } from './roles.js';

const memo = new WeakMap<Analysis, Map<string, AnalyzedGroup[][]>>();

/** Sets of ≥ minGroups groups of ≥ minCount goroutines whose counts lie within `tolerance` of the largest. */
export function proportionalSets(a: Analysis, minCount: number, minGroups: number, tolerance: number): AnalyzedGroup[][] {
  const k = `${minCount}|${minGroups}|${tolerance}`;
  const cached = memo.get(a)?.get(k);
  if (cached) return cached;
  // (No group that large: no set, without a pass over the groups.)
  const big = census(a).maxCount < minCount ? [] : a.groups.filter((g) => g.count >= minCount).sort((x, y) => y.count - x.count);
  const sets: AnalyzedGroup[][] = [];
  let i = 0;
  while (i < big.length) {
    let j = i + 1;
    while (j < big.length && big[j].count >= big[i].count * (1 - tolerance)) j++;
    if (j - i >= minGroups) sets.push(big.slice(i, j));
    i = j;
  }
  if (!memo.has(a)) memo.set(a, new Map());
  memo.get(a)!.set(k, sets);
  return sets;
}

/**
 * Proportional sets, with cascade chains handled: a child under a WaitGroup parent has the parent's
 * count by construction, which makes a chain, not independent per-object goroutines. A chain whose
 * children look stuck is taken out of the set (it is a cascade for the other rules); a chain of idle
 * children (a per-session `Wait` over per-session loops) stays in the set but counts as ONE group
 * towards `minGroups`.
 */
export function setsFor(ctx: RuleContext, rule: ResolvedRule): AnalyzedGroup[][] {
  const minGroups = ctx.param(rule, 'minGroups', 3);
  const sets = proportionalSets(ctx.analysis, ctx.param(rule, 'minCount', 100), minGroups, ctx.param(rule, 'tolerance', 0.02));
  const out: AnalyzedGroup[][] = [];
  for (const list of sets) {
    const set = new Set(list);
    const joinParent = (g: AnalyzedGroup) => ctx.graph.parentsOf(g).find((e) => set.has(e.parent) && isJoinWaiter(e.parent))?.parent;
    const kidsInSet = (g: AnalyzedGroup) => (isJoinWaiter(g) ? ctx.graph.childrenOf(g).filter((e) => set.has(e.child)).map((e) => e.child) : []);
    const stuckChain = new Set<AnalyzedGroup>();
    const units = new Set<AnalyzedGroup>();
    for (const g of list) {
      const kids = kidsInSet(g);
      if (kids.length && kids.some(looksStuck)) {
        stuckChain.add(g);
        for (const k of kids) stuckChain.add(k);
      }
    }
    const kept = list.filter((g) => !stuckChain.has(g) && !(joinParent(g) && stuckChain.has(joinParent(g)!)));
    for (const g of kept) units.add(joinParent(g) && kept.includes(joinParent(g)!) ? joinParent(g)! : g);
    if (units.size >= minGroups) out.push(kept);
  }
  return out;
}

export const proportionalDetector: Detector = {
  description: 'several big groups with nearly equal counts: per-object workers that scale together',
  vars: ['setSize', 'each', 'roles'],
  find(ctx, rule) {
    return setsFor(ctx, rule).map((set) => {
      const [root, ...related] = set;
      const goroutines = set.reduce((n, g) => n + g.count, 0);
      return candidate(rule, root, {
        related,
        goroutines,
        vars: { setSize: String(set.length), each: `~${num(Math.round(goroutines / set.length))}`, roles: set.map(roleOf).join(', ') },
        facts: [`${set.length} groups of ${set.map((g) => num(g.count)).join(', ')} goroutines`],
      });
    });
  },
};

const members = new WeakMap<RuleContext, Map<string, Set<AnalyzedGroup>>>();

/** Every group of every proportional set of this rule's params, once per run. */
function memberSet(ctx: RuleContext, rule: ResolvedRule): Set<AnalyzedGroup> {
  let byRule = members.get(ctx);
  if (!byRule) members.set(ctx, (byRule = new Map()));
  let set = byRule.get(rule.id);
  if (!set) byRule.set(rule.id, (set = new Set(setsFor(ctx, rule).flat())));
  return set;
}

export const loopsDetector: Detector = {
  description: 'marks a loop group that scales with others (params of `proportional`) as `variant: proportional`; info when its owner objects are in use by busy goroutines (a request in flight)',
  refine(ctx, rule, c) {
    if (!c.root) return c;
    if (memberSet(ctx, rule).has(c.root)) return { ...c, variant: 'proportional' };
    // Per-request loops beside busy users of their objects: in flight, unless past a process-size pile.
    const owner = c.root.count < ctx.param(rule, 'inFlightMax', 1000) ? ownerInUse(ctx.analysis, c.root) : undefined;
    if (!owner) return c;
    return { ...c, severity: 'info', variant: 'info', facts: [...c.facts, inFlightFact(owner)] };
  },
};

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const parkedWaits = new WeakMap<Analysis, number[]>();

/**
 * The median longest wait of the parked groups other than `g` (one of the analysis's groups): the
 * waits of all parked groups are sorted once per analysis, not once per candidate, and `g`'s own
 * wait is left out by position.
 */
function medianWaitBeside(a: Analysis, g: AnalyzedGroup): number {
  let all = parkedWaits.get(a);
  if (!all) {
    all = a.groups.filter(isParked).map((x) => x.wait?.max ?? 0).sort((x, y) => x - y);
    parkedWaits.set(a, all);
  }
  if (!isParked(g)) return median(all);
  const n = all.length - 1;
  if (n <= 0) return 0;
  // Without one occurrence of g's wait at `at`, element i of the rest is all[i] before it, all[i + 1] from it.
  const v = g.wait?.max ?? 0;
  let at = 0;
  for (let hi = all.length; at < hi; ) {
    const mid = (at + hi) >> 1;
    if (all[mid] < v) at = mid + 1;
    else hi = mid;
  }
  const m = Math.floor(n / 2);
  return m < at ? all[m] : all[m + 1];
}

export const longParkDetector: Detector = {
  description: 'keeps groups parked at least `factor` × longer than the median of the other parked groups',
  vars: ['typical'],
  refine(ctx, rule, c) {
    const g = c.root;
    if (!g?.wait) return null;
    const typical = medianWaitBeside(ctx.analysis, g);
    const factor = ctx.param(rule, 'factor', 3);
    if (g.wait.min < factor * typical) return null;
    return {
      ...c,
      vars: { ...c.vars, typical: `${typical} minute${typical === 1 ? '' : 's'}` },
      facts: [...c.facts, `other parked goroutines: median wait ${typical} minutes`],
    };
  },
};

export const busySendersDetector: Detector = {
  description: 'receivers beside running/runnable goroutines of the program started elsewhere (busy possible senders): info, never "nobody sends"',
  refine(ctx, rule, c) {
    if (!c.root || c.root.leaked || c.severity === 'info') return c;
    // A receiver that has waited a minute or more is not waiting on a sender still computing.
    if (c.root.wait?.stamped) return c;
    const n = busySenders(ctx.analysis, c.root);
    if (n < ctx.param(rule, 'minBusySenders', 2)) return c;
    return {
      ...c,
      severity: 'info',
      variant: c.variant ?? 'info',
      facts: [...c.facts, `${n} goroutines of the program, started elsewhere, are running or runnable: possible senders still computing, so nobody-sends is not claimed from one snapshot`],
    };
  },
};
