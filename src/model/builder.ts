/**
 * The only builder of `Snapshot`s. Readers hand it one goroutine (or one pprof sample / debug=1
 * record with its count) at a time; it folds identical stacks into groups, interning frames, so memory
 * grows with distinct stacks, not with goroutines.
 */
import type {
  AncestorStack, CreatorLink, Diagnostic, DumpFormat, Frame, GoroutineDetail, GroupFlags, Headline, ProfileKind,
  Snapshot, WaitKind,
} from './dump.js';
import { MAX_DETAILED, MAX_ID_SAMPLE } from './dump.js';
import { PairLog } from './pair-log.js';

/** What a reader knows of one goroutine (or of `count` identical ones). */
export interface GoroutineRecord {
  /** Goroutine id; undefined where the format has none (debug=0/1). */
  id?: number;
  /** How many goroutines this record stands for (debug=0/1 records); default 1. */
  count?: number;
  state: string;
  flags?: GroupFlags;
  /** Classified by the reader when it can (state or leaf frames); the analyzer may refine 'unknown'. */
  waitKind: WaitKind;
  waitMinutes?: number;
  frames: Frame[];
  elidedFrames?: number;
  creator?: { func: string; pkg: string; file: string; line: number; goroutineId?: number };
  labels?: Readonly<Record<string, string>>;
  ancestors?: AncestorStack[];
  partial?: boolean;
  /**
   * Each frame's printed arguments, aligned with `frames` (see `GoroutineDetail.args`); given by the
   * traceback reader while the snapshot is under `MAX_DETAILED` goroutines (`SnapshotBuilder.wantsDetail`).
   */
  args?: string[];
  /**
   * The frames' part of the group key when the reader already has it (`frameKeyPart` of each frame's
   * `frameNumber`): the traceback reader keeps it per stack it has seen.
   */
  framesKey?: string;
}

/**
 * A group as the builder grows it: the snapshot's `Group` object itself (`build` hands it over), with
 * the fields `add` changes writable. Its position, `restKey` and plainness are the builder's
 * (`SnapshotBuilder.rests` / `plain`): a group of a dump of distinct stacks is one object, not a
 * builder's record copied into a group at the end.
 */
export interface MutableGroup {
  count: number;
  readonly state: string;
  readonly flags: GroupFlags;
  readonly waitKind: WaitKind;
  /** Shortest and longest wait of the `stamped` goroutines; made with the group when its first goroutine has one. */
  wait?: { min: number; max: number; stamped: number };
  readonly frames: Frame[];
  readonly elidedFrames: number;
  /** Its `goroutineIds`: the creators named by `in goroutine N`, each once, at most MAX_ID_SAMPLE, in input order until `build` sorts them. */
  readonly creator?: { readonly func: string; readonly pkg: string; readonly file: string; readonly line: number; goroutineIds: number[] };
  readonly labels: Readonly<Record<string, string>>;
  /** The first MAX_ID_SAMPLE ids, in input order until `build` sorts them. */
  goroutineIds: number[];
  readonly ancestors: AncestorStack[];
  readonly partial: boolean;
}

/** A builder's whole state as plain, cloneable data (`SnapshotBuilder.toPart` / `absorb`). */
export interface BuilderPart {
  readonly header: SnapshotHeader;
  readonly groups: readonly MutableGroup[];
  /** Each group's `restKey`, and whether it was made from a plain record (`isPlain`). */
  readonly rests: readonly string[];
  readonly plain: readonly boolean[];
  readonly warnings: readonly Diagnostic[];
  /** Every goroutine id read, with the index of its group. */
  readonly ids: Float64Array;
  readonly idGroups: Int32Array;
  /** `created by … in goroutine N` not yet resolved: the child group of each, and N. */
  readonly linkChildren: Int32Array;
  readonly linkCreators: Float64Array;
  readonly total: number;
  readonly truncated: boolean;
  /** The part's first goroutines with their arguments (group indexes are the part's own). */
  readonly details: readonly GoroutineDetail[];
}

export interface SnapshotHeader {
  source: string;
  index: number;
  format: DumpFormat;
  profile: ProfileKind;
  headline?: Headline;
  capturedAt?: string;
  declaredTotal?: number;
  firstLine?: number;
}

/**
 * A frame's number, unique in the process: set (not enumerable, so never serialized or cloned) on
 * every frame a FrameTable interns. Group keys are built from these numbers, not from frame text.
 */
const FRAME_ID: unique symbol = Symbol('leakscope.frameId');
let nextFrameId = 1;

type Numbered = Frame & { [FRAME_ID]?: number };

/**
 * `s` as a string of its own. A substring of an input line is, in V8, a view of the whole decoded
 * chunk (a megabyte) that holds it: anything kept for the whole read (interned frames, cache keys,
 * a group's creator) is detached so that memory stays bounded by what is kept, not by the chunks it
 * was cut from. The copy is a flat string (a JSON round trip keeps every code unit, lone surrogates
 * included), not a slice of one: V8 compares a line with a flat string without a runtime call, and the
 * reader compares millions of lines with kept ones (2-4% fewer instructions than a slice, callgrind).
 */
export function detach(s: string): string {
  return s.length < 13 ? s : JSON.parse(JSON.stringify(s));
}

/**
 * A frame's part of a stack's group key (`GoroutineRecord.framesKey`): its number as one character
 * below 0xD000; else a character saying the sign and how many follow, then the number in base
 * 0x8000, one character per digit. Self-delimiting, so a key is the frames' sequence; one character
 * a frame, so keys are short to hash (a dump of distinct stacks hashes one per goroutine).
 */
export function frameKeyPart(n: number): string {
  if (n >= 0 && n < 0xd000) return String.fromCharCode(n);
  let v = Math.abs(n);
  let digits = '';
  do {
    digits = String.fromCharCode(v % 0x8000) + digits;
    v = Math.floor(v / 0x8000);
  } while (v > 0);
  return String.fromCharCode((n < 0 ? 0xf000 : 0xe000) + digits.length) + digits;
}

/** The number a FrameTable gave `f`; undefined for a frame no table interned. */
export function frameNumber(f: Frame): number | undefined {
  return (f as Numbered)[FRAME_ID];
}

/** Interns frames so that identical frames across groups share one object. */
export class FrameTable {
  private readonly frames = new Map<string, Frame>();

  frame(func: string, pkg: string, file: string, line: number, inlined: boolean): Frame {
    const key = `${func}\u0000${file}\u0000${line}\u0000${inlined ? 1 : 0}`;
    let f = this.frames.get(key);
    if (!f) {
      f = { func: detach(func), pkg: detach(pkg), file: detach(file), line, inlined };
      Object.defineProperty(f, FRAME_ID, { value: nextFrameId++ });
      this.frames.set(key, f);
    }
    return f;
  }

  /** This table's frame equal to `f` (a frame from another table, or cloned from another thread). */
  intern(f: Frame): Frame {
    return this.frame(f.func, f.pkg, f.file, f.line, f.inlined);
  }

  get size(): number {
    return this.frames.size;
  }
}

/** What a group without flags, labels or ancestors holds: one shared object each (frozen: nobody changes a group's). */
const NO_FLAGS: GroupFlags = Object.freeze({});
const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});
const NO_ANCESTORS = Object.freeze([]) as unknown as AncestorStack[];
/** A group's ids before its first (`appended` replaces it). */
const NO_IDS = Object.freeze([]) as unknown as number[];

/**
 * `list` with `id` at its end: a new array of one for the first (a push would reserve 17, and most
 * groups of a dump of distinct stacks hold one goroutine), else the same array.
 */
function appended(list: number[], id: number): number[] {
  if (list.length === 0) {
    // A copy, not a literal (see `BuiltGroup`).
    ONE_ID[0] = id;
    return ONE_ID.slice();
  }
  list.push(id);
  return list;
}

/** The array `appended` copies for a first id (its one element is overwritten each time). */
const ONE_ID = [0];

/** Strings `SnapshotBuilder.keep` remembers at most. */
const KEPT_STRINGS = 4096;

export class SnapshotBuilder {
  /** Group indexes by their stack's key (`framesKey`), then by `restKey` (`StackEntry`). */
  private readonly groups = new Map<string, StackEntry>();
  /** The groups, by index: the snapshot's groups once built. */
  private readonly order: MutableGroup[] = [];
  /**
   * Each group's `restKey` (kept so that a part read elsewhere merges exactly); undefined for a plain
   * group until asked for (`restOf`): its key is made from the group's own (kept) fields then, so that
   * a dump of distinct stacks builds none, and none holds the input's text.
   */
  private readonly rests: (string | undefined)[] = [];
  /** Each group was made from a plain record (see `sameRest`). */
  private readonly plain: boolean[] = [];
  /** Groups that got their first wait minutes after they were made (their `wait` is out of place until `build`). */
  private lateWaits: number[] | undefined;
  private readonly warnings: Diagnostic[] = [];
  /** (goroutine id, group index) of each goroutine read, to resolve `in goroutine N` into group links (the last pair of an id counts). */
  private readonly idGroups = new PairLog();
  /** (creator goroutine id, child group index) pairs, resolved once all ids are known. */
  private pendingLinks = new PairLog();
  private readonly details: GoroutineDetail[] = [];
  private total = 0;
  private truncated = false;
  private lastLine?: number;
  /** Numbers for frames that no FrameTable interned, by content (negative: never a table's number). */
  private foreign: Map<string, number> | undefined;
  /** Detached strings of groups (`keep`). */
  private readonly kept = new Map<string, string>();
  /** The creator the last new group kept (`keepCreator`). */
  private lastCreator: GoroutineRecord['creator'];
  /** `build` was called. */
  private built = false;

  constructor(readonly header: SnapshotHeader) {}

  set headline(h: Headline | undefined) {
    this.header.headline = h;
  }

  warn(d: Diagnostic): void {
    // Bound the list: a file of garbage must not grow memory line by line.
    if (this.warnings.length < 200) this.warnings.push(d);
    else if (this.warnings.length === 200) {
      this.warnings.push({ severity: 'warning', code: 'too-many-warnings', message: 'further warnings omitted' });
    }
  }

  markTruncated(d: Diagnostic): void {
    this.truncated = true;
    this.warn(d);
  }

  setLastLine(line: number): void {
    this.lastLine = line;
  }

  get goroutines(): number {
    return this.total;
  }

  /** The next goroutine's arguments are kept (the first `MAX_DETAILED` of a snapshot). */
  get wantsDetail(): boolean {
    return this.details.length < MAX_DETAILED;
  }

  add(g: GoroutineRecord): void {
    const count = g.count ?? 1;
    if (!(count > 0)) return;
    // Two levels: the stack (a string the traceback reader keeps per stack, so its hash is computed
    // once), then the rest of the identity (state, creator, labels…).
    const stack = g.framesKey ?? this.framesKey(g.frames);
    const e = this.groups.get(stack);
    let i: number;
    if (e === undefined) {
      // A new stack: its first group (a dump of distinct stacks has one group per stack), filed as it is.
      i = this.newGroup(g, isPlain(g) ? undefined : detach(restKey(g)));
      this.groups.set(stack, i);
    } else {
      // Goroutines of one stack nearly always share the rest too: compare with the group the last
      // one went to, field by field, before building the key string.
      const last = typeof e === 'number' ? e : e.last;
      if (last >= 0 && this.sameRest(last, g)) i = last;
      else i = this.stackGroup(typeof e === 'number' ? this.stackGroups(stack, e) : e, g, restKey(g));
    }
    const m = this.order[i];
    m.count += count;
    this.total += count;
    if (g.waitMinutes !== undefined) this.stamp(i, g.waitMinutes, g.waitMinutes, count);
    const cid = g.creator?.goroutineId;
    if (g.id !== undefined) {
      if (m.goroutineIds.length < MAX_ID_SAMPLE) m.goroutineIds = appended(m.goroutineIds, g.id);
      this.idGroups.push(g.id, i);
      if (g.args !== undefined && this.details.length < MAX_DETAILED) this.details.push(this.detail(g, i, g.args, cid));
    }
    if (cid !== undefined) {
      const c = m.creator!;
      if (c.goroutineIds.length < MAX_ID_SAMPLE && !c.goroutineIds.includes(cid)) c.goroutineIds = appended(c.goroutineIds, cid);
      this.pendingLinks.push(cid, i);
    }
  }

  /** Wait minutes from `min` to `max` of `stamped` more goroutines of group `i`. */
  private stamp(i: number, min: number, max: number, stamped: number): void {
    const m = this.order[i];
    const w = m.wait;
    if (w === undefined) {
      m.wait = new WaitSpan(min, max, stamped);
      (this.lateWaits ??= []).push(i);
      return;
    }
    if (w.stamped === 0 || min < w.min) w.min = min;
    if (w.stamped === 0 || max > w.max) w.max = max;
    w.stamped += stamped;
  }

  /** The stack's entry for more than one group, in place of its only group `i`. */
  private stackGroups(stack: string, i: number): StackGroups {
    const sg = new StackGroups(i, undefined);
    this.groups.set(stack, sg);
    return sg;
  }

  /** The group of a stack's groups filed under `rest`, made when new; it becomes the stack's last. */
  private stackGroup(sg: StackGroups, g: GoroutineRecord, rest: string): number {
    const byRest = this.stackByRest(sg);
    let i = byRest.get(rest);
    if (i === undefined) {
      // Filed under a key that holds none of the input's text (`rest` may hold slices of it).
      i = this.newGroup(g, isPlain(g) ? undefined : detach(rest));
      byRest.set(this.restOf(i), i);
    }
    sg.last = i;
    return i;
  }

  /** The stack's groups by `restKey`, made from its only group when first needed. */
  private stackByRest(sg: StackGroups): Map<string, number> {
    if (sg.byRest === undefined) {
      sg.byRest = new Map();
      if (sg.last >= 0) sg.byRest.set(this.restOf(sg.last), sg.last);
    }
    return sg.byRest;
  }

  /**
   * Group `i`'s `restKey`, made when first asked for a plain group (see `rests`): from its kept fields,
   * which are those of the goroutine that made it (a plain record has no flags, labels, ancestors or
   * partial stack).
   */
  private restOf(i: number): string {
    const r = this.rests[i];
    if (r !== undefined) return r;
    const m = this.order[i];
    return (this.rests[i] = restKey({ state: m.state, waitKind: m.waitKind, elidedFrames: m.elidedFrames, creator: m.creator }));
  }

  /**
   * `g` belongs to group `i` for sure: both plain, and the fields `restKey` reads of plain records are
   * equal. false is not "different": the caller then compares keys.
   */
  private sameRest(i: number, g: GoroutineRecord): boolean {
    const m = this.order[i];
    if (!this.plain[i] || !isPlain(g) || m.waitKind !== g.waitKind || m.elidedFrames !== (g.elidedFrames ?? 0) || m.state !== g.state) return false;
    const a = m.creator;
    const b = g.creator;
    if (a === undefined || b === undefined) return a === b;
    return a.line === b.line && a.func === b.func && a.file === b.file;
  }

  /** A goroutine's detail; its argument strings detached once each (goroutines repeat their arguments: `0x0?`). */
  private detail(g: GoroutineRecord, group: number, args: readonly string[], createdBy: number | undefined): GoroutineDetail {
    const kept = args.slice();
    for (let i = 0; i < kept.length; i++) kept[i] = this.keep(kept[i]);
    const d = new Detail(g.id!, group, kept);
    if (g.waitMinutes !== undefined) d.waitMinutes = g.waitMinutes;
    if (createdBy !== undefined) d.createdBy = createdBy;
    return d;
  }

  /** A new group's creator, detached: the last one kept when equal (groups of distinct stacks share few creators; each group copies it into a creator of its own, with its ids). */
  private keepCreator(c: NonNullable<GoroutineRecord['creator']>): NonNullable<GoroutineRecord['creator']> {
    const k = this.lastCreator;
    if (k !== undefined && k.line === c.line && k.func === c.func && k.file === c.file && k.pkg === c.pkg) return k;
    return (this.lastCreator = { func: this.keep(c.func), pkg: this.keep(c.pkg), file: this.keep(c.file), line: c.line });
  }

  /** `detach(s)`, once per distinct string: groups of distinct stacks share their states and creators. */
  private keep(s: string): string {
    let k = this.kept.get(s);
    if (k === undefined) {
      if (this.kept.size >= KEPT_STRINGS) this.kept.clear();
      k = detach(s);
      this.kept.set(k, k);
    }
    return k;
  }

  /** A new group of `g`'s stack and rest (filed under `rest`, see `rests`): its index. */
  private newGroup(g: GoroutineRecord, rest: string | undefined): number {
    const k = g.creator === undefined ? undefined : this.keepCreator(g.creator);
    const c = k && new GroupCreator(k.func, k.pkg, k.file, k.line);
    const m = groupOf(
      this.keep(g.state), g.flags ?? NO_FLAGS, g.waitKind, g.frames, g.elidedFrames ?? 0, c, g.labels ?? NO_LABELS,
      g.ancestors ?? NO_ANCESTORS, g.partial ?? false, g.waitMinutes !== undefined,
    );
    return this.filed(m, rest, isPlain(g));
  }

  /** `m` as the next group: its index. */
  private filed(m: MutableGroup, rest: string | undefined, plain: boolean): number {
    const i = this.order.length;
    this.order.push(m);
    this.rests.push(rest);
    this.plain.push(plain);
    return i;
  }

  /**
   * Exact identity of a goroutine's stack for grouping at read time, with `restKey`: frames by their
   * numbers (equal frames are one interned object), so the key is short whatever the depth.
   */
  private framesKey(frames: readonly Frame[]): string {
    let k = '';
    for (let i = 0; i < frames.length; i++) k += frameKeyPart(this.frameNo(frames[i]));
    return k;
  }


  private frameNo(f: Frame): number {
    const id = (f as Numbered)[FRAME_ID];
    if (id !== undefined) return id;
    const content = `${f.func}\u0000${f.file}\u0000${f.line}\u0000${f.inlined ? 1 : 0}`;
    const m = (this.foreign ??= new Map());
    let n = m.get(content);
    if (n === undefined) {
      n = -(m.size + 1);
      m.set(content, n);
    }
    return n;
  }

  /**
   * Everything this builder holds, as plain data that crosses a thread boundary: a worker reads one
   * part of a large file, the reader of the part before it `absorb`s it. Ids stay in input order and
   * every id is kept, so the merge is exactly what reading the whole file here would have built.
   */
  toPart(): BuilderPart {
    const rests: string[] = [];
    for (let i = 0; i < this.order.length; i++) rests.push(this.restOf(i));
    const ids = this.idGroups.columns();
    const links = this.pendingLinks.columns();
    return {
      header: this.header,
      groups: this.order,
      rests,
      plain: this.plain,
      warnings: this.warnings,
      ids: ids.first,
      idGroups: ids.second,
      linkChildren: links.second,
      linkCreators: links.first,
      total: this.total,
      truncated: this.truncated,
      details: this.details,
    };
  }

  /**
   * Fold in a part read after everything this builder has seen (see `toPart`), its frames re-interned
   * through `intern` (a worker's frames are copies). Groups merge by the same keys `add` uses.
   */
  absorb(part: BuilderPart, internFrame: (f: Frame) => Frame): void {
    // A part's groups share their frames (a clone keeps the sharing): each is interned once.
    const seen = new Map<Frame, Frame>();
    const intern = (f: Frame): Frame => {
      let g = seen.get(f);
      if (g === undefined) {
        g = internFrame(f);
        seen.set(f, g);
      }
      return g;
    };
    const remap = new Int32Array(part.groups.length);
    for (let pi = 0; pi < part.groups.length; pi++) {
      const p = part.groups[pi];
      const frames = p.frames.map(intern);
      const stack = this.framesKey(frames);
      const e = this.groups.get(stack);
      const byRest = e === undefined ? undefined : this.stackByRest(typeof e === 'number' ? this.stackGroups(stack, e) : e);
      const rest = part.rests[pi];
      let i = byRest?.get(rest);
      if (i === undefined) {
        const c = p.creator;
        const m = groupOf(
          p.state, p.flags, p.waitKind, frames, p.elidedFrames, c && new GroupCreator(c.func, c.pkg, c.file, c.line),
          p.labels, p.ancestors.map((a) => ({ goroutineId: a.goroutineId, frames: a.frames.map(intern) })), p.partial, p.wait !== undefined,
        );
        i = this.filed(m, rest, part.plain[pi]);
        if (byRest === undefined) this.groups.set(stack, i);
        else byRest.set(rest, i);
      }
      remap[pi] = i;
      const m = this.order[i];
      m.count += p.count;
      if (p.wait !== undefined && p.wait.stamped > 0) this.stamp(i, p.wait.min, p.wait.max, p.wait.stamped);
      for (const id of p.goroutineIds) if (m.goroutineIds.length < MAX_ID_SAMPLE) m.goroutineIds = appended(m.goroutineIds, id);
      const mc = m.creator;
      if (mc !== undefined) {
        for (const id of p.creator!.goroutineIds) {
          if (mc.goroutineIds.length < MAX_ID_SAMPLE && !mc.goroutineIds.includes(id)) mc.goroutineIds = appended(mc.goroutineIds, id);
        }
      }
    }
    this.total += part.total;
    if (part.truncated) this.truncated = true;
    for (const w of part.warnings) this.warn(w);
    for (let i = 0; i < part.ids.length; i++) this.idGroups.push(part.ids[i], remap[part.idGroups[i]]);
    for (let i = 0; i < part.linkCreators.length; i++) this.pendingLinks.push(part.linkCreators[i], remap[part.linkChildren[i]]);
    for (const d of part.details) {
      if (this.details.length >= MAX_DETAILED) break;
      this.details.push({ ...d, group: remap[d.group] });
    }
  }

  /**
   * The snapshot. Ends the builder: each group's id arrays are handed to the snapshot (sorted in
   * place), not copied, so a second build would share them and throws instead.
   */
  build(): Snapshot {
    if (this.built) throw new Error('SnapshotBuilder.build: already built');
    this.built = true;
    const groups = this.order;
    // A wait added to a group made without one came last among its fields: made again in its place.
    if (this.lateWaits !== undefined) for (const i of this.lateWaits) groups[i] = reshaped(groups[i]);
    for (const m of groups) {
      m.goroutineIds = sortedIds(m.goroutineIds);
      if (m.creator !== undefined) m.creator.goroutineIds = sortedIds(m.creator.goroutineIds);
    }
    const h = this.header;
    return {
      source: h.source,
      index: h.index,
      format: h.format,
      profile: h.profile,
      ...(h.headline ? { headline: h.headline } : {}),
      ...(h.capturedAt ? { capturedAt: h.capturedAt } : {}),
      total: this.total,
      ...(h.declaredTotal !== undefined ? { declaredTotal: h.declaredTotal } : {}),
      truncated: this.truncated,
      ...(h.firstLine !== undefined
        ? { lines: { first: h.firstLine, last: this.lastLine ?? h.firstLine } }
        : {}),
      groups,
      ...(this.details.length > 0 ? { goroutines: this.details } : {}),
      links: this.resolveLinks(),
      warnings: this.warnings,
    };
  }

  private resolveLinks(): CreatorLink[] {
    const counts = new Map<string, CreatorLink>();
    const p = this.pendingLinks;
    const creators = new Set<number>();
    for (let i = 0; i < p.length; i++) creators.add(p.firstAt(i));
    const groupOf = this.idGroups.lastOf(creators);
    for (let i = 0; i < p.length; i++) {
      const child = p.secondAt(i);
      const parent = groupOf.get(p.firstAt(i));
      if (parent === undefined) continue; // creator already exited: nothing to link
      const key = `${child}:${parent}`;
      const l = counts.get(key);
      counts.set(key, { child, parent, count: (l?.count ?? 0) + 1 });
    }
    this.pendingLinks = new PairLog();
    return [...counts.values()].sort((a, b) => a.child - b.child || a.parent - b.parent);
  }
}

/**
 * A group's ids, ascending: the builder's array itself, sorted in place (`build` ends the builder; a
 * dump of distinct stacks has a group per goroutine, one id each). A new array for none (`NO_IDS` is
 * shared and frozen).
 */
function sortedIds(ids: number[]): number[] {
  if (ids.length === 0) return [];
  return ids.length === 1 ? ids : ids.sort((a, b) => a - b);
}

/**
 * A group with no goroutine yet (`count` 0, no ids; `wait` with none stamped when `withWait`): a
 * `BuiltGroup`.
 */
function groupOf(
  state: string, flags: GroupFlags, waitKind: WaitKind, frames: Frame[], elidedFrames: number, creator: MutableGroup['creator'],
  labels: Readonly<Record<string, string>>, ancestors: AncestorStack[], partial: boolean, withWait: boolean,
): MutableGroup {
  return new BuiltGroup(state, flags, waitKind, withWait ? new WaitSpan() : undefined, frames, elidedFrames, creator, labels, ancestors, partial);
}

// The objects a builder hands over (groups, their creators and waits, goroutine details) are made
// with `new` of these classes, not as object literals: V8 tracks an allocation site per literal and,
// once it sees a site's objects survive (every group of a dump of distinct stacks does), moves the
// site to old-space allocation and throws away every optimized function that inlined it (`add`,
// `newGroup`…), to compile it again. `new` of a class has no allocation site. Fields are set in the
// model's order, the optional ones only when there are: the same own keys in the same order as the
// literals had (and as JSON shows).

/** A group (`MutableGroup`): `wait` and `creator` only when given. */
class BuiltGroup implements MutableGroup {
  declare count: number;
  declare readonly state: string;
  declare readonly flags: GroupFlags;
  declare readonly waitKind: WaitKind;
  declare wait?: WaitSpan;
  declare readonly frames: Frame[];
  declare readonly elidedFrames: number;
  declare readonly creator?: GroupCreator;
  declare readonly labels: Readonly<Record<string, string>>;
  declare goroutineIds: number[];
  declare readonly ancestors: AncestorStack[];
  declare readonly partial: boolean;

  constructor(
    state: string, flags: GroupFlags, waitKind: WaitKind, wait: WaitSpan | undefined, frames: Frame[], elidedFrames: number,
    creator: GroupCreator | undefined, labels: Readonly<Record<string, string>>, ancestors: AncestorStack[], partial: boolean,
  ) {
    this.count = 0;
    this.state = state;
    this.flags = flags;
    this.waitKind = waitKind;
    if (wait !== undefined) this.wait = wait;
    this.frames = frames;
    this.elidedFrames = elidedFrames;
    if (creator !== undefined) this.creator = creator;
    this.labels = labels;
    this.goroutineIds = NO_IDS;
    this.ancestors = ancestors;
    this.partial = partial;
  }
}

/** A group's `wait`: shortest and longest wait of the `stamped` goroutines. */
class WaitSpan {
  constructor(
    public min = 0,
    public max = 0,
    public stamped = 0,
  ) {}
}

/** A group's `creator`, with no ids yet. */
class GroupCreator {
  goroutineIds: number[] = NO_IDS;
  constructor(
    readonly func: string,
    readonly pkg: string,
    readonly file: string,
    readonly line: number,
  ) {}
}

/** A goroutine's detail (`GoroutineDetail`): `waitMinutes` and `createdBy` are set after, when there are. */
class Detail implements GoroutineDetail {
  declare readonly id: number;
  declare readonly group: number;
  declare readonly args: readonly string[];
  declare waitMinutes?: number;
  declare createdBy?: number;

  constructor(id: number, group: number, args: readonly string[]) {
    this.id = id;
    this.group = group;
    this.args = args;
  }
}

/** `m` made again with its `wait` in its place (see `SnapshotBuilder.lateWaits`). */
function reshaped(m: MutableGroup): MutableGroup {
  const g = groupOf(m.state, m.flags, m.waitKind, m.frames, m.elidedFrames, m.creator, m.labels, m.ancestors, m.partial, true);
  g.count = m.count;
  g.wait = m.wait;
  g.goroutineIds = m.goroutineIds;
  return g;
}

/**
 * The groups of one stack, once it has more than one: by `restKey`, and the one a goroutine was last
 * added to. `byRest` is made when first needed (undefined: `last` is its only one). A stack of one
 * group is filed as that group (`SnapshotBuilder.groups`): a dump of distinct stacks makes no entry
 * object per stack.
 */
class StackGroups {
  constructor(
    /** -1: none yet. */
    public last: number,
    public byRest: Map<string, number> | undefined,
  ) {}
}

/** What a stack is filed as: the index of its only group, or its groups. */
type StackEntry = number | StackGroups;

/** The rest of a group's identity: state, wait kind, flags, elision, creator, labels, ancestors (see `restOf`). */
function restKey(g: RestFields): string {
  let k = `${g.state}|${g.waitKind}|`;
  if (g.flags) k += flagsKey(g.flags);
  k += `|${g.elidedFrames ?? 0}|`;
  if (g.creator) k += `${g.creator.func}@${g.creator.file}:${g.creator.line}`;
  if (g.labels) {
    const keys = Object.keys(g.labels).sort();
    if (keys.length) k += `|${keys.map((x) => `${x}=${g.labels![x]}`).join(',')}`;
  }
  if (g.ancestors?.length) {
    for (const a of g.ancestors) k += `|a:${a.frames.map((fr) => `${fr.func}@${fr.file}:${fr.line}`).join(';')}`;
  }
  if (g.partial) k += '|partial';
  return k;
}

/** What `restKey` reads of a goroutine (or of a plain group: `restOf`). */
type RestFields = Pick<GoroutineRecord, 'state' | 'waitKind' | 'flags' | 'elidedFrames' | 'creator' | 'labels' | 'ancestors' | 'partial'>;

function isPlain(g: GoroutineRecord): boolean {
  return g.flags === undefined && g.labels === undefined && g.ancestors === undefined && g.partial !== true;
}

/** Flags part of a group key. */
function flagsKey(f: GroupFlags): string {
  return `${f.leaked ? 'L' : ''}${f.durable ? 'D' : ''}${f.lockedToThread ? 'T' : ''}${f.stackUnavailable ? 'U' : ''}${f.crashed ? 'C' : ''}${f.synctestBubble !== undefined ? `b${f.synctestBubble}` : ''}|`;
}
