/**
 * Double locking (`core/double-lock`): the dump shows a goroutine blocked in `Lock`/`RLock` and a
 * caller working on the same object; the source tells whether that caller took the same lock and
 * still holds it at the call (confirmed), or released it, or locked another object (contradicted).
 * The locked object is carried up the stack through each call (receiver → the call's receiver,
 * parameter → argument) so "the same lock" means the same field path of the same variable.
 */
import { callInto, lockAt, lockClass, locksOnPath, objectText, sameObject, toCaller, type Hold, type ObjectPath, type Release } from '../patterns/lock-path.js';
import { lineOf, type Node } from '../syntax/parser.js';
import { cause, type Cause } from './cause.js';
import { calledName, frameFunc, place, UNCONFIRMED, type Confirmation, type LocatedFrame, type LocatedStack } from './confirm.js';

/**
 * `stack[0]` is the blocked Lock; `holder` the index of the frame the dump inferred holds it. Frames
 * are followed outwards while the object can be mapped; the first caller holding it confirms.
 */
export function confirmSelfLock(stack: LocatedStack, holder: number): Confirmation {
  const site = stack[0];
  const inner = site && lockAt(site.file, site.line);
  const innerFn = site && frameFunc(site);
  if (!site || !inner || !innerFn) return UNCONFIRMED;
  const innerClass = lockClass(site.pkg, site.file, inner.obj);
  let obj: ObjectPath | undefined = inner.obj;
  let calleeFn = innerFn;
  let contradiction: Confirmation | undefined;
  for (let k = 1; k < stack.length; k++) {
    const caller = stack[k];
    const callerFn = caller && frameFunc(caller);
    if (!caller || !callerFn) break;
    const call = callInto(caller.pkg, caller.file, caller.line, calleeFn, calledName(stack[k - 1]!.func));
    const mapped: ObjectPath | undefined = obj && call ? toCaller(obj, calleeFn, call, caller.file) : undefined;
    const path = locksOnPath(caller.file, callerFn, caller.line);
    const same = mapped && path.held.find((h) => sameObject(h.obj, mapped));
    // Lost track of the object (a local, an unresolved call): fall back to the lock's class.
    const byClass = !mapped && innerClass ? path.held.find((h) => lockClass(caller.pkg, caller.file, h.obj) === innerClass) : undefined;
    const h = same ?? byClass;
    if (h) {
      const exact = !!same;
      const conf = exact ? 'high' : 'medium';
      const again = inner.read && h.read
        ? `${inner.call.text} at ${place(site, site.line)} read-locks it again; a writer queued in between blocks new readers, and the writer waits for the first read lock`
        : `${inner.call.text} at ${place(site, site.line)} takes it again; Go's sync locks are not reentrant`;
      const held = h.deferredUnlock ? `the deferred ${h.deferredUnlock.text} (line ${lineOf(h.deferredUnlock)}) keeps it held` : 'no Unlock runs before the call';
      const causes: Cause[] = [
        cause('lock-held-at-call', caller.file, h.call, `${h.call.text} is taken here and still held at the call on line ${caller.line} (${held}); ${again}.`, conf, callerFn),
        cause('lock-reentry', site.file, inner.call, `${objectText(inner.obj)} is already held by this goroutine: ${h.call.text} at ${place(caller, lineOf(h.call))}, still held at the call on line ${caller.line}.`, conf, innerFn),
      ];
      const note = `${h.call.text} at ${place(caller, lineOf(h.call))} is held at the call on line ${caller.line}, and ${inner.call.text} locks the ${exact ? 'same object' : 'same lock class'}`;
      return { verdict: 'confirmed', causes, note, exact };
    }
    if (k === holder && mapped) contradiction = contradict(caller, callerFn, call!, path.held, path.released, mapped, inner.obj, site);
    if (!mapped) break;
    obj = mapped;
    calleeFn = callerFn;
  }
  return contradiction ?? UNCONFIRMED;
}

/** Why the holder frame the dump inferred does not hold the lock: released before the call, or another object locked. */
function contradict(caller: LocatedFrame, callerFn: Node, call: Node, held: Hold[], released: Release[], mapped: ObjectPath, innerObj: ObjectPath, site: LocatedFrame): Confirmation | undefined {
  const rel = released.find((r) => sameObject(r.hold.obj, mapped));
  if (rel) {
    const msg = `${rel.hold.call.text} is released by ${rel.unlock.text} (line ${lineOf(rel.unlock)}) before the call on line ${caller.line}: this caller does not hold the lock, so the wait at ${place(site, site.line)} is not a double lock; look for another holder.`;
    return {
      verdict: 'contradicted',
      causes: [cause('lock-released-before-call', caller.file, rel.unlock, msg, 'medium', callerFn, lineOf(rel.hold.call))],
      note: `${place(caller, caller.line)} releases ${objectText(mapped)} (line ${lineOf(rel.unlock)}) before the call`,
      exact: true,
    };
  }
  const cls = lockClass(caller.pkg, caller.file, mapped);
  const other = held.find((h) => !sameObject(h.obj, mapped) && (cls === undefined || lockClass(caller.pkg, caller.file, h.obj) === cls));
  if (other) {
    const msg = `${other.call.text} holds ${objectText(other.obj)} here, but the call on line ${caller.line} (${call.text}) locks ${objectText(mapped)}, another object (${objectText(innerObj)} in the callee): not a double lock. Two goroutines doing this with the objects swapped deadlock (lock order); take the locks in one order.`;
    return {
      verdict: 'contradicted',
      causes: [cause('lock-order', caller.file, other.call, msg, 'medium', callerFn)],
      note: `the caller holds ${objectText(other.obj)} but the callee locks ${objectText(mapped)}, another object of the same type: a lock-order problem rather than a double lock`,
      exact: true,
    };
  }
  if (held.length === 0) {
    return {
      verdict: 'contradicted',
      causes: [],
      note: `${place(caller, caller.line)} takes no lock before the call`,
      exact: false,
    };
  }
  return undefined;
}
