/**
 * Cascades: goroutines stuck because goroutines they started are stuck. The root is always the
 * stuck child (a blocked send, a receive nobody serves…), never the parent waiting in
 * `WaitGroup.Wait` / `errgroup.Wait`; the waiting parents, and whatever waits on them, are its
 * consequences. One finding per root.
 */
import type { AnalyzedGroup } from '../analyze/types.js';
import { isJoinWaiter, isParked, looksStuck } from './frames.js';
import type { Candidate, Detector } from './candidate.js';
import type { Edge, LinkGraph } from './links.js';

const MAX_DEPTH = 4;

/** Does the parent of `e` wait for its child? Joins always; other parked parents on strong links only. */
function waitsFor(e: Edge): boolean {
  if (isJoinWaiter(e.parent)) return true;
  if (!isParked(e.parent)) return false;
  return e.via !== 'creator' && ['chan-receive', 'select', 'cond'].includes(e.parent.waitKind);
}

/** Groups that wait, directly or through others, for `root`; nearest first. */
export function consequencesOf(root: AnalyzedGroup, graph: LinkGraph): AnalyzedGroup[] {
  const out: AnalyzedGroup[] = [];
  const seen = new Set([root.id]);
  let frontier = [root];
  for (let depth = 0; depth < MAX_DEPTH && frontier.length; depth++) {
    const next: AnalyzedGroup[] = [];
    for (const g of frontier) {
      for (const e of graph.parentsOf(g)) {
        if (seen.has(e.parent.id) || !waitsFor(e)) continue;
        seen.add(e.parent.id);
        out.push(e.parent);
        next.push(e.parent);
      }
    }
    frontier = next;
  }
  return out;
}

/**
 * Where a stuck join waiter's trouble starts: follow children that it waits for down to a parked
 * group that is not itself a join waiter (the largest, on ties). Returns `g` when there is none.
 */
export function rootOf(g: AnalyzedGroup, graph: LinkGraph): AnalyzedGroup {
  let cur = g;
  const seen = new Set<string>([g.id]);
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if (!isJoinWaiter(cur)) break;
    const kids = graph
      .childrenOf(cur)
      .filter((e) => waitsFor(e) && looksStuck(e.child) && !seen.has(e.child.id))
      .map((e) => e.child)
      .sort((a, b) => (isJoinWaiter(a) ? 1 : 0) - (isJoinWaiter(b) ? 1 : 0) || b.count - a.count);
    if (!kids.length) break;
    cur = kids[0];
    seen.add(cur.id);
  }
  return cur;
}

/** `a`, then the groups of `b` not in it yet, in order (a set of what is in: both may hold thousands). */
export function union(a: readonly AnalyzedGroup[], b: readonly AnalyzedGroup[]): AnalyzedGroup[] {
  const out = [...a];
  if (!b.length) return out;
  const seen = new Set(a);
  for (const g of b) {
    if (seen.has(g)) continue;
    seen.add(g);
    out.push(g);
  }
  return out;
}

/** Re-root a candidate on what its group waits for, and attach whoever waits on the root. */
export function withCascade(graph: LinkGraph, c: Candidate): Candidate {
  if (!c.root) return c;
  const root = rootOf(c.root, graph);
  const consequences = consequencesOf(root, graph).filter((g) => g !== root);
  if (root === c.root) return { ...c, consequences: union(c.consequences, consequences) };
  return { ...c, root, rerooted: true, consequences: union(consequences, c.consequences) };
}

export const cascadeDetector: Detector = {
  description: 'root = the stuck child, consequences = the WaitGroup/errgroup parents waiting for it (same as `cascade: true`)',
  refine: (ctx, _rule, c) => withCascade(ctx.graph, c),
};
