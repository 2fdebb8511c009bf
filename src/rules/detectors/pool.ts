/**
 * `pool`: tells a bounded idle worker pool from leaked receivers. Workers of a pool are few, all
 * started at one creator site, and each loops receiving from one channel (`for job := range jobs`,
 * compiled to `runtime.chanrecv2`, or a receive in the goroutine's own entry function): idle capacity,
 * not a leak. Marks the candidate `variant: pool` so the rule's `variants.pool` text and severity apply.
 */
import type { AnalyzedGroup } from '../../analyze/types.js';
import type { Detector } from '../candidate.js';
import { num, receivesInRange, siteAtEntry } from '../frames.js';

export function looksLikePool(g: AnalyzedGroup, maxWorkers: number): boolean {
  if (g.count > maxWorkers) return false;
  if (!['chan-receive', 'select', 'cond', 'unknown'].includes(g.waitKind)) return false;
  // `v := <-c` (chanrecv1) receives once: a worker loop receives with `range` / `v, ok :=`.
  if (g.frames.some((f) => f.func === 'runtime.chanrecv1')) return false;
  // The receive sits in the worker's own loop, not in a callback or deep in a call chain.
  const loopAtEntry = siteAtEntry(g);
  return receivesInRange(g) || loopAtEntry;
}

export const poolDetector: Detector = {
  description: 'marks small groups of identical receivers started at one site as an idle worker pool (variant `pool`)',
  refine(ctx, rule, c) {
    if (!c.root) return c;
    const max = ctx.param(rule, 'maxWorkers', 64);
    if (!looksLikePool(c.root, max)) return c;
    return {
      ...c,
      variant: 'pool',
      facts: [...c.facts, `${num(c.root.count)} identical workers from one creator, at most ${max}: looks like a bounded pool`],
    };
  },
};
