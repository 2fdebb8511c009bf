/**
 * The one model every reader produces and every later stage consumes.
 *
 * A `Dump` is what one input (file, stdin, URL) yielded: one or more `Snapshot`s (a file can hold
 * several dumps, each its own snapshot) and any race reports found in it. A snapshot holds `Group`s of
 * goroutines with identical stacks, never individual goroutines: memory grows with distinct stacks.
 * Everything here is plain, readonly-by-convention JSON data.
 */

/** The on-the-wire format a snapshot was read from. */
export type DumpFormat =
  /** pprof protobuf (`debug=0`), gzipped or raw. No ids, states, waits or creators. */
  | 'pprof'
  /** `<name> profile: total N` text (`debug=1`). Leading runtime frames are hidden. */
  | 'debug1'
  /** Full tracebacks: `debug=2`, `runtime.Stack(all)`, SIGQUIT and crash/panic output. */
  | 'debug2';

/** Which runtime profile the snapshot is. `goroutineleak` lists only goroutines the GC proved leaked. */
export type ProfileKind = 'goroutine' | 'goroutineleak';

/**
 * What a goroutine waits on, classified from the printed state (debug=2) or from the leaf runtime
 * frames (debug=0). `unknown` where the format hides both (debug=1 hides leading runtime frames and
 * the visible frames do not tell).
 */
export type WaitKind =
  | 'chan-send'
  | 'chan-receive'
  | 'select'
  /** nil-channel send/receive, `select {}`: parked forever by construction. */
  | 'blocked-forever'
  | 'mutex'
  | 'rwmutex'
  | 'waitgroup'
  | 'cond'
  /** `semacquire` that is none of the above (e.g. errgroup before Go 1.20, x/sync/semaphore). */
  | 'semaphore'
  | 'io'
  | 'sleep'
  | 'syscall'
  | 'running'
  | 'runnable'
  /** GC workers, finalizer, scavenger, trace reader…: goroutines the runtime owns. */
  | 'runtime'
  | 'unknown';

export const WAIT_KINDS: readonly WaitKind[] = [
  'chan-send', 'chan-receive', 'select', 'blocked-forever', 'mutex', 'rwmutex', 'waitgroup', 'cond',
  'semaphore', 'io', 'sleep', 'syscall', 'running', 'runnable', 'runtime', 'unknown',
];

/** One call frame, innermost first in `Group.frames`. */
export interface Frame {
  /** Fully qualified function as printed, without arguments: `k8s.io/client-go/tools/cache.(*Reflector).watch.func1`. */
  readonly func: string;
  /** Import path of the package: `k8s.io/client-go/tools/cache`; `main` for the main package. */
  readonly pkg: string;
  /** Source file as printed (GOPATH, module cache, -trimpath or Windows path); '' when unknown. */
  readonly file: string;
  /** Line number; 0 when unknown. */
  readonly line: number;
  /** Inlined into its caller: printed `(...)` in tracebacks, or a non-last Line of a pprof Location. */
  readonly inlined: boolean;
}

/** The `created by` record of a traceback: where the goroutines of a group were started. */
export interface Creator {
  /** The function that executed the `go` statement, e.g. `golang.org/x/sync/errgroup.(*Group).Go`. */
  readonly func: string;
  readonly pkg: string;
  readonly file: string;
  readonly line: number;
  /**
   * Ids of the creating goroutines (`created by … in goroutine N`, Go 1.21+), distinct, sorted, capped
   * at `MAX_ID_SAMPLE`; empty before Go 1.21.
   */
  readonly goroutineIds: number[];
}

/** Inclusive minute range of `, N minutes` in headers; absent when no goroutine printed one. */
export interface WaitRange {
  readonly min: number;
  readonly max: number;
  /** How many goroutines of the group printed a wait time (the rest waited < 1 minute or unstamped). */
  readonly stamped: number;
}

/** Goroutines of one snapshot with identical stacks, state, creator and labels. */
export interface Group {
  /** Number of goroutines. */
  readonly count: number;
  /** Wait state exactly as printed without decorations (`chan send`, `IO wait`, `running`); '' when the format has none. */
  readonly state: string;
  /** Header decorations seen: `(scan)`, `(leaked)`, `(durable)`, `(nil chan)` are folded into flags. */
  readonly flags: GroupFlags;
  readonly waitKind: WaitKind;
  readonly wait?: WaitRange;
  /** Innermost first. For debug=1 leading runtime frames are absent, as the runtime hides them. */
  readonly frames: Frame[];
  /** Number of frames the runtime elided (`...N frames elided...`); -1 when elided but uncounted (pre-1.21). */
  readonly elidedFrames: number;
  readonly creator?: Creator;
  /** pprof labels (`# labels:`, pprof sample labels, `{k: v}` header labels). */
  readonly labels: Readonly<Record<string, string>>;
  /** A sample of goroutine ids in this group, ascending, at most `MAX_ID_SAMPLE`; empty where the format has none. */
  readonly goroutineIds: number[];
  /**
   * Ancestor tracebacks (`GODEBUG=tracebackancestors`), outermost last: the stacks of the goroutines
   * that created this one, each as its frames. Empty when not printed.
   */
  readonly ancestors: AncestorStack[];
  /** The stack was cut short: the input ended inside it, or `stack unavailable` was printed. */
  readonly partial: boolean;
}

export interface GroupFlags {
  /** `(leaked)`: the goroutineleak GC proved it can never be woken. */
  readonly leaked?: boolean;
  /** `(durable)`: synctest durable block. */
  readonly durable?: boolean;
  /** `locked to thread`. */
  readonly lockedToThread?: boolean;
  /** `synctest bubble N` / `synctest group N`. */
  readonly synctestBubble?: number;
  /** `(scan)`: GC was scanning the goroutine when the dump was taken. */
  readonly scan?: boolean;
  /** `goroutine running on other thread; stack unavailable`. */
  readonly stackUnavailable?: boolean;
  /** This group holds the goroutine that panicked / threw (first goroutine after a crash headline). */
  readonly crashed?: boolean;
}

export interface AncestorStack {
  readonly goroutineId: number;
  readonly frames: Frame[];
}

/** The crash preamble of a traceback, kept as the snapshot's headline. */
export interface Headline {
  readonly kind:
    | 'panic'
    | 'fatal-error'
    | 'signal'
    | 'sigquit'
    | 'test-timeout'
    | 'exception'
    | 'deadlock'
    | 'log-fatal';
  /** One line a person reads: `panic: oh no [recovered]`, `fatal error: concurrent map writes`. */
  readonly message: string;
  /** The preamble lines as printed (prefixes stripped), capped. */
  readonly lines: string[];
}

/**
 * What produced the dump, told from the text around the goroutines (a `go test` timeout, a leak
 * checker's report, the runtime's deadlock detector, a signal…). It sets the analysis' priors: in a
 * test timeout or a leak report every goroutine parked in application code is a suspect, and one
 * goroutine is enough for a finding; in a plain profile, parked goroutines are usually idle.
 */
export interface DumpContext {
  readonly kind: DumpContextKind;
  /** One line a person reads: `go test timed out after 10m0s (running: TestFoo)`. */
  readonly summary: string;
  /** The leak checker, for `leak-report`: `goleak`, `leaktest`, or a project's own (`pion`, `tchannel`). */
  readonly checker?: string;
  /** The test timeout (`panic: test timed out after 10m0s` → 600). */
  readonly timeoutSeconds?: number;
  /** The tests running when it fired (`running tests:`, Go 1.20+), or the tests a leak report names (`--- FAIL: TestX`). */
  readonly tests?: readonly string[];
  /**
   * The goroutines are a part someone cut from a larger dump (read/excerpt.ts): what told it (`no
   * header line`, `goroutine 1 is not among them`, `a stack without its header`…), or `--excerpt`.
   * Set with kind `excerpt`, and on a test timeout or a signal dump that was cut down.
   */
  readonly excerpt?: readonly string[];
}

export type DumpContextKind =
  /** `panic: test timed out after …`: the goroutines of a hung `go test`. */
  | 'test-timeout'
  /** Goroutines a leak checker found alive after a test (goleak, leaktest, a project's own checker). */
  | 'leak-report'
  /** `fatal error: all goroutines are asleep - deadlock!`: the runtime proved every goroutine blocked. */
  | 'deadlock'
  /** `deadlock: main bubble goroutine has exited but blocked goroutines remain` (testing/synctest). */
  | 'synctest-deadlock'
  /** SIGQUIT / SIGABRT (or another signal) dump of a running, possibly hung, process. */
  | 'signal'
  /** A panic or fatal error that is none of the above. */
  | 'crash'
  /** A profile or `runtime.Stack` dump taken on purpose (`/debug/pprof/goroutine`). */
  | 'profile'
  /**
   * A few goroutines someone chose from a larger dump (a bug report, a ticket, a chat): every one
   * shown was picked as relevant, and what is not shown is unknown, not absent.
   */
  | 'excerpt';

/**
 * One goroutine as printed in a debug=2 or crash dump, kept for the first `MAX_DETAILED` goroutines of
 * a snapshot: the frame arguments and wait time that tie goroutines to the objects they wait for
 * (a mutex address, a receiver, a channel). Groups fold these away; small dumps need them.
 */
export interface GoroutineDetail {
  readonly id: number;
  /** Index into `Snapshot.groups`. */
  readonly group: number;
  /** `, N minutes` of its header; absent under a minute or where not printed. */
  readonly waitMinutes?: number;
  /**
   * Each frame's argument list as printed, without the parentheses, aligned with the group's
   * `frames`: `0xc0000120d0, 0x1, {0x4b2e20, 0xc000010018}`, `0xc00001c0a8?`, `...`; '' where none.
   */
  readonly args: readonly string[];
  /** `created by … in goroutine N` (Go 1.21+). */
  readonly createdBy?: number;
}

/** Goroutines of a snapshot kept with their arguments (`Snapshot.goroutines`). */
export const MAX_DETAILED = 2000;

/** Something a reader noticed: skipped text, a partial stack, a truncated file. Never silent. */
export interface Diagnostic {
  readonly severity: 'warning' | 'info';
  /** Stable machine-readable code, e.g. `truncated`, `partial-goroutine`, `unparsed-line`. */
  readonly code: string;
  readonly message: string;
  /** 1-based line in the input where it was noticed, when the input is text. */
  readonly line?: number;
}

/** One goroutine dump: a debug=0/1/2 profile, a crash traceback, or one of several dumps in a file. */
export interface Snapshot {
  /** The input this came from: a path, `-` for stdin, or a URL. */
  readonly source: string;
  /** 0-based position among the snapshots of `source`. */
  readonly index: number;
  readonly format: DumpFormat;
  readonly profile: ProfileKind;
  readonly headline?: Headline;
  /** What produced the dump; absent when nothing around the goroutines says (read as a plain profile). */
  readonly context?: DumpContext;
  /**
   * The first `MAX_DETAILED` goroutines of a debug=2 or crash dump, in input order, with their frame
   * arguments; empty for debug=0/1 (no arguments printed).
   */
  readonly goroutines?: readonly GoroutineDetail[];
  /** ISO 8601 capture time, when the input says (pprof `time_nanos`, a timestamp prefix or header). */
  readonly capturedAt?: string;
  /** Goroutines read into groups (sum of group counts). */
  readonly total: number;
  /** The total the input itself states (`goroutine profile: total N`), when it states one. */
  readonly declaredTotal?: number;
  /** The input ended inside this snapshot: counts are lower bounds. */
  readonly truncated: boolean;
  /** 1-based first and last input lines of this snapshot (text formats). */
  readonly lines?: { readonly first: number; readonly last: number };
  readonly groups: Group[];
  /**
   * Which groups started which, resolved from `created by … in goroutine N` (Go 1.21+) against the
   * ids read: goroutines of `child` were created by goroutines of `parent`. Empty where not printed.
   */
  readonly links: CreatorLink[];
  readonly warnings: Diagnostic[];
  /** Read from a `go tool pprof` text listing instead of the profile itself: what that listing could show. */
  readonly listing?: PprofListing;
}

/**
 * A `go tool pprof` text listing of a goroutine or goroutineleak profile (what people paste instead of
 * the profile). `-traces` and `-raw` keep each sample's stack; `-tree`/`-peek` keep only caller→callee
 * edges with counts; `-top` keeps only per-function totals.
 */
export interface PprofListing {
  /** `top` (also `-top -cum` and a pasted list of `count function` pairs), `traces`, `raw`, `tree` (also `-peek`). */
  readonly kind: 'top' | 'traces' | 'raw' | 'tree';
  /**
   * How the groups were obtained: `exact` (each sample's stack as pprof printed it), `edges` (chains
   * rebuilt from caller/callee counts), `inferred` (chains guessed from per-function totals and the
   * runtime's known blocking chains: counts are approximate).
   */
  readonly groups: 'exact' | 'edges' | 'inferred';
  /** pprof's header (`File:`, `Type:`, `Showing nodes …`) was present. */
  readonly header: boolean;
  /** Frames carry file:line (`-raw`, `-traces -lines`). */
  readonly lines: boolean;
  /** `Dropped N nodes (cum <= X)`: functions pprof left out of the listing; they are not invented. */
  readonly droppedNodes?: number;
  readonly droppedBelow?: number;
  /** `File:` of the header: the program's binary name. */
  readonly program?: string;
}

/** `count` goroutines of group `child` were created by goroutines that are in group `parent`. */
export interface CreatorLink {
  /** Index into `Snapshot.groups`. */
  readonly child: number;
  readonly parent: number;
  readonly count: number;
}

/** One memory access of a data race. */
export interface RaceAccess {
  readonly op: 'read' | 'write';
  /** `Previous write at` → true. */
  readonly previous: boolean;
  readonly address: string;
  /** Goroutine id; 0 for `main goroutine`. */
  readonly goroutineId: number;
  readonly frames: Frame[];
}

/** A `WARNING: DATA RACE` block: two conflicting accesses and where their goroutines were created. */
export interface RaceReport {
  readonly source: string;
  readonly accesses: [RaceAccess, RaceAccess];
  readonly goroutines: RaceGoroutine[];
  /** 1-based line of the `WARNING: DATA RACE` banner. */
  readonly line?: number;
}

export interface RaceGoroutine {
  readonly id: number;
  readonly status: 'running' | 'finished' | string;
  /** Frames of `created at:`, innermost first. */
  readonly createdAt: Frame[];
}

/** Everything read from one input. */
export interface Dump {
  readonly source: string;
  readonly snapshots: Snapshot[];
  readonly races: RaceReport[];
  /** Input-level diagnostics (skipped text, unrecognised lines), beyond those of each snapshot. */
  readonly warnings: Diagnostic[];
}

/** Goroutine ids and creator ids kept per group. */
export const MAX_ID_SAMPLE = 32;
