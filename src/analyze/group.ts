/**
 * Merge the read-stage groups of a snapshot under their normalized signature (signature.ts): one key
 * per group, one Map pass, never pairwise comparison. Read-stage groups differ by state, labels,
 * creator and ids; the merged group keeps tallies of those instead.
 */
import type { Creator, Group, GroupFlags, Snapshot, WaitKind } from '../model/dump.js';
import { MAX_ID_SAMPLE } from '../model/dump.js';
import { classifyWait } from '../model/wait.js';
import type { OriginClassifier } from './origin.js';
import { defineKeyAndId } from './group-key.js';
import { SignatureTable, type SignatureTexts } from './signature-table.js';
import type { AnalyzedGroup, SimilarityLevel } from './types.js';

export { signature } from './signature.js';
export { groupId } from './group-key.js';

interface Bucket {
  members: number[];
  /** The read-stage group with the most goroutines (first seen wins ties). */
  largest: Group;
  count: number;
  states: Map<string, number>;
  kinds: Map<WaitKind, number>;
  waitMin: number;
  waitMax: number;
  stamped: number;
  /** Labels every member carries so far (undefined until the first member). */
  shared?: Record<string, string>;
  labelSets: Set<string>;
  ids: Set<number>;
  leaked: number;
  flags: { -readonly [K in keyof GroupFlags]?: GroupFlags[K] };
  bubbles: Set<number | undefined>;
  partial: boolean;
  elided: number;
}

/** Goroutines per wait kind, refined where a reader left 'unknown' but the frames can tell. */
export function memberWaitKind(g: Group, format: Snapshot['format']): WaitKind {
  if (g.waitKind !== 'unknown') return g.waitKind;
  // Asked twice per group (grouping, then the snapshot's tally): classify once per group and format.
  const memo = refinedKinds.get(g);
  if (memo && memo.format === format && memo.state === g.state && memo.frames === g.frames) return memo.kind;
  const kind = classifyWait(g.state, g.frames, format);
  refinedKinds.set(g, { format, state: g.state, frames: g.frames, kind });
  return kind;
}

const refinedKinds = new WeakMap<Group, { format: Snapshot['format']; state: string; frames: Group['frames']; kind: WaitKind }>();

/**
 * The analyzed groups of `snapshot`, most goroutines first. `byWaitKind`, when given, is filled with
 * the goroutines of each wait kind (`memberWaitKind`, in order of first sight), in grouping's own
 * pass over the read-stage groups.
 */
export function groupSnapshot(
  snapshot: Snapshot,
  level: SimilarityLevel,
  origins: OriginClassifier,
  byWaitKind?: Partial<Record<WaitKind, number>>,
): AnalyzedGroup[] {
  // (One function per pass over the groups: V8 compiles a called-once function's long loop on the
  // stack (OSR), code after the loop included; that code has run never, and leaving the loop threw
  // the compiled function away, to compile it again at the next loop: five times for grouping, while
  // each compilation of a small function is its loop's only one.)
  const table = new SignatureTable(level);
  const sigs = new Int32Array(snapshot.groups.length);
  const buckets = bucketsOf(snapshot, table, sigs, byWaitKind);
  // out[sig] is the group of signature sig.
  const out = finishAll(snapshot, buckets, table.texts, origins);
  // Most goroutines first, then by key.
  const order = table.order(countsOf(out));
  const sorted = new Array<AnalyzedGroup>(order.length);
  for (let i = 0; i < order.length; i++) sorted[i] = out[order[i]];
  ownersMemo.set(sorted, { snapshot, sigs, bySig: out });
  return sorted;
}

/**
 * By signature number (SignatureTable): the index of its only read-stage group, or the bucket of
 * several. Most signatures (every one, in a dump of distinct stacks) have one group, finished
 * without a bucket's tallies. Writes each read-stage group's signature number to `sigs`, and
 * tallies its goroutines in `byWaitKind` when given.
 */
function bucketsOf(snapshot: Snapshot, table: SignatureTable, sigs: Int32Array, byWaitKind: Partial<Record<WaitKind, number>> | undefined): (number | Bucket)[] {
  const buckets: (number | Bucket)[] = [];
  const groups = snapshot.groups;
  const format = snapshot.format;
  for (let index = 0; index < groups.length; index++) {
    const g = groups[index];
    if (byWaitKind !== undefined) {
      const k = memberWaitKind(g, format);
      byWaitKind[k] = (byWaitKind[k] ?? 0) + g.count;
    }
    const sig = table.add(g.frames);
    sigs[index] = sig;
    const b = buckets[sig];
    if (b === undefined) buckets.push(index);
    else if (typeof b === 'number') {
      const first = groups[b];
      const nb: Bucket = {
        members: [], largest: first, count: 0, states: new Map(), kinds: new Map(),
        waitMin: Infinity, waitMax: -Infinity, stamped: 0, labelSets: new Set(), ids: new Set(),
        leaked: 0, flags: {}, bubbles: new Set(), partial: false, elided: 0,
      };
      addMember(nb, first, b, memberWaitKind(first, format));
      addMember(nb, g, index, memberWaitKind(g, format));
      buckets[sig] = nb;
    } else addMember(b, g, index, memberWaitKind(g, format));
  }
  return buckets;
}

/** The analyzed group of each bucket, by signature number. */
function finishAll(snapshot: Snapshot, buckets: readonly (number | Bucket)[], texts: SignatureTexts, origins: OriginClassifier): AnalyzedGroup[] {
  const groups = snapshot.groups;
  const total = snapshot.total;
  const out: AnalyzedGroup[] = [];
  const states = new SingleStates();
  // The fields of the group being made: one object for all, filled by `finish` or `finishOne` and
  // copied by `PlainGroup` (a literal per group was ~180 bytes of garbage, on 20,000 distinct
  // stacks 3.6 MB, a fifth of a scavenge).
  const fields = { texts, sig: 0 } as GroupFields;
  for (let sig = 0; sig < buckets.length; sig++) {
    const b = buckets[sig];
    fields.sig = sig;
    out.push(typeof b === 'number' ? finishOne(fields, groups[b], b, snapshot, total, origins, states) : finish(fields, b, snapshot, total, origins));
  }
  return out;
}

function countsOf(groups: readonly AnalyzedGroup[]): Float64Array {
  const counts = new Float64Array(groups.length);
  for (let i = 0; i < groups.length; i++) counts[i] = groups[i].count;
  return counts;
}

/** What `groupSnapshot` knew of each read-stage group: the number of its signature, and the group of each signature. */
const ownersMemo = new WeakMap<readonly AnalyzedGroup[], { snapshot: Snapshot; sigs: Int32Array; bySig: readonly AnalyzedGroup[] }>();

/**
 * `groups` (as `groupSnapshot` returned them) in the order it made them, where it did: the order
 * they lie in memory. A pass that may visit groups in any order reads them there: in their sorted
 * order, each group and the objects it holds were a cache miss apiece (20,000 groups of distinct
 * stacks). Else `groups` itself.
 */
export function madeOrder(groups: readonly AnalyzedGroup[]): readonly AnalyzedGroup[] {
  return ownersMemo.get(groups)?.bySig ?? groups;
}

/**
 * The analyzed group of each read-stage group of `snapshot` (by index), for groups that
 * `groupSnapshot` made from it: read from the signature numbers it kept, without visiting every
 * group and its members (20,000 objects spread over the heap, in a dump of distinct stacks).
 */
export function ownerGroups(snapshot: Snapshot, groups: readonly AnalyzedGroup[]): (AnalyzedGroup | undefined)[] {
  const owners = new Array<AnalyzedGroup | undefined>(snapshot.groups.length);
  const memo = ownersMemo.get(groups);
  if (memo !== undefined && memo.snapshot === snapshot) {
    const { sigs, bySig } = memo;
    for (let i = 0; i < sigs.length; i++) owners[i] = bySig[sigs[i]];
  } else {
    for (const g of groups) for (let j = 0; j < g.members.length; j++) owners[g.members[j]] = g;
  }
  return owners;
}

/**
 * `ownerGroups(snapshot, groups)[i]`, for a caller that asks about a few read-stage groups (the
 * wait-for graph's 2,000 goroutines, of 20,000 groups in a dump of distinct stacks): read from the
 * signature numbers grouping kept, without an array of every group's owner.
 */
export function ownerLookup(snapshot: Snapshot, groups: readonly AnalyzedGroup[]): (index: number) => AnalyzedGroup | undefined {
  const memo = ownersMemo.get(groups);
  if (memo !== undefined && memo.snapshot === snapshot) {
    const { sigs, bySig } = memo;
    return (i) => (i >= 0 && i < sigs.length ? bySig[sigs[i]] : undefined);
  }
  const owners = ownerGroups(snapshot, groups);
  return (i) => owners[i];
}

/**
 * Sets in `to` each of `f`'s true flags but synctestBubble, in one order. Named reads: a loop over
 * the names read them as keyed, megamorphic loads that miss into the prototype chain for every
 * absent flag (a tenth of grouping's instructions on distinct stacks).
 */
function setFlags(to: Bucket['flags'], f: GroupFlags): Bucket['flags'] {
  if (f.leaked) to.leaked = true;
  if (f.durable) to.durable = true;
  if (f.lockedToThread) to.lockedToThread = true;
  if (f.scan) to.scan = true;
  if (f.stackUnavailable) to.stackUnavailable = true;
  if (f.crashed) to.crashed = true;
  return to;
}

function addMember(b: Bucket, g: Group, index: number, kind: WaitKind): void {
  b.members.push(index);
  if (g.count > b.largest.count) b.largest = g;
  b.count += g.count;
  b.states.set(g.state, (b.states.get(g.state) ?? 0) + g.count);
  b.kinds.set(kind, (b.kinds.get(kind) ?? 0) + g.count);
  if (g.wait) {
    b.waitMin = Math.min(b.waitMin, g.wait.min);
    b.waitMax = Math.max(b.waitMax, g.wait.max);
    b.stamped += g.wait.stamped;
  }
  const labelKeys = Object.keys(g.labels).sort();
  b.labelSets.add(labelKeys.map((k) => `${k}\u0000${g.labels[k]}`).join('\u0001'));
  if (b.shared === undefined) b.shared = { ...g.labels };
  else for (const k of Object.keys(b.shared)) if (g.labels[k] !== b.shared[k]) delete b.shared[k];
  for (const id of g.goroutineIds) b.ids.add(id);
  const f = g.flags;
  if (f.leaked) b.leaked += g.count;
  // Any member decides: a crashed or partial member must not be hidden by a healthy majority.
  setFlags(b.flags, f);
  b.bubbles.add(f.synctestBubble);
  if (g.partial) b.partial = true;
  if (g.elidedFrames !== 0 && (b.elided === 0 || g.elidedFrames > b.elided)) b.elided = g.elidedFrames;
}

function finish(p: GroupFields, b: Bucket, snapshot: Snapshot, total: number, origins: OriginClassifier): AnalyzedGroup {
  const frames = origins.siteFrames(b.largest.frames);
  const flags = { ...b.flags };
  if (b.bubbles.size === 1) {
    const [only] = b.bubbles;
    if (only !== undefined) flags.synctestBubble = only;
  }
  p.count = b.count;
  p.share = total > 0 ? b.count / total : 0;
  p.waitKind = dominantKind(b.kinds);
  p.states = tallyOrder(b.states);
  p.wait = b.stamped > 0 ? { min: b.waitMin, max: b.waitMax, stamped: b.stamped } : undefined;
  p.frames = frames;
  p.blockingSite = origins.blockingSite(frames);
  p.creator = mergedCreator(b.members.map((i) => snapshot.groups[i]), b.largest);
  p.labels = b.shared ?? {};
  p.labelSets = b.labelSets.size;
  p.goroutineIds = [...b.ids].sort((x, y) => x - y).slice(0, MAX_ID_SAMPLE);
  p.flags = flags;
  p.leaked = b.leaked > 0 ? b.leaked : undefined;
  p.elidedFrames = b.elided;
  p.partial = b.partial;
  p.members = b.members;
  return new PlainGroup(p);
}

/**
 * `finish` of a bucket whose only member is `g` (the same group, without the bucket's tallies). Its
 * labels, ids and creator are the read-stage group's own where they already are what `finish`
 * would make (ids ascending, at most MAX_ID_SAMPLE): nothing downstream mutates them. Without
 * flags, it shares one frozen empty flags object, and its one state array with the groups of that
 * state (`SingleStates`).
 */
function finishOne(p: GroupFields, g: Group, index: number, snapshot: Snapshot, total: number, origins: OriginClassifier, states: SingleStates): AnalyzedGroup {
  const frames = origins.siteFrames(g.frames);
  const f = g.flags;
  let flags: Bucket['flags'] = NO_FLAGS;
  if (f.leaked || f.durable || f.lockedToThread || f.scan || f.stackUnavailable || f.crashed || f.synctestBubble !== undefined) {
    flags = setFlags({}, f);
    if (f.synctestBubble !== undefined) flags.synctestBubble = f.synctestBubble;
  }
  const c = g.creator;
  const creatorIds = c && sortedIds(c.goroutineIds);
  p.count = g.count;
  p.share = total > 0 ? g.count / total : 0;
  p.waitKind = memberWaitKind(g, snapshot.format);
  p.states = states.of(g.state);
  p.wait = g.wait && g.wait.stamped > 0 ? { min: Math.min(Infinity, g.wait.min), max: Math.max(-Infinity, g.wait.max), stamped: g.wait.stamped } : undefined;
  p.frames = frames;
  p.blockingSite = origins.blockingSite(frames);
  p.creator = c && (creatorIds === c.goroutineIds ? c : { ...c, goroutineIds: creatorIds! });
  p.labels = g.labels;
  p.labelSets = 1;
  p.goroutineIds = sortedIds(g.goroutineIds);
  p.flags = flags;
  p.leaked = f.leaked && g.count > 0 ? g.count : undefined;
  p.elidedFrames = g.elidedFrames;
  p.partial = g.partial ? true : false;
  p.members = [index];
  return new PlainGroup(p);
}

const NO_FLAGS: Bucket['flags'] = Object.freeze({});

/** One frozen `[state]` array per state, shared by the groups of one state. */
class SingleStates {
  private readonly arrays = new Map<string, string[]>();

  of(state: string): string[] {
    let a = this.arrays.get(state);
    if (a === undefined) this.arrays.set(state, (a = Object.freeze([state]) as string[]));
    return a;
  }
}

type OptionalField = 'wait' | 'blockingSite' | 'creator' | 'leaked';
/**
 * An analyzed group's fields but its key and id, the optional ones given as undefined where absent,
 * and where its key and id are read from when asked (group-key.ts): signature `sig` of `texts`.
 */
type GroupFields = {
  -readonly [K in keyof Omit<AnalyzedGroup, OptionalField | 'id' | 'key'>]: AnalyzedGroup[K];
} & { -readonly [K in OptionalField]-?: AnalyzedGroup[K] | undefined } & { texts: SignatureTexts; sig: number };

/**
 * The analyzed group, its fields in the order reports serialize them, the optional ones only where
 * defined. Made with `new` on a plain function whose prototype is Object.prototype (the object is a
 * plain one, as a literal makes): V8 sizes such objects for every field the function may set,
 * while fields added one by one to a literal went out of line (one more load on every later read of
 * g.frames, g.members… by the rules and reports), and a literal with conditional spreads defined
 * each later field through a runtime call (a third of grouping's time on 20,000 distinct stacks).
 */
const PlainGroup = function (this: { -readonly [K in keyof AnalyzedGroup]: AnalyzedGroup[K] }, p: GroupFields) {
  defineKeyAndId(this, p.texts, p.sig);
  this.count = p.count;
  this.share = p.share;
  this.waitKind = p.waitKind;
  this.states = p.states;
  if (p.wait !== undefined) this.wait = p.wait;
  this.frames = p.frames;
  if (p.blockingSite !== undefined) this.blockingSite = p.blockingSite;
  if (p.creator !== undefined) this.creator = p.creator;
  this.labels = p.labels;
  this.labelSets = p.labelSets;
  this.goroutineIds = p.goroutineIds;
  this.flags = p.flags;
  if (p.leaked !== undefined) this.leaked = p.leaked;
  this.elidedFrames = p.elidedFrames;
  this.partial = p.partial;
  this.members = p.members;
} as unknown as new (p: Readonly<GroupFields>) => AnalyzedGroup;
PlainGroup.prototype = Object.prototype;

/**
 * Ids once each, ascending, at most MAX_ID_SAMPLE: `ids` itself when it already is so (those of one
 * group nearly always are).
 */
function sortedIds(ids: readonly number[]): number[] {
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1] < ids[i])) return [...new Set(ids)].sort((x, y) => x - y).slice(0, MAX_ID_SAMPLE);
  return ids.length <= MAX_ID_SAMPLE ? (ids as number[]) : ids.slice(0, MAX_ID_SAMPLE);
}

/** Most goroutines first; ties by name so that output is stable. */
function tallyOrder<T extends string>(m: Map<T, number>): T[] {
  return [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[0]);
}

/** The most common kind, preferring any known kind over `unknown` (debug=1 cannot see the park). */
function dominantKind(kinds: Map<WaitKind, number>): WaitKind {
  const order = tallyOrder(kinds);
  return order.find((k) => k !== 'unknown') ?? 'unknown';
}

/**
 * The creator of the largest member that has one, with the creator ids of every member created at
 * the same `go` statement. Members created elsewhere are counted in no creator: a report shows the
 * main one.
 */
function mergedCreator(members: Group[], largest: Group): Creator | undefined {
  const main = largest.creator ?? members.find((m) => m.creator)?.creator;
  if (!main) return undefined;
  const ids = new Set<number>();
  for (const m of members) {
    const c = m.creator;
    if (c && c.func === main.func && c.file === main.file && c.line === main.line) {
      for (const id of c.goroutineIds) ids.add(id);
    }
  }
  return { ...main, goroutineIds: [...ids].sort((x, y) => x - y).slice(0, MAX_ID_SAMPLE) };
}
