/**
 * Dumps that hide the wait state (debug=1 prints neither the state nor the leading `runtime.*`
 * frames, so a goroutine parked in a channel operation or a select shows only its user frame: wait
 * kind `unknown`). The state is not guessed; these detectors diagnose from what is still printed:
 *
 * - `hidden-cascade`: a join waiter (WaitGroup/errgroup Wait is visible: its `sync` frames are not
 *   hidden) whose children, linked by closures/creators and matching counts, include a group that
 *   is not one of the live per-object families of the dump: the waiters outnumber the live children
 *   by that group's count, so those are the children the parents wait for in vain. Root = that group
 *   (never the waiter); consequences = the waiters. Lower confidence than with the state printed.
 * - `hidden-state`: very large groups of identical unknown-state goroutines at one user site
 *   (≥ `bigCount`, or ≥ `minCount` holding ≥ `minShare` of the dump, or ≥ `setCount` holding
 *   ≥ `setShare` and not scaling with other groups): `variant: deep` when the site is deep inside a
 *   call rather than the goroutine's own loop.
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import { consequencesOf } from '../cascade.js';
import { candidate, siteCount, type Detector } from '../candidate.js';
import { ownerInUse } from './inflight.js';
import { proportionalSets } from './scale.js';
import { countsAgree } from '../links.js';
import { census, isJoinWaiter, isSlotWaiter, num, shortFunc, siteAtEntry, siteOf, siteText } from '../frames.js';
import type { LinkGraph } from '../links.js';

/** Groups other than `g` and `except` whose count is within `tolerance` of `g`'s. */
function familySize(g: AnalyzedGroup, a: Analysis, except: AnalyzedGroup, tolerance: number): number {
  return a.groups.filter((h) => h !== g && h !== except && h.count >= 2 && Math.abs(h.count - g.count) <= tolerance * g.count).length;
}

export interface HiddenStuck {
  readonly stuck: AnalyzedGroup[];
  readonly live: AnalyzedGroup[];
}

/**
 * Unknown-state children of join waiter `parent` that the counts single out: children whose count
 * matches ≥ `minFamily` other groups are live per-object goroutines; the rest are stuck when the
 * waiters exceed the live children by about their count.
 */
export function hiddenStuckChildren(parent: AnalyzedGroup, graph: LinkGraph, a: Analysis, minFamily = 2, tolerance = 0.02): HiddenStuck | undefined {
  if (!isJoinWaiter(parent)) return undefined;
  const kids = graph
    .childrenOf(parent)
    .map((e) => e.child)
    .filter((k) => k.waitKind === 'unknown' && k.blockingSite?.origin === 'user');
  if (!kids.length) return undefined;
  const live = kids.filter((k) => familySize(k, a, parent, tolerance) >= minFamily);
  const stuck = kids.filter((k) => !live.includes(k));
  if (!stuck.length) return undefined;
  const excess = parent.count - live.reduce((n, k) => n + k.count, 0);
  const stuckCount = stuck.reduce((n, k) => n + k.count, 0);
  if (!countsAgree(stuckCount, excess, 0.1)) return undefined;
  return { stuck: stuck.sort((x, y) => y.count - x.count), live };
}

export const hiddenCascadeDetector: Detector = {
  description: 'state hidden (debug=1): the children a WaitGroup/errgroup waiter waits for in vain, singled out by counts',
  vars: ['parentSite', 'parentFunc', 'parentWait', 'parentCall', 'liveChildren'],
  find(ctx, rule) {
    const a = ctx.analysis;
    const out = [];
    const minCount = ctx.param(rule, 'minCount', 10);
    const minFamily = ctx.param(rule, 'minFamily', 2);
    const tolerance = ctx.param(rule, 'tolerance', 0.02);
    // (Only a join waiter has stuck children here: the census lists them in group order.)
    for (const parent of census(a).joinWaiters) {
      const h = hiddenStuckChildren(parent, ctx.graph, a, minFamily, tolerance);
      if (!h || h.stuck[0].count < minCount) continue;
      const [root, ...others] = h.stuck;
      const consequences = consequencesOf(root, ctx.graph).filter((g) => g !== root);
      if (!consequences.includes(parent)) consequences.unshift(parent);
      const ps = siteOf(parent);
      const liveText = h.live.map((k) => `${num(k.count)} at ${siteText(siteOf(k))}`).join(', ');
      out.push(
        candidate(rule, root, {
          roots: others,
          consequences,
          confidence: 'medium',
          vars: {
            parentSite: siteText(ps),
            parentFunc: ps ? shortFunc(ps.func) : 'an unknown function',
            // errgroup's Go waits for a slot its running goroutines hold, where Wait waits for them all.
            parentWait: isSlotWaiter(parent) ? "errgroup's `Go` (for a free slot of its `SetLimit`)" : '`Wait`',
            parentCall: isSlotWaiter(parent) ? "errgroup's `Go`" : '`Wait`',
            liveChildren: liveText
              ? ` The other goroutines it started (${liveText}) match the counts of other per-object groups of the dump: those are live; the ${num(parent.count)} waiters exceed them by the ${num(h.stuck.reduce((n, k) => n + k.count, 0))} at ${siteText(siteOf(root))}.`
              : '',
          },
          facts: [
            'the dump hides the wait state (debug=1): the link is inferred from closures/creators and matching counts',
            ...(liveText ? [`live children of the same waiters: ${liveText} (equal to other per-object groups)`] : []),
            'a debug=2 or debug=0 dump of the same process would show what they are parked on',
          ],
        }),
      );
    }
    return out;
  },
};

/** `g` scales with other big groups (the `proportional` rule's default sets). */
function inProportionalSet(a: Analysis, g: AnalyzedGroup): boolean {
  return proportionalSets(a, 100, 3, 0.02).some((set) => set.includes(g));
}

export const hiddenStateDetector: Detector = {
  description: 'state hidden (debug=1): keeps very large groups of identical unknown-state goroutines; `variant: deep` when parked deep in a call',
  refine(ctx, rule, c) {
    const g = c.root;
    if (!g || g.waitKind !== 'unknown') return null;
    const a = ctx.analysis;
    const count = siteCount(c);
    const share = a.total ? count / a.total : 0;
    const big = count >= ctx.param(rule, 'bigCount', 1000);
    const dominant = count >= ctx.param(rule, 'minCount', 50) && share >= ctx.param(rule, 'minShare', 0.5);
    // Every set above the thresholds, not only the largest: a second set of hundreds beside the
    // biggest is a second leak, unless it scales with other groups (per-object workers).
    const set = count >= ctx.param(rule, 'setCount', 500) && share >= ctx.param(rule, 'setShare', 0.1) && !inProportionalSet(a, g);
    if (!big && !dominant && !set) return null;
    // Loops whose owner objects other goroutines are still working with: a request in flight.
    if (!big && ownerInUse(a, g)) return null;
    return {
      ...c,
      confidence: 'low',
      ...(siteAtEntry(g) ? {} : { variant: 'deep' }),
      facts: [...c.facts, 'the dump hides the wait state (debug=1); a debug=2 or debug=0 dump of the same process would show it'],
    };
  },
};
