/**
 * Links between analyzed groups: which goroutines started which. They feed the cascade diagnosis
 * (the root is the goroutine blocked on its own, e.g. a sender nobody receives from; the consequences
 * are the goroutines waiting for it, e.g. a parent in errgroup.Wait).
 *
 * Two sources, never mixed for one child group:
 * 1. `creator-id` — `created by … in goroutine N` (Go 1.21+, debug=2), resolved by the reader into
 *    `Snapshot.links`, mapped here onto analyzed groups. Exact. When a child's creator ids are
 *    printed but its creator is gone, nothing is inferred: the ids say the parent exited.
 * 2. `shared-frames` — inferred where no ids are printed (debug=0/1, debug=2 before Go 1.21). A
 *    goroutine is started by a function F that executed the `go` statement. A parent still blocked
 *    inside F (it waits for what it spawned: errgroup.Wait, wg.Wait, a receive) has F as a frame of
 *    its stack. F is read from the child:
 *    - its `created by` function (debug=2);
 *    - its outermost frames, when they are closures: `F.funcN`, `F.gowrapN` (Go 1.21+ go-statement
 *      wrappers), `F.funcN.M` (nested) are closures of F. Walking up from the bottom while frames
 *      are closures gives successive candidates: for a goroutine started with errgroup,
 *      `errgroup.(*Group).Go.func1` names `errgroup.(*Group).Go` (the helper that ran `go`, which has
 *      returned), then `(*Store).listAndWatch.func3` names `(*Store).listAndWatch`, which called
 *      eg.Go and now sits in eg.Wait: the parent.
 *    The first candidate (closest to the `go` statement) found on some other group's stack wins.
 *    Several groups blocked inside F at different lines share the child, in proportion to their counts
 *    (at most MAX_INFERRED_PARENTS of them, the largest).
 *
 * Limits of the inference (documented, not hidden):
 * - `go worker()` started from a plain function leaves no closure: in debug=0/1 nothing names F, so
 *   no link is inferred (debug=2 still has `created by`).
 * - A closure defined in F but stored and started later by someone else names F wrongly.
 * - A parent that returned from F (fire-and-forget) is not on any stack: no link, which is right for
 *   the cascade (nothing waits for the child).
 * - Counts of inferred links are estimates: all goroutines of the child group, split between parents.
 */
import type { Snapshot } from '../model/dump.js';
import { enclosingNames } from './closures.js';
import { madeOrder, ownerGroups } from './group.js';
import { keptAt, keyStart } from './signature.js';
import type { AnalyzedGroup, GroupLink } from './types.js';

/** How many closures up from the bottom of a child's stack are read for candidates. */
const MAX_CLOSURE_DEPTH = 4;
/**
 * Parents kept per inferred child: the largest groups blocked inside the spawner. A function on the
 * stacks of many groups (a request handler blocked at many points) is weak evidence for each of
 * them, and linking every child to every such group would grow links as children × parents.
 */
export const MAX_INFERRED_PARENTS = 4;

/** Candidate spawner functions of a child group, most specific first. */
export function spawnerCandidates(child: AnalyzedGroup): string[] {
  const out: string[] = [];
  out.length = candidatesInto(child, out);
  return out;
}

/**
 * `spawnerCandidates(child)` written to the front of `out` (a scratch array, reused: one per child
 * of 20,000 cost as much garbage as the rest of correlate); returns how many.
 */
function candidatesInto(child: AnalyzedGroup, out: string[]): number {
  let n = 0;
  if (child.creator) out[n++] = child.creator.func;
  // The signature's frames (`keyFrames`) from the bottom, read in place.
  const frames = child.frames;
  const start = keyStart(frames);
  for (let i = frames.length - 1, depth = 0; i >= Math.max(start, 0) && depth < MAX_CLOSURE_DEPTH; i--) {
    if (!keptAt(frames[i], start)) continue;
    depth++;
    const enclosing = enclosingNames(frames[i].func);
    if (enclosing.length === 0) break;
    for (let e = 0; e < enclosing.length; e++) {
      const f = enclosing[e];
      let seen = false;
      for (let k = 0; k < n && !seen; k++) seen = out[k] === f;
      if (!seen) out[n++] = f;
    }
  }
  return n;
}

/**
 * Links between `groups` (of `snapshot`). `funcs`, when the caller has it: every function on a stack
 * of the groups, to skip the pass over every frame for spawners on none of them.
 */
export function correlate(snapshot: Snapshot, groups: readonly AnalyzedGroup[], funcs?: ReadonlySet<string>): GroupLink[] {
  // Each link with its groups (the same ones for one key).
  const links = new Map<string, LinkEnds>();
  const add = (l: GroupLink, child: AnalyzedGroup, parent: AnalyzedGroup): void => {
    const k = `${l.child}\u0000${l.parent}`;
    const prev = links.get(k)?.link;
    links.set(k, { link: prev ? { ...prev, count: prev.count + l.count } : l, child, parent });
  };

  const owner = snapshot.links.length > 0 ? ownerGroups(snapshot, groups) : [];
  for (const l of snapshot.links) {
    const child = owner[l.child];
    const parent = owner[l.parent];
    // A group starting goroutines of its own shape (recursion, worker pools refilling themselves)
    // says nothing about a cascade.
    if (!child || !parent || child === parent) continue;
    add({ child: child.id, parent: parent.id, count: l.count, via: 'creator-id' }, child, parent);
  }

  // Candidates of every child that has no creator ids, then the largest parents of each candidate
  // found in one pass over the groups' frames (for those functions only).
  const { candidates, spawners } = childCandidates(snapshot, groups, funcs);
  const topParents = spawners.size > 0 ? largestByFunction(groups, spawners, MAX_INFERRED_PARENTS + 1) : undefined;
  for (let c = 0; topParents !== undefined && c < groups.length; c++) {
    const child = groups[c];
    const cs = candidates.get(child);
    if (cs === undefined) continue;
    for (const spawner of cs) {
      const top = topParents.get(spawner);
      if (top === undefined) continue;
      const parents = top.filter((p) => p !== child).slice(0, MAX_INFERRED_PARENTS);
      if (parents.length === 0) continue;
      const sum = parents.reduce((s, p) => s + p.count, 0);
      for (const p of parents) {
        const count = parents.length === 1 ? child.count : Math.max(1, Math.round((child.count * p.count) / sum));
        add({ child: child.id, parent: p.id, count, via: 'shared-frames', spawner }, child, p);
      }
      break;
    }
  }
  const sorted = [...links.values()].sort(
    ({ link: a }, { link: b }) => b.count - a.count || cmp(a.child, b.child) || cmp(a.parent, b.parent),
  );
  const out = sorted.map((e) => e.link);
  endsMemo.set(out, { groups, children: sorted.map((e) => e.child), parents: sorted.map((e) => e.parent) });
  return out;
}

interface LinkEnds {
  readonly link: GroupLink;
  readonly child: AnalyzedGroup;
  readonly parent: AnalyzedGroup;
}

/** The groups of the links `correlate` returned (by the array), and the groups it linked among. */
const endsMemo = new WeakMap<readonly GroupLink[], { groups: readonly AnalyzedGroup[]; children: AnalyzedGroup[]; parents: AnalyzedGroup[] }>();

/**
 * The child and parent group of each of `links`, in order, where `correlate` made `links` from
 * `groups` (an analysis's own `links` and `groups`): the groups themselves, as their ids would find
 * them among `groups`, without the id of every group (a SHA-1 each: 62 ms on 20,000 groups, where
 * a dump prints creator ids). Else undefined.
 */
export function linkedGroups(
  links: readonly GroupLink[],
  groups: readonly AnalyzedGroup[],
): { readonly children: readonly AnalyzedGroup[]; readonly parents: readonly AnalyzedGroup[] } | undefined {
  const e = endsMemo.get(links);
  return e !== undefined && e.groups === groups ? e : undefined;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The spawner candidates of each group without creator ids, and those candidates together. A
 * spawner on no stack has no parent (largestByFunction would not list it): with `funcs`, a child
 * none of whose candidates is on a stack is left out, and so are such spawners. Groups are read in
 * the order they lie in memory (`madeOrder`), and in a function of their own (V8 compiles a long
 * loop with the code after it, and leaving the loop threw that code away).
 */
function childCandidates(
  snapshot: Snapshot,
  groups: readonly AnalyzedGroup[],
  funcs: ReadonlySet<string> | undefined,
): { candidates: Map<AnalyzedGroup, string[]>; spawners: Set<string> } {
  const candidates = new Map<AnalyzedGroup, string[]>();
  const spawners = new Set<string>();
  const scratch: string[] = [];
  const made = madeOrder(groups);
  for (let c = 0; c < made.length; c++) {
    const g = made[c];
    if (hasCreatorIds(snapshot, g)) continue;
    const n = candidatesInto(g, scratch);
    let named = false;
    for (let k = 0; k < n; k++) {
      if (funcs !== undefined && !funcs.has(scratch[k])) continue;
      spawners.add(scratch[k]);
      named = true;
    }
    if (named) candidates.set(g, scratch.slice(0, n));
  }
  return { candidates, spawners };
}

/**
 * For each function of `funcs`, the `n` groups with most goroutines that have it among their
 * signature frames, largest first (ties by id, then in group order). Functions on no stack are
 * absent. Kept `n` at a time: a function on every stack (a request handler, a recursion) would
 * otherwise list and sort every group.
 */
function largestByFunction(groups: readonly AnalyzedGroup[], funcs: ReadonlySet<string>, n: number): Map<string, AnalyzedGroup[]> {
  const top = new Map<string, AnalyzedGroup[]>();
  for (const g of groups) {
    const frames = g.frames;
    const start = keyStart(frames);
    for (let i = Math.max(start, 0); i < frames.length; i++) {
      const func = frames[i].func;
      if (!funcs.has(func) || !keptAt(frames[i], start)) continue;
      let list = top.get(func);
      if (list === undefined) top.set(func, (list = []));
      // Each group once per function: groups come in order, so a repeat ends the list with g.
      else if (list.includes(g)) continue;
      let at = list.length;
      while (at > 0 && before(g, list[at - 1])) at--;
      if (at < n) {
        list.splice(at, 0, g);
        if (list.length > n) list.pop();
      }
    }
  }
  return top;
}

/** Sorts before: more goroutines, then the smaller id. */
function before(a: AnalyzedGroup, b: AnalyzedGroup): boolean {
  return a.count > b.count || (a.count === b.count && a.id < b.id);
}

/** Whether any member printed `created by … in goroutine N`: then the ids, not inference, decide. */
function hasCreatorIds(snapshot: Snapshot, g: AnalyzedGroup): boolean {
  // One member: the group's creator is the member's, with the same ids (sorted), or none.
  if (g.members.length === 1) return (g.creator?.goroutineIds.length ?? 0) > 0;
  for (let i = 0; i < g.members.length; i++) if ((snapshot.groups[g.members[i]].creator?.goroutineIds.length ?? 0) > 0) return true;
  return false;
}
