/**
 * A lock held while blocked (`core/lock-held-blocked`): on the path to the blocking channel
 * operation, `Wait` or `Cond.Wait`, the goroutine took a lock it has not released (the blocked
 * function or a caller at its call), of the class the queued goroutines wait for. A Cond's own
 * locker is released by `Cond.Wait` and does not count.
 */
import { lockAt, lockClass, locksOnPath, objectPath, type Hold } from '../patterns/lock-path.js';
import { lineOf, type Node } from '../syntax/parser.js';
import { methodCall, nodesAtLine } from '../syntax/tree.js';
import { cause } from './cause.js';
import { frameFunc, place, UNCONFIRMED, type Confirmation, type LocatedFrame, type LocatedStack } from './confirm.js';

/** `stack[0]` is the blocking site; `queued` the sites of the goroutines queued for the lock. */
export function confirmHeldLock(stack: LocatedStack, queued: readonly LocatedFrame[], what: string, condWait: boolean): Confirmation {
  const site = stack[0];
  if (!site) return UNCONFIRMED;
  const want = new Set(queued.map((q) => {
    const l = lockAt(q.file, q.line);
    return l && lockClass(q.pkg, q.file, l.obj);
  }).filter((c): c is string => !!c));
  const condLocker = condWait ? condPrefix(site) : undefined;
  const candidates: { fr: LocatedFrame; fn: Node; h: Hold; cls?: string }[] = [];
  for (const fr of stack) {
    const fn = fr && frameFunc(fr);
    if (!fr || !fn) break;
    for (const h of locksOnPath(fr.file, fn, fr.line).held) {
      if (fr === site && condLocker && [h.obj.rootText, ...h.obj.path.slice(0, -1)].join('.') === condLocker) continue;
      candidates.push({ fr, fn, h, cls: lockClass(fr.pkg, fr.file, h.obj) });
    }
  }
  const match = candidates.find((c) => c.cls && want.has(c.cls));
  const pick = match ?? (want.size === 0 ? candidates[0] : undefined);
  if (!pick) return UNCONFIRMED;
  const exact = !!match;
  const kept = pick.h.deferredUnlock ? `its deferred ${pick.h.deferredUnlock.text} runs only when ${pick.fr === site ? 'the function' : 'that function'} returns` : 'no Unlock runs before it';
  const whoWaits = queued.length ? `; ${queued.map((q) => place(q, q.line)).filter((v, i, a) => a.indexOf(v) === i).join(', ')} queue${queued.length === 1 ? 's' : ''} for it` : '';
  const msg = `${pick.h.call.text} is taken here and still held at the ${what} at ${place(site, site.line)} (${kept})${whoWaits}. Release the lock before blocking, or do not block under it.`;
  return {
    verdict: 'confirmed',
    causes: [cause('lock-held-while-blocked', pick.fr.file, pick.h.call, msg, exact ? 'high' : 'medium', pick.fn)],
    note: `${pick.h.call.text} at ${place(pick.fr, lineOf(pick.h.call))} is still held at the ${what} at ${place(site, site.line)}`,
    exact,
  };
}

/** For `x.cond.Wait()`: `x`, the object whose lock the Cond releases while it waits (heuristic: a sibling field). */
function condPrefix(site: LocatedFrame): string | undefined {
  for (const c of nodesAtLine(site.file.root, site.line, new Set(['call_expression']))) {
    const m = methodCall(c);
    if (m?.name !== 'Wait') continue;
    const o = objectPath(site.file, m.op);
    if (o && o.path.length > 0) return [o.rootText, ...o.path.slice(0, -1)].join('.');
  }
  return undefined;
}

