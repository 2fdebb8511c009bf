/**
 * `pool`: tells a bounded idle worker pool from leaked receivers. Workers of a pool are few, all
 * started at one creator site, and each loops receiving from one channel (`for job := range jobs`,
 * compiled to `runtime.chanrecv2`, or a receive in the goroutine's own entry function): idle capacity,
 * not a leak. So is a small group started by `main`, `init` or a constructor that has waited about
 * as long as the process has run (the dump's longest wait, at least `minUptimeMinutes`). Marks the
 * candidate `variant: pool` so the rule's `variants.pool` text and severity apply.
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import type { Detector } from '../candidate.js';
import { receiverType } from '../../analyze/closures.js';
import { STARTUP, census, enclosing, isClosure, num, receivesInRange, siteAtEntry, userEntry } from '../frames.js';

export function looksLikePool(g: AnalyzedGroup, maxWorkers: number): boolean {
  if (g.count > maxWorkers) return false;
  if (!['chan-receive', 'select', 'cond', 'unknown'].includes(g.waitKind)) return false;
  // `v := <-c` (chanrecv1) receives once: a worker loop receives with `range` / `v, ok :=`, or calls
  // a dequeue helper of its own object (`worker` → `p.take()`) from a constructor-started loop.
  if (g.frames.some((f) => f.func === 'runtime.chanrecv1')) return dequeueHelper(g);
  // The receive sits in the worker's own loop, not in a callback or deep in a call chain.
  const loopAtEntry = siteAtEntry(g);
  return receivesInRange(g) || loopAtEntry;
}

export { STARTUP };

/**
 * Workers a constructor started whose receive sits in a method of the same object as the goroutine's
 * entry (`(*Pool).worker` → `(*Pool).take`, which receives): the pool's own dequeue helper.
 */
function dequeueHelper(g: AnalyzedGroup): boolean {
  const site = g.blockingSite;
  const outer = userEntry(g);
  // `go p.worker(i)` runs through a wrapper closure of the constructor (`NewPool.func1`).
  const entry = outer && isClosure(outer.func) && outer.index > 0 ? g.frames[outer.index - 1] : outer;
  if (!site || !entry || site.index >= entry.index || !g.creator || !STARTUP.test(enclosing(g.creator.func))) return false;
  const t = receiverType(site.func);
  return t !== undefined && receiverType(entry.func) === t;
}

/**
 * Started at start-up and parked about as long as the process has run (the longest wait of the dump
 * stands for its uptime): a bounded pool that has been idle since the beginning, wherever its
 * receive sits in the call chain.
 */
export function startupPool(g: AnalyzedGroup, a: Analysis, maxWorkers: number, minUptime = 30): boolean {
  if (g.count > maxWorkers || !g.wait || !g.creator || !STARTUP.test(enclosing(g.creator.func))) return false;
  const longest = census(a).maxWait;
  return (longest >= minUptime && g.wait.min >= 0.9 * longest) || wokenPool(g, longest);
}

/**
 * Workers started together by one constructor whose waits range from minutes to the process's uptime:
 * some have been idle since the start, others received work since (their wait started over), so a
 * producer sends to them now and then. An idle pool, not receivers nobody feeds. Needs a wait printed
 * for nearly every member (so the spread is seen, not guessed) and the longest as old as the process.
 */
function wokenPool(g: AnalyzedGroup, longest: number): boolean {
  const w = g.wait!;
  return g.count >= 2 && w.stamped >= 0.9 * g.count && longest >= 1 && w.max >= 0.9 * longest && w.min < w.max;
}

export const poolDetector: Detector = {
  description: 'marks small groups of identical receivers started at one site as an idle worker pool (variant `pool`)',
  refine(ctx, rule, c) {
    if (!c.root) return c;
    const max = ctx.param(rule, 'maxWorkers', 64);
    if (!looksLikePool(c.root, max) && !startupPool(c.root, ctx.analysis, max, ctx.param(rule, 'minUptimeMinutes', 30))) return c;
    return {
      ...c,
      variant: 'pool',
      facts: [...c.facts, `${num(c.root.count)} identical workers from one creator, at most ${max}: looks like a bounded pool`],
    };
  },
};
