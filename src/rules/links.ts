/**
 * Who started whom, for cascades. `creator-id` links (`created by … in goroutine N`, Go 1.21+) are
 * exact and taken as they are. Inferred links — the analyzer's `shared-frames`, and ours where the
 * analysis has none for a child (closure `F.funcN` ⇒ a parent inside `F`; `created by F` ⇒ a parent
 * with `F` on its stack) — are kept only when the counts agree within a tolerance: the child, or all
 * children of that parent started by the same closure together (a parent in `eg.Wait` may wait for a
 * blocked sender and for healthy siblings of it), ≈ k × the parent's count.
 */
import { linkedGroups } from '../analyze/index.js';
import type { Analysis, AnalyzedGroup } from '../analyze/types.js';
import { census, enclosing, isClosure, isJoinWaiter, isParked, receiverType, spawnersOf, stackFuncs, userEntry, type GroupCensus } from './frames.js';

const LOCK_KINDS = new Set(['mutex', 'rwmutex']);

export type LinkVia = 'creator-id' | 'shared-frames' | 'closure' | 'creator' | 'receiver';

export interface Edge {
  readonly parent: AnalyzedGroup;
  readonly child: AnalyzedGroup;
  readonly via: LinkVia;
}

interface Proposal extends Edge {
  /** Children proposed for one parent under one sibling key are counted together. */
  readonly sibling: string;
}

/**
 * Groups are told apart by object, not by id: an id is the SHA-1 of the group's key, made when first
 * read (analyze/group-key.ts), and keying every group, its edges and queries by id hashed every
 * group's key (62 ms on 20,000 groups where a dump prints creator ids).
 */
export class LinkGraph {
  private readonly up = new Map<AnalyzedGroup, Edge[]>();
  private readonly down = new Map<AnalyzedGroup, Edge[]>();

  constructor(readonly analysis: Analysis, readonly tolerance = 0.1) {
    const links = analysis.links;
    const ends = links.length ? (linkedGroups(links, analysis.groups) ?? groupsById(links, analysis.groups)) : undefined;
    const proposals: Proposal[] = [];
    const linked = new Set<AnalyzedGroup>();
    const siblings = new SiblingKeys(stackFuncs(analysis));
    for (let i = 0; ends !== undefined && i < links.length; i++) {
      const l = links[i];
      const parent = ends.parents[i];
      const child = ends.children[i];
      if (!parent || !child || parent === child) continue;
      linked.add(child);
      if (l.via === 'creator-id') this.add({ parent, child, via: l.via });
      else proposals.push({ parent, child, via: l.via, sibling: siblings.of(child, l.spawner) });
    }
    proposals.push(...infer(analysis.groups, linked, siblings, census(analysis)));
    this.accept(proposals);
  }

  parentsOf(g: AnalyzedGroup): readonly Edge[] {
    return this.up.get(g) ?? [];
  }

  childrenOf(g: AnalyzedGroup): readonly Edge[] {
    return this.down.get(g) ?? [];
  }

  private accept(proposals: Proposal[]): void {
    // Parent → sibling key → children's goroutines.
    const sums = new Map<AnalyzedGroup, Map<string, number>>();
    for (const p of proposals) {
      let bySibling = sums.get(p.parent);
      if (!bySibling) sums.set(p.parent, (bySibling = new Map()));
      bySibling.set(p.sibling, (bySibling.get(p.sibling) ?? 0) + p.child.count);
    }
    for (const p of proposals) {
      const sum = sums.get(p.parent)!.get(p.sibling)!;
      // Children queued on a lock under join waiters (a pile-up behind `Wait`): each waiter waits for
      // at least one, and fan-outs vary (2 or 3 peers per query), so they need only outnumber it.
      const fanOut = isJoinWaiter(p.parent) && LOCK_KINDS.has(p.child.waitKind) && sum >= p.parent.count * (1 - this.tolerance);
      const ok = countsAgree(p.child.count, p.parent.count, this.tolerance) || countsAgree(sum, p.parent.count, this.tolerance) || fanOut;
      if (ok) this.add(p);
    }
  }

  private add(e: Edge): void {
    const ups = this.up.get(e.child) ?? [];
    if (ups.some((x) => x.parent === e.parent)) return;
    ups.push({ parent: e.parent, child: e.child, via: e.via });
    this.up.set(e.child, ups);
    const downs = this.down.get(e.parent) ?? [];
    downs.push({ parent: e.parent, child: e.child, via: e.via });
    this.down.set(e.parent, downs);
  }
}

/** The child and parent group of each link, found by id among `groups` (for links `correlate` did not make from them). */
function groupsById(links: Analysis['links'], groups: readonly AnalyzedGroup[]): { children: (AnalyzedGroup | undefined)[]; parents: (AnalyzedGroup | undefined)[] } {
  const byId = new Map<string, AnalyzedGroup>();
  for (const g of groups) byId.set(g.id, g);
  return { children: links.map((l) => byId.get(l.child)), parents: links.map((l) => byId.get(l.parent)) };
}

/**
 * Sibling keys: the closure of `child` that `spawner` encloses (`listAndWatch.func3` for
 * `listAndWatch`), else the spawner. Asked once per proposal (a parent of thousands of children gets
 * thousands): a spawner that encloses no closure of the dump needs no look at the child's frames,
 * and its key is made once.
 */
class SiblingKeys {
  /** Functions that some closure on a stack of the dump is in. */
  private readonly encloses = new Set<string>();
  private readonly bySpawner = new Map<string, string>();

  /** `funcs`: every function on a stack of the dump (`stackFuncs`). */
  constructor(readonly funcs: ReadonlySet<string>) {
    for (const f of funcs) if (isClosure(f)) this.encloses.add(enclosing(f));
  }

  of(child: AnalyzedGroup, spawner: string | undefined): string {
    if (!spawner) return `child:${child.id}`;
    if (this.encloses.has(spawner)) {
      for (let i = child.frames.length - 1; i >= 0; i--) {
        const f = child.frames[i].func;
        if (isClosure(f) && enclosing(f) === spawner) return f;
      }
    }
    let k = this.bySpawner.get(spawner);
    if (k === undefined) {
      k = `spawner:${spawner}`;
      this.bySpawner.set(spawner, k);
    }
    return k;
  }
}

/** Our own proposals for children the analysis did not link: outermost closures, then `created by`. */
function infer(groups: readonly AnalyzedGroup[], linked: Set<AnalyzedGroup>, siblings: SiblingKeys, { joinWaiters: joins, spawners }: GroupCensus): Proposal[] {
  // No child names a function on some stack, and no join waiter to link by receiver: nothing to infer.
  if (!joins.length && ![...spawners].some((f) => siblings.funcs.has(f))) return [];
  // The unlinked children that name a spawner on some stack, and the spawners to index (a dump of
  // distinct stacks names a few functions: indexing every function of every frame would cost as much
  // as the rest of the rules).
  const holders = new Map<string, AnalyzedGroup[]>();
  const spawned: AnalyzedGroup[] = [];
  const scratch: string[] = [];
  for (const g of groups) {
    if (linked.size && linked.has(g)) continue;
    let named = false;
    for (const spawner of spawnersOf(g, scratch)) {
      if (!siblings.funcs.has(spawner)) continue;
      if (!holders.has(spawner)) holders.set(spawner, []);
      named = true;
    }
    if (named) spawned.push(g);
  }
  if (holders.size) {
    for (const g of groups) {
      for (let i = 0; i < g.frames.length; i++) {
        const list = holders.get(g.frames[i].func);
        // Groups are indexed in order: a function seen before on this stack ends its list with g.
        if (list !== undefined && list[list.length - 1] !== g) list.push(g);
      }
    }
  }
  const out: Proposal[] = [];
  const joinsByType = joinWaitersByType(joins);
  // Without join waiters, only the children that name an indexed spawner can get a parent.
  const children = joinsByType.size ? (linked.size ? groups.filter((g) => !linked.has(g)) : groups) : spawned;
  for (const child of children) {
    let found = false;
    for (const spawner of spawnersOf(child, scratch)) {
      const held = holders.get(spawner);
      const parents = held ? held.filter((p) => p !== child && !p.frames.some((f) => f.func === child.frames[0]?.func && isClosure(f.func))) : [];
      if (!parents.length) continue;
      const via: LinkVia = child.creator?.func === spawner ? 'creator' : 'closure';
      for (const parent of parents) out.push({ parent, child, via, sibling: siblings.of(child, spawner) });
      found = true;
      break;
    }
    if (!found && joinsByType.size) out.push(...byReceiver(child, joinsByType));
  }
  return out;
}

/** Join waiters by the receiver types of their user frames (for `byReceiver`). */
function joinWaitersByType(joins: readonly AnalyzedGroup[]): Map<string, AnalyzedGroup[]> {
  const out = new Map<string, AnalyzedGroup[]>();
  for (const g of joins) {
    for (let j = 0; j < g.frames.length; j++) {
      const f = g.frames[j];
      const t = f.origin === 'user' ? receiverType(f.func) : undefined;
      if (!t) continue;
      const list = out.get(t);
      if (!list) out.set(t, [g]);
      else if (list[list.length - 1] !== g) list.push(g);
    }
  }
  return out;
}

/**
 * Last resort, for join waiters only: a parked child whose entry is a method of type T, and a parent
 * waiting in `Wait` inside another method of T (`(*Queue).worker` ⇐ `(*Queue).Drain`): the type's
 * own WaitGroup counts its own workers.
 */
function byReceiver(child: AnalyzedGroup, joinsByType: Map<string, AnalyzedGroup[]>): Proposal[] {
  const entry = userEntry(child);
  const type = entry && receiverType(entry.func);
  if (!type || !isParked(child) || isJoinWaiter(child)) return [];
  return (joinsByType.get(type) ?? [])
    .filter((p) => p !== child && p.frames.some((f) => f.origin === 'user' && f.func !== entry.func && receiverType(f.func) === type))
    .map((parent) => ({ parent, child, via: 'receiver' as LinkVia, sibling: `receiver:${type}` }));
}

/** child ≈ k × parent for a whole k ≥ 1, within `tolerance` (one parent may start several children). */
export function countsAgree(child: number, parent: number, tolerance: number): boolean {
  if (parent <= 0 || child <= 0) return false;
  const r = child / parent;
  if (r < 1 - tolerance) return false;
  const k = Math.max(1, Math.round(r));
  return Math.abs(r - k) <= tolerance * k;
}
