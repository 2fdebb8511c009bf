/**
 * Loops of a request in flight. A loop method `pkg.(*T).loop` is per-object work; it leaks when its
 * objects are dropped without a stop. When, in the same snapshot, other goroutines are working in or
 * waiting on another method of the same `T` (closing it, reading from it, computing with it), the
 * objects owning these loops are still in use: a single snapshot sees work in progress, not a leak
 * (a growth across snapshots still tells). Generic: receiver types only, no names.
 */
import { receiverType } from '../../analyze/closures.js';
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import type { WaitKind } from '../../model/dump.js';
import { census, siteAtEntry } from '../frames.js';

/**
 * Computing (running, runnable) or waiting on their own workers (WaitGroup, semaphore). Not parked on
 * a channel or a select: a request handler parked there may be the one that abandoned the loops, and
 * debug=1 (state unknown) cannot tell one from the other.
 */
const BUSY: ReadonlySet<WaitKind> = new Set<WaitKind>(['running', 'runnable', 'waitgroup', 'semaphore']);

/** The goroutine of `main.main`: the process itself, never a request in flight. */
function isProcessMain(h: AnalyzedGroup): boolean {
  return h.frames.some((f) => f.func === 'main.main' || f.func === 'runtime.main');
}

/**
 * Goroutines (outside `g`) busy with the objects or the package of `g`'s loop, or undefined:
 * - in another method of the loop's receiver type (closing it, reading from it), or
 * - inside the loop's package, working or waiting on their own workers (WaitGroup, semaphore): the
 *   code that starts these loops per request is running now (before Go 1.21 a dump does not say which
 *   goroutine created which; this is the creator chain still live).
 * The main goroutine does not count: it is the process, not a request.
 */
export function ownerInUse(a: Analysis, g: AnalyzedGroup): { type: string; count: number; func: string } | undefined {
  const site = g.blockingSite;
  // Only a goroutine's own loop: a call parked deep inside waits for a result, another question.
  if (!site || !siteAtEntry(g)) return undefined;
  const type = receiverType(site.func);
  const pkg = site.pkg;
  if (!pkg) return undefined;
  let count = 0;
  let func = '';
  let ofType = true;
  // (The census lists the groups of these kinds, in group order: asked once per candidate.)
  for (const h of census(a).busy) {
    if (h === g || !BUSY.has(h.waitKind) || h.blockingSite?.func === site.func || isProcessMain(h)) continue;
    const f = h.frames.find((x) => x.func !== site.func && ((type && receiverType(x.func) === type) || x.pkg === pkg));
    if (!f) continue;
    count += h.count;
    func ||= f.func;
    ofType &&= !!type && receiverType(f.func) === type;
  }
  // Named by what they share with the loop: its receiver type, else only its package.
  return count ? { type: ofType ? type! : `package ${pkg}`, count, func } : undefined;
}

export function inFlightFact(o: { type: string; count: number; func: string }): string {
  return `${o.count} goroutine${o.count === 1 ? ' is' : 's are'} busy in ${o.type} (${o.func}): work of a request in flight in this snapshot; compare two dumps to tell a leak`;
}

/**
 * Running or runnable goroutines in the program's code (a non-runtime, non-stdlib frame), started
 * elsewhere than the receivers `g` (a receiver's siblings are not its senders): goroutines that could
 * send on the channel `g` waits on and are busy computing. Without channel identities (no creator ids
 * before Go 1.21), "nobody sends" cannot be claimed beside them in one snapshot.
 */
export function busySenders(a: Analysis, g: AnalyzedGroup): number {
  let n = 0;
  for (const h of census(a).busy) {
    if (h === g || (h.waitKind !== 'running' && h.waitKind !== 'runnable')) continue;
    if (h.creator && g.creator && h.creator.func === g.creator.func) continue;
    if (h.blockingSite && g.blockingSite && h.blockingSite.func === g.blockingSite.func) continue;
    if (h.frames.some((f) => f.pkg === 'runtime/pprof')) continue;
    if (h.frames.some((f) => f.origin === 'user' || f.origin === 'dependency')) n += h.count;
  }
  return n;
}
