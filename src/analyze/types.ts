/**
 * What the analyze stage adds to a snapshot: groups merged by a normalized signature, each frame's
 * origin, the blocking site in the program's own code, and links between groups.
 */
import type { Frame, GoroutineDetail, Group, Snapshot, WaitKind } from '../model/dump.js';

/**
 * How stacks are compared when grouping.
 * - `exact`: function + file:line of every frame (arguments, offsets, ids, minutes ignored), so that
 *   debug=0/1/2 captures of one process give matching groups (leading runtime frames, which debug=1
 *   hides, are left out of the key).
 * - `functions`: functions only (line numbers ignored): survives small code changes between builds.
 */
export type SimilarityLevel = 'exact' | 'functions';

/** Where a frame's code comes from. */
export type FrameOrigin = 'runtime' | 'stdlib' | 'dependency' | 'user';

/** A frame with its origin, and its index in the group's frames. */
export interface SiteFrame extends Frame {
  readonly origin: FrameOrigin;
  readonly index: number;
}

/** Read-stage groups merged under one normalized signature. */
export interface AnalyzedGroup {
  /**
   * Stable normalized signature at the analysis level: equal across debug=0/1/2 of one process.
   * One line per frame, innermost first: `func file:line` (`exact`) or `func` (`functions`), with
   * the runtime frames that not every format prints left out (see analyze/signature.ts).
   */
  readonly key: string;
  /** Short stable id derived from `key` (hex), for cross-references in reports. */
  readonly id: string;
  readonly count: number;
  /** count / snapshot total, 0..1. */
  readonly share: number;
  readonly waitKind: WaitKind;
  /** The printed state(s), most common first ('' where the format prints none). */
  readonly states: string[];
  readonly wait?: { readonly min: number; readonly max: number; readonly stamped: number };
  /** The representative stack (of the largest member), innermost first, each frame with its origin. */
  readonly frames: SiteFrame[];
  /**
   * The first frame in the program's own code, past the runtime, the standard library and well-known
   * helpers (errgroup, …): where the goroutines of this group are stuck, from the user's view.
   */
  readonly blockingSite?: SiteFrame;
  readonly creator?: Group['creator'];
  /** Labels shared by all members; `labelSets` counts the distinct label sets seen. */
  readonly labels: Readonly<Record<string, string>>;
  readonly labelSets: number;
  readonly goroutineIds: number[];
  /** Flags any member carried (`crashed`, `leaked`…); `synctestBubble` only when all members share it. */
  readonly flags: Group['flags'];
  /**
   * Goroutines of this group the runtime marked `(leaked)` (goroutineleak debug=2 dumps, where only
   * some goroutines of a stack may be marked). Absent when none.
   */
  readonly leaked?: number;
  readonly elidedFrames: number;
  readonly partial: boolean;
  /** Indices into `Snapshot.groups` of the read-stage groups merged here. */
  readonly members: number[];
}

/** A link between analyzed groups: goroutines of `child` were started by goroutines of `parent`. */
export interface GroupLink {
  readonly child: string;
  readonly parent: string;
  readonly count: number;
  /** `creator-id`: from `created by … in goroutine N`; `shared-frames`: inferred from stacks and counts. */
  readonly via: 'creator-id' | 'shared-frames';
  /**
   * `shared-frames` only: the function that started the child (read from its `created by` line or
   * its outermost closures) and on whose frame the parent is still blocked, e.g.
   * `example.com/x.(*Store).listAndWatch`. `count` is then an estimate (see analyze/correlate.ts).
   */
  readonly spawner?: string;
}

export interface Analysis {
  readonly snapshot: Snapshot;
  readonly level: SimilarityLevel;
  readonly total: number;
  /** Sorted by count descending, then key. */
  readonly groups: AnalyzedGroup[];
  /** Goroutines per wait kind. */
  readonly byWaitKind: Readonly<Partial<Record<WaitKind, number>>>;
  readonly links: GroupLink[];
  /** Who waits on which object, from frame arguments (debug=2 and crash dumps only). */
  readonly waits?: WaitGraph;
  /**
   * The modules taken as the program's own code (analyze/modules.ts), with why: the user's
   * (`userModules`) first, then those the dump tells. Absent when none.
   */
  readonly programModules?: readonly { readonly module: string; readonly why: string }[];
}

export interface AnalyzeOptions {
  level?: SimilarityLevel;
  /**
   * Extra package prefixes to treat as helpers rather than the user's code when finding the blocking
   * site (in addition to the built-in list: golang.org/x/sync/errgroup, k8s.io/apimachinery/pkg/util/wait, …).
   */
  helperPackages?: string[];
  /** Module path(s) of the user's own code, when known: frames under them are always `user`. */
  userModules?: string[];
}

// The wait-for graph (analyze/waitfor.ts).

/** What a goroutine is blocked on, as far as the wait-for analysis tells objects apart. */
export type WaitOn = 'lock' | 'rlock' | 'waitgroup' | 'cond' | 'chan-send' | 'chan-receive' | 'select' | 'other';

/** How an object's address was learned. */
export type Identity =
  /** Printed as the argument of the sync or runtime call the goroutine is blocked in. */
  | 'seen'
  /** The receiver of the method that called Lock/Wait (the lock is one of its fields): inferred. */
  | 'receiver'
  /** No exact address: only the receiver type is known (weakest). */
  | 'type';

export interface WaitObject {
  /** The address waited on (the mutex, or the receiver struct for `receiver`); 0 for `type`. */
  readonly addr: number;
  /** The struct the address lies in: the nearest referenced address at or below it (≤ 256 bytes). */
  readonly base: number;
  readonly identity: Identity;
  /** Receiver type of the method that called the sync function, `pkg.T` (may be undefined). */
  readonly ownerType?: string;
}

/** A frame of a detailed goroutine with its origin and exact pointer words. */
export interface WaitFrame {
  readonly frame: Frame;
  readonly index: number;
  readonly origin: FrameOrigin;
  /** Exact pointer-like words of its arguments (receiver first for a method). */
  readonly pointers: readonly number[];
  /** Inexact words that equal an exact word elsewhere in the same stack. */
  readonly corroborated: readonly number[];
}

export interface Waiter {
  readonly detail: GoroutineDetail;
  readonly group: AnalyzedGroup;
  readonly readGroup: Group;
  readonly on: WaitOn;
  readonly object?: WaitObject;
  /** Index in `frames` of the frame in the program's code that made the blocking call. */
  readonly site: number;
  readonly frames: readonly WaitFrame[];
}

export interface WaitGraph {
  readonly waiters: readonly Waiter[];
  readonly byId: ReadonlyMap<number, Waiter>;
  /** Every exact pointer word seen in a frame of the program's code, sorted. */
  readonly addresses: readonly number[];
}
