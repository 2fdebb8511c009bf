/**
 * classifyWait: what a goroutine waits on, from the printed wait reason (debug=2 and tracebacks) or,
 * where the format prints none, from the innermost frames (debug=0 shows every frame, debug=1 hides
 * the leading `runtime.*` ones).
 *
 * Readers call this once per goroutine or record, so the common path is one Map lookup on the state
 * string; frames are read only for `semacquire` (refined into mutex / waitgroup / …), for `waiting`
 * and for the empty state of debug=0/1.
 */
import type { DumpFormat, Frame, WaitKind } from './dump.js';

/** Sentinel: the state alone does not decide; look at the frames. */
const BY_FRAMES = 'by-frames' as const;
type StateVerdict = WaitKind | typeof BY_FRAMES;

/**
 * Wait reasons and statuses as the runtime prints them (runtime2.go `waitReasonStrings`, every Go
 * version from 1.1 on; traceback.go status names). Decorations (` (leaked)`, ` (scan)`) are stripped
 * before lookup; ` (nil chan)` and ` (durable)` are part of the reason and listed here.
 */
const STATES: ReadonlyArray<readonly [string, StateVerdict]> = [
  ['chan send', 'chan-send'],
  ['chan receive', 'chan-receive'],
  ['chan send (durable)', 'chan-send'],
  ['chan receive (durable)', 'chan-receive'],
  // A nil channel or an empty select can never be woken: parked forever by construction.
  ['chan send (nil chan)', 'blocked-forever'],
  ['chan receive (nil chan)', 'blocked-forever'],
  ['select (no cases)', 'blocked-forever'],
  ['select', 'select'],
  ['select (durable)', 'select'],
  // Go < 1.20 prints `semacquire` for every sync primitive: the frames tell which one.
  ['semacquire', BY_FRAMES],
  ['sync.Mutex.Lock', 'mutex'],
  ['sync.RWMutex.RLock', 'rwmutex'],
  ['sync.RWMutex.Lock', 'rwmutex'],
  ['sync.WaitGroup.Wait', 'waitgroup'],
  ['sync.WaitGroup.Wait (durable)', 'waitgroup'],
  ['sync.Cond.Wait', 'cond'],
  // synctest.Run / synctest.Wait wait for every goroutine of the bubble, like WaitGroup.Wait.
  ['synctest.Run', 'waitgroup'],
  ['synctest.Wait', 'waitgroup'],
  // iter.Pull: a coroutine parked until its partner resumes it, the shape of an unbuffered receive
  // (a never-stopped iter.Pull leaks exactly like a receiver nobody sends to).
  ['coroutine', 'chan-receive'],
  ['IO wait', 'io'],
  ['sleep', 'sleep'],
  ['syscall', 'syscall'],
  ['running', 'running'],
  ['runnable', 'runnable'],
  // A plain `waiting` status carries no reason (waitReasonZero): the frames may tell.
  ['waiting', BY_FRAMES],
  // Short, runtime-imposed pauses of ordinary goroutines: they resume without help from any other
  // goroutine, so for leak hunting they are as good as runnable.
  ['preempted', 'runnable'],
  ['copystack', 'runnable'],
  ['debug call', 'runnable'],
  ['GC assist wait', 'runnable'],
  ['GC assist marking', 'runnable'],
  ['GC weak to strong wait', 'runnable'],
  ['wait for GC cycle', 'runnable'],
  ['garbage collection', 'runnable'],
  ['garbage collection scan', 'runnable'],
  ['GC mark termination', 'runnable'],
  ['stopping the world', 'runnable'],
  ['flushing proc caches', 'runnable'],
  ['dumping heap', 'runnable'],
  ['trace goroutine status', 'runnable'],
  ['trace proc status', 'runnable'],
  ['page trace flush', 'runnable'],
  // Goroutines the runtime owns, and the states of the runtime's own bookkeeping.
  ['GC worker (idle)', 'runtime'],
  ['GC worker (active)', 'runtime'],
  ['GC sweep wait', 'runtime'],
  ['GC scavenge wait', 'runtime'],
  ['finalizer wait', 'runtime'],
  ['cleanup wait', 'runtime'],
  ['force gc (idle)', 'runtime'],
  ['timer goroutine (idle)', 'runtime'],
  ['trace reader (blocked)', 'runtime'],
  ['GOMAXPROCS updater (idle)', 'runtime'],
  // The main goroutine parked while another goroutine's panic is printed: the process is dying.
  ['panicwait', 'runtime'],
  ['idle', 'runtime'],
  ['dead', 'runtime'],
  ['moribund', 'runtime'],
];

/** Frames that decide the wait on their own wherever they appear among the innermost frames. */
const FRAME_KINDS = new Map<string, WaitKind>([
  ['runtime.chansend', 'chan-send'],
  ['runtime.chansend1', 'chan-send'],
  ['runtime.chanrecv', 'chan-receive'],
  ['runtime.chanrecv1', 'chan-receive'],
  ['runtime.chanrecv2', 'chan-receive'],
  ['runtime.selectgo', 'select'],
  ['runtime.selectgoImpl', 'select'], // Go < 1.9
  ['runtime.block', 'blocked-forever'], // select {}
  ['runtime.coroswitch', 'chan-receive'],
  ['internal/poll.runtime_pollWait', 'io'],
  ['net.runtime_pollWait', 'io'], // Go < 1.9
  ['runtime.netpollblock', 'io'],
  ['netpollblock', 'io'], // Go 1.1–1.3 C runtime
  ['time.Sleep', 'sleep'],
  ['runtime.timeSleep', 'sleep'],
  ['runtime.cgocall', 'syscall'],
  ['runtime.asmcgocall', 'syscall'],
  ['runtime.entersyscall', 'syscall'],
  ['runtime.entersyscallblock', 'syscall'],
  // os/signal's loop sleeps in notetsleepg, which enters a blocking syscall (printed `[syscall]`).
  ['runtime.notetsleepg', 'syscall'],
  ['os/signal.signal_recv', 'syscall'],
  // The goroutine writing the dump (pprof debug=0/1/2, runtime.Stack).
  ['runtime/pprof.writeGoroutineStacks', 'running'],
  // debug=1/0 of Go ≤ 1.14 and ≥ 1.22: the profile call itself is a hidden `runtime.*` frame.
  ['runtime/pprof.writeRuntimeProfile', 'running'],
  ['runtime.Stack', 'running'],
  // Goroutines the runtime owns: GC workers, sweeper, scavenger, finalizer and cleanup runners, forcegc.
  ['runtime.gcBgMarkWorker', 'runtime'],
  ['runtime.bgsweep', 'runtime'],
  ['runtime.bgscavenge', 'runtime'],
  ['runtime.runfinq', 'runtime'],
  ['runtime.runCleanups', 'runtime'],
  ['runtime.forcegchelper', 'runtime'],
  ['runtime.timerproc', 'runtime'],
  ['runtime.traceReader', 'runtime'],
  ['runtime.updateMaxProcsGoroutine', 'runtime'],
]);

/** Prefixes for families of functions (versioned names, syscall variants). */
const FRAME_PREFIXES: ReadonlyArray<readonly [string, WaitKind]> = [
  ['runtime.goroutineProfileWithLabels', 'running'],
  ['runtime.goroutineLeakProfileWithLabels', 'running'],
  ['runtime/pprof.runtime_goroutineProfileWithLabels', 'running'],
  ['runtime/pprof.runtime_goroutineLeakProfileWithLabels', 'running'],
  ['syscall.Syscall', 'syscall'],
  ['syscall.RawSyscall', 'syscall'],
  ['syscall.syscall', 'syscall'],
  ['syscall.rawSyscall', 'syscall'],
  ['runtime/internal/syscall.Syscall', 'syscall'],
  ['internal/runtime/syscall.Syscall', 'syscall'],
  ['golang.org/x/sys/unix.Syscall', 'syscall'],
  ['golang.org/x/sys/unix.RawSyscall', 'syscall'],
  ['golang.org/x/sys/windows.Syscall', 'syscall'],
];

/** The semaphore entry points of package sync (and internal/sync, Go 1.24+), by what they imply. */
const SEMA_ENTRIES = new Map<string, WaitKind>([
  ['runtime_SemacquireMutex', 'mutex'],
  ['runtime_SemacquireRWMutexR', 'rwmutex'],
  ['runtime_SemacquireRWMutex', 'rwmutex'],
  ['runtime_SemacquireWaitGroup', 'waitgroup'],
  ['runtime_Semacquire', 'semaphore'],
  ['runtime_notifyListWait', 'cond'],
]);

/** sync types whose methods name the primitive; the outermost one on the stack wins (see syncKind). */
const SYNC_TYPES: ReadonlyArray<readonly [string, WaitKind]> = [
  ['(*Mutex).', 'mutex'],
  ['(*RWMutex).', 'rwmutex'],
  ['(*WaitGroup).', 'waitgroup'],
  ['(*Cond).', 'cond'],
];

const stateCache = new Map<string, StateVerdict>(STATES);
/** Decorations that never change the kind. */
const DECORATION = /(?: \((?:leaked|scan)\))+$/;

/**
 * Classify one goroutine (or record). `state` is the printed wait reason or status, '' where the
 * format has none; `frames` innermost first, as the reader produced them.
 */
export function classifyWait(state: string, frames: readonly Frame[], format: DumpFormat): WaitKind {
  let verdict = stateCache.get(state);
  if (verdict === undefined) {
    verdict = stateVerdict(state);
    if (stateCache.size < 1024) stateCache.set(state, verdict);
  }
  if (verdict !== BY_FRAMES) return verdict;
  return kindFromFrames(frames, format, state);
}

function stateVerdict(raw: string): StateVerdict {
  let s = raw.trim();
  // `sleep, 5 minutes`, `select, locked to thread`: readers should strip these, be forgiving anyway.
  const comma = s.indexOf(', ');
  if (comma >= 0) s = s.slice(0, comma);
  s = s.replace(DECORATION, '');
  if (s === '') return BY_FRAMES;
  const known = stateCache.get(s);
  if (known !== undefined) return known;
  // Unknown future reasons: recognise the family by prefix, else let the frames decide.
  if (s.startsWith('chan send')) return 'chan-send';
  if (s.startsWith('chan receive')) return 'chan-receive';
  if (s.startsWith('select')) return 'select';
  if (s.startsWith('sync.Mutex')) return 'mutex';
  if (s.startsWith('sync.RWMutex')) return 'rwmutex';
  if (s.startsWith('sync.WaitGroup')) return 'waitgroup';
  if (s.startsWith('sync.Cond')) return 'cond';
  if (s.startsWith('GC ') || s.startsWith('gc ')) return 'runtime';
  return BY_FRAMES;
}

/**
 * From the innermost frames. Walks down past the runtime and sync plumbing (gopark, semacquire1,
 * lockSlow…) until a frame decides or the first frame of ordinary code is reached.
 */
function kindFromFrames(frames: readonly Frame[], format: DumpFormat, state: string): WaitKind {
  for (let i = 0; i < frames.length; i++) {
    const fn = frames[i].func;
    const direct = FRAME_KINDS.get(fn) ?? prefixKind(fn);
    if (direct) return (direct === 'chan-send' || direct === 'chan-receive') && parksOnNilChan(frames, i) ? 'blocked-forever' : direct;
    const sema = semaEntry(fn);
    if (sema) return syncKind(frames, i + 1, sema);
    if (isPlumbing(frames[i])) continue;
    // Ordinary code on top. In debug=0 every frame is present, so a parked goroutine always has
    // runtime.gopark above it: none means it was running or runnable. In debug=1 the parking frames
    // are hidden, so a user function on top could be a send, a receive or a select: do not guess.
    if (i === 0 && format === 'pprof') return 'runnable';
    // Bare `semacquire` from a runtime-internal semaphore (no sync frame above ordinary code).
    if (state === 'semacquire') return 'semaphore';
    return 'unknown';
  }
  // Parked with nothing above the park (a pprof -top listing's unexplained gopark total, a cut
  // stack): what it waits for is unknown, not the runtime's own.
  if (frames.length === 1 && frames[0].func === 'runtime.gopark') return 'unknown';
  // Only runtime frames (debug=1 prints such a stack in full): a goroutine the runtime owns.
  if (frames.length > 0 && frames.every((f) => f.func.startsWith('runtime.') || f.pkg === 'runtime')) return 'runtime';
  return state === 'semacquire' ? 'semaphore' : 'unknown';
}

/**
 * Lines between the compiler's entry point (`chanrecv1`/`chanrecv2`, `chansend1`) and a park inside
 * `chanrecv`/`chansend` below which the park is the nil-channel branch. In every runtime/chan.go since
 * Go 1.5 the entry points are defined right before `chanrecv`/`chansend`, whose first statement
 * (after a debug print) is `if c == nil { … gopark(…ChanReceiveNilChan / ChanSendNilChan…) }`: 20–25
 * lines below the entry point's call (Go 1.19: 469−447, 165−145). The blocking park comes after the
 * lock, the closed check, the waiting-partner and buffer paths and the sudog setup: 110+ lines below
 * (Go 1.19: 583−442, 259−145; Go 1.8: ~120). No version's line numbers are hard-coded: only the
 * layout of the file, which has not changed in this respect.
 */
const NIL_CHAN_MAX_OFFSET = 60;

/**
 * Frames with every runtime frame (debug=0, tracebacks): is the park at `frames[i]`
 * (`runtime.chanrecv` / `runtime.chansend`) the nil-channel branch? Needs the caller frame to be the
 * compiler entry point in the same file and both line numbers; anything else (reflect, select,
 * missing lines) is left alone.
 */
function parksOnNilChan(frames: readonly Frame[], i: number): boolean {
  const f = frames[i];
  const caller = frames[i + 1];
  if (!caller || f.line <= 0 || caller.line <= 0 || f.file !== caller.file) return false;
  const ok =
    (f.func === 'runtime.chanrecv' && (caller.func === 'runtime.chanrecv1' || caller.func === 'runtime.chanrecv2')) ||
    (f.func === 'runtime.chansend' && caller.func === 'runtime.chansend1');
  if (!ok) return false;
  const d = f.line - caller.line;
  return d > 0 && d < NIL_CHAN_MAX_OFFSET;
}

/** First characters of FRAME_PREFIXES: most functions (the program's own) are ruled out by one test. */
const PREFIX_STARTS = new Set(FRAME_PREFIXES.map(([p]) => p.charCodeAt(0)));

function prefixKind(fn: string): WaitKind | undefined {
  if (!PREFIX_STARTS.has(fn.charCodeAt(0))) return undefined;
  for (let i = 0; i < FRAME_PREFIXES.length; i++) if (fn.startsWith(FRAME_PREFIXES[i][0])) return FRAME_PREFIXES[i][1];
  return undefined;
}

/** `sync.runtime_SemacquireMutex`, `internal/sync.runtime_SemacquireMutex`, … → what it implies. */
function semaEntry(fn: string): WaitKind | undefined {
  let rest: string;
  if (fn.startsWith('sync.')) rest = fn.slice(5);
  else if (fn.startsWith('internal/sync.')) rest = fn.slice(14);
  else return undefined;
  return SEMA_ENTRIES.get(rest);
}

/**
 * After a semaphore entry: the outermost sync primitive among the sync frames that follow names the
 * wait. `RWMutex.Lock` takes its writer `Mutex` first, and `Once.Do` locks a `Mutex`, so the
 * outermost known type is the one the user called (RWMutex → rwmutex; Once → its mutex).
 */
function syncKind(frames: readonly Frame[], from: number, entry: WaitKind): WaitKind {
  let kind = entry;
  for (let i = from; i < frames.length; i++) {
    const fn = frames[i].func;
    let rest: string;
    if (fn.startsWith('sync.')) rest = fn.slice(5);
    else if (fn.startsWith('internal/sync.')) rest = fn.slice(14);
    else break;
    for (const [t, k] of SYNC_TYPES) {
      if (rest.startsWith(t)) {
        kind = k;
        break;
      }
    }
  }
  return kind;
}

/**
 * Runtime parking machinery and sync internals that sit between the park and the decisive frame;
 * `pkg === 'runtime'` also covers the C and assembly functions of Go ≤ 1.4 (`return`, `park`).
 */
function isPlumbing(f: Frame): boolean {
  const fn = f.func;
  return fn.startsWith('runtime.') || f.pkg === 'runtime' || fn.startsWith('sync.') || fn.startsWith('internal/sync.');
}
