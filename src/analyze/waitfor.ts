/**
 * The wait-for graph of a small dump: which goroutine waits on which object (a mutex, an RWMutex, a
 * WaitGroup, a Cond, a channel), and which goroutines reference that object higher in their stacks
 * and so may hold it. Built from the frame arguments of `Snapshot.goroutines` (debug=2 and crash
 * dumps): `sync.(*Mutex).lockSlow(0xc000082050)` names the mutex; a method's first word is its
 * receiver; a mutex field lies a few bytes past the address of the struct that holds it.
 *
 * Who *holds* a lock is never printed. A goroutine that references the struct of a lock in a frame
 * above the one it is blocked in *may* hold it; the rules say so ("inferred"), and source analysis
 * can confirm it. Values printed with `?` are never used alone: an inexact word counts only where an
 * exact word of the same goroutine's stack says the same.
 */
import type { Frame, GoroutineDetail, Group, Snapshot } from '../model/dump.js';
import { argWords, isPointerLike, pointerWords, type PointerWords } from './args.js';
import { isClosure, receiverType } from './closures.js';
import { ownerLookup } from './group.js';
import type { OriginClassifier } from './origin.js';
import type { AnalyzedGroup, WaitFrame, WaitGraph, WaitObject, WaitOn, Waiter } from './types.js';

/** Largest struct a lock field may lie in, from the struct's start (bytes). */
export const FIELD_SPAN = 256;

const SYNC_OR_RUNTIME = /^(sync|internal\/sync|runtime|internal\/runtime\/.*|sync\/atomic)\./;

/** The innermost sync/runtime call a goroutine is blocked in, and what it says about the object. */
interface BlockingCall {
  readonly on: WaitOn;
  /** Frame index of the call whose first word is the object (or -1). */
  readonly argFrame: number;
  /**
   * Frame index of the runtime call whose first word is the object's semaphore (or -1), and how far
   * that semaphore lies into the object: `semacquire1(&rw.readerSem)` is the RWMutex + 12. Crash-style
   * tracebacks (SIGQUIT, GOTRACEBACK=system) print these frames, often exact where the sync frame's
   * own argument is not.
   */
  readonly semaFrame: number;
  readonly semaOffset: number;
  /** Outermost sync/runtime frame of the wait: the site is just above it. */
  readonly last: number;
}

function blockingCall(g: Group): BlockingCall {
  const fr = g.frames;
  let on: WaitOn | undefined;
  let argFrame = -1;
  let semaFrame = -1;
  let lockSlow = false;
  let rwLock = false;
  let i = 0;
  for (; i < fr.length && SYNC_OR_RUNTIME.test(fr[i].func); i++) {
    const f = fr[i].func;
    if (SEMA_FUNCS.has(f)) {
      if (semaFrame < 0) semaFrame = i;
      continue;
    }
    if (f.endsWith('.lockSlow')) lockSlow = true;
    switch (f) {
      case 'sync.(*Mutex).lockSlow':
      case 'sync.(*Mutex).Lock':
      case 'internal/sync.(*Mutex).lockSlow':
      case 'internal/sync.(*Mutex).Lock':
        if (on === undefined) {
          on = 'lock';
          argFrame = i;
        }
        break;
      case 'sync.(*RWMutex).Lock':
        // The RWMutex (a writer also waits in its inner Mutex, whose address is the RWMutex's).
        on = 'lock';
        argFrame = i;
        rwLock = true;
        break;
      case 'sync.(*RWMutex).RLock':
        on = 'rlock';
        argFrame = i;
        break;
      case 'sync.(*WaitGroup).Wait':
        on = 'waitgroup';
        argFrame = i;
        break;
      case 'sync.(*Cond).Wait':
        on = 'cond';
        argFrame = i;
        break;
      case 'runtime.chansend1':
      case 'runtime.chansend':
        on ??= 'chan-send';
        if (argFrame < 0) argFrame = i;
        break;
      case 'runtime.chanrecv1':
      case 'runtime.chanrecv2':
      case 'runtime.chanrecv':
        on ??= 'chan-receive';
        if (argFrame < 0) argFrame = i;
        break;
      case 'runtime.selectgo':
        on ??= 'select';
        break;
      default:
    }
  }
  if (on === undefined) {
    switch (g.waitKind) {
      case 'chan-send':
        on = 'chan-send';
        break;
      case 'chan-receive':
        on = 'chan-receive';
        break;
      case 'select':
        on = 'select';
        break;
      case 'mutex':
        on = 'lock';
        break;
      case 'rwmutex':
        on = g.state.includes('RLock') ? 'rlock' : 'lock';
        break;
      case 'waitgroup':
        on = 'waitgroup';
        break;
      case 'cond':
        on = 'cond';
        break;
      default:
        on = 'other';
    }
  }
  return { on, argFrame, last: i - 1, semaFrame, semaOffset: semaOffset(on, lockSlow, rwLock) };
}

/** Runtime calls whose first word is a semaphore inside a sync object. */
const SEMA_FUNCS = new Set([
  'runtime.semacquire1', 'sync.runtime_SemacquireMutex', 'sync.runtime_SemacquireRWMutexR', 'sync.runtime_SemacquireRWMutex',
  'sync.runtime_Semacquire', 'sync.runtime_SemacquireWaitGroup', 'sync.runtime_notifyListWait',
]);

/**
 * Where the semaphore lies in its object on 64-bit platforms (the layouts of sync's types have not
 * moved since Go 1.9), told by the sync frames above it (the runtime call differs between versions):
 * Mutex.sema +4 (in `lockSlow`); RWMutex.writerSem +8 (a writer waiting for readers), readerSem +12;
 * WaitGroup's semaphore +8 (after its 64-bit state); Cond.notify +16 (after its Locker interface).
 * -1: unknown.
 */
function semaOffset(on: WaitOn | undefined, lockSlow: boolean, rwLock: boolean): number {
  switch (on) {
    case 'rlock':
      return 12;
    case 'lock':
      return lockSlow ? 4 : rwLock ? 8 : -1;
    case 'waitgroup':
      return 8;
    case 'cond':
      return 16;
    default:
      return -1;
  }
}

/** A method itself, not a closure inside one: its first word is the receiver. */
function isMethod(func: string): boolean {
  return receiverType(func) !== undefined && !isClosure(func);
}

const NONE: readonly number[] = Object.freeze([]);

/**
 * Wait frames without pointer words, by frame and then index: most frames print none (or only
 * inexact words nothing corroborates), and goroutines of one stack repeat them.
 */
type SharedFrames = Map<Frame, WaitFrame[]>;

/** The pointer words of each frame of the goroutine `waitFrames` reads (one array for all). */
const frameWords: PointerWords[] = [];

function waitFrames(d: GoroutineDetail, g: Group, origins: OriginClassifier, shared: SharedFrames): WaitFrame[] {
  const n = g.frames.length;
  let exact: Set<number> | undefined;
  // (Indexed loops: this runs cold in a CLI run, where a for-of step allocates an iterator result.)
  for (let i = 0; i < n; i++) {
    const p = pointerWords(d.args[i] ?? '');
    frameWords[i] = p;
    for (let k = 0; k < p.exact.length; k++) (exact ??= new Set()).add(p.exact[k]);
  }
  const out = new Array<WaitFrame>(n);
  for (let i = 0; i < n; i++) {
    const p = frameWords[i];
    const frame = g.frames[i];
    let corroborated = NONE;
    if (exact !== undefined) {
      for (let k = 0; k < p.inexact.length; k++) {
        const v = p.inexact[k];
        if (exact.has(v)) corroborated = corroborated === NONE ? [v] : [...corroborated, v];
      }
    }
    if (p.exact.length === 0 && corroborated === NONE) {
      let at = shared.get(frame);
      if (at === undefined) shared.set(frame, (at = []));
      out[i] = at[i] ??= { frame, index: i, origin: origins.origin(frame), pointers: NONE, corroborated };
    } else out[i] = { frame, index: i, origin: origins.origin(frame), pointers: p.exact.length === 0 ? NONE : [...p.exact], corroborated };
  }
  return out;
}

/** The first word of frame `i` when it is exact (or corroborated by an exact twin in the stack). */
function firstWord(d: GoroutineDetail, frames: readonly WaitFrame[], i: number): { value: number; exact: boolean } | undefined {
  if (i < 0 || i >= frames.length) return undefined;
  const w = argWords(d.args[i] ?? '')[0];
  if (w === undefined || !isPointerLike(w.value)) return undefined;
  if (w.exact) return w;
  return frames[i].corroborated.includes(w.value) ? w : undefined;
}

/**
 * The wait-for graph of a snapshot's detailed goroutines; undefined when the dump printed no
 * arguments (debug=0/1).
 */
export function waitGraph(
  snapshot: Snapshot,
  groups: readonly AnalyzedGroup[],
  origins: OriginClassifier,
): WaitGraph | undefined {
  const details = snapshot.goroutines;
  if (details === undefined || details.length === 0) return undefined;
  // Read-stage group index → its analyzed group, from the numbers grouping kept (a Map of 20,000
  // entries cost most of this once; an array of them, a pass over every group).
  const ownerOf = ownerLookup(snapshot, groups);
  const shared: SharedFrames = new Map();
  const pending: Pending[] = [];
  const addrSet = new Set<number>();
  // The blocking call of each read-stage group (its goroutines share it).
  const calls = new Map<Group, BlockingCall>();
  for (let k = 0; k < details.length; k++) {
    const d = details[k];
    const g = snapshot.groups[d.group];
    const ag = ownerOf(d.group);
    if (g === undefined || ag === undefined) continue;
    let call = calls.get(g);
    if (call === undefined) calls.set(g, (call = blockingCall(g)));
    const frames = waitFrames(d, g, origins, shared);
    // Struct starts come from the program's frames above the wait (the sync call's own word is the
    // field itself: it must not be its own base).
    for (let i = call.last + 1; i < frames.length; i++) {
      const ps = frames[i].pointers;
      if (ps.length > 0 && frames[i].origin !== 'runtime') for (let k = 0; k < ps.length; k++) addrSet.add(ps[k]);
    }
    pending.push({ d, g, ag, call, frames });
  }
  const addresses = [...addrSet].sort((a, b) => a - b);
  const { waiters, byId } = waitersOf(pending, addresses, origins);
  return { waiters, byId, addresses };
}

/** A detailed goroutine of `waitGraph`, its groups, blocking call and wait frames. */
interface Pending {
  readonly d: GoroutineDetail;
  readonly g: Group;
  readonly ag: AnalyzedGroup;
  readonly call: BlockingCall;
  readonly frames: WaitFrame[];
}

/**
 * The waiters of `pending`, with their wait sites and objects. (A function of its own: V8 compiles
 * a called-once function's long loop with the code after it, and leaving the loop threw that away.)
 */
function waitersOf(pending: readonly Pending[], addresses: readonly number[], origins: OriginClassifier): Pick<WaitGraph, 'waiters' | 'byId'> {
  const waiters: Waiter[] = [];
  const byId = new Map<number, Waiter>();
  for (let k = 0; k < pending.length; k++) {
    const { d, g, ag, call, frames } = pending[k];
    // The site is the program's frame that made the call: past the runtime, the standard library and
    // well-known helpers (errgroup.Wait over WaitGroup.Wait), as for a group's blocking site.
    let site = call.last + 1;
    while (site < frames.length && ((frames[site].origin !== 'user' && frames[site].origin !== 'dependency') || origins.isHelper(frames[site].frame))) site++;
    // No frame of the program's: the frame above the wait (a stack cut short may have none at all).
    if (site >= frames.length) site = Math.max(0, Math.min(call.last + 1, frames.length - 1));
    const object = waitObject(d, frames, call, site, addresses);
    const w: Waiter = { detail: d, group: ag, readGroup: g, on: call.on, site, frames, ...(object ? { object } : {}) };
    waiters.push(w);
    byId.set(d.id, w);
  }
  return { waiters, byId };
}

function waitObject(
  d: GoroutineDetail,
  frames: readonly WaitFrame[],
  call: BlockingCall,
  site: number,
  addresses: readonly number[],
): WaitObject | undefined {
  if (call.on === 'other' || call.on === 'select') return undefined;
  const siteFunc = frames[site]?.frame.func ?? '';
  const ownerType = receiverType(siteFunc);
  const seen = firstWord(d, frames, call.argFrame);
  if (seen !== undefined && seen.exact) {
    return { addr: seen.value, base: baseOf(seen.value, addresses), identity: 'seen', ...(ownerType ? { ownerType } : {}) };
  }
  const sema = call.semaOffset >= 0 ? firstWord(d, frames, call.semaFrame) : undefined;
  if (sema !== undefined && sema.exact && sema.value > call.semaOffset) {
    const addr = sema.value - call.semaOffset;
    return { addr, base: baseOf(addr, addresses), identity: 'seen', ...(ownerType ? { ownerType } : {}) };
  }
  // A channel is not a field of the receiver in any way the dump shows: only its printed address counts.
  if (call.on === 'chan-send' || call.on === 'chan-receive') return undefined;
  // The lock (or Cond, WaitGroup) is a field of the receiver of the method that called it.
  if (ownerType !== undefined && isMethod(siteFunc)) {
    const r = firstWord(d, frames, site);
    if (r !== undefined) return { addr: r.value, base: r.value, identity: 'receiver', ownerType };
  }
  if (ownerType !== undefined) return { addr: 0, base: 0, identity: 'type', ownerType };
  return undefined;
}

/** The start of the struct `addr` lies in: the nearest referenced address at or below it. */
export function baseOf(addr: number, addresses: readonly number[]): number {
  let lo = 0;
  let hi = addresses.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (addresses[mid] <= addr) lo = mid + 1;
    else hi = mid;
  }
  const below = lo > 0 ? addresses[lo - 1] : undefined;
  return below !== undefined && addr - below < FIELD_SPAN ? below : addr;
}

/** Frame `f` references the object: an exact word is its struct's start or the waited address. */
export function references(f: WaitFrame, o: WaitObject): boolean {
  if (o.identity === 'type') return false;
  return f.pointers.includes(o.base) || f.pointers.includes(o.addr) || f.corroborated.includes(o.base);
}
