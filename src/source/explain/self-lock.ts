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
 * `stack[0]` is the blocked Lock; `holder` the index of the frame the dump inferred holds it. The
 * whole stack is walked up to its entry. The locked object is carried through each call while it
 * can be (receiver, parameter, captured variable); where it cannot (a callback, a frame outside the
 * checkout, a variable of another function) the walk goes on by lock class. The first caller that
 * holds the lock at its call confirms, with the path between. Only a certain mapping that shows
 * another object, or an Unlock before the call, contradicts: a walk that loses track says nothing.
 */
export function confirmSelfLock(stack: LocatedStack, holder: number): Confirmation {
  const site = stack[0];
  const inner = site && lockAt(site.file, site.line);
  const innerFn = site && frameFunc(site);
  if (!site || !inner || !innerFn) return UNCONFIRMED;
  const innerClass = lockClass(site.pkg, site.file, inner.obj);
  let obj: ObjectPath | undefined = inner.obj;
  let calleeFn: Node | undefined = innerFn;
  /** Every link so far mapped the object exactly. */
  let certain = true;
  let contradiction: Confirmation | undefined;
  const path: string[] = [`${shortFunc(site.func)} (${place(site, site.line)})`];
  for (let k = 1; k < stack.length; k++) {
    const caller = stack[k];
    const callerFn = caller && frameFunc(caller);
    if (!caller || !callerFn) {
      // Outside the checkout: the object is lost, the lock class is not.
      obj = undefined;
      calleeFn = undefined;
      certain = false;
      continue;
    }
    path.unshift(`${shortFunc(caller.func)} (${place(caller, caller.line)})`);
    const call = calleeFn ? callInto(caller.pkg, caller.file, caller.line, calleeFn, calledName(stack[k - 1]!.func)) : undefined;
    let mapped: ObjectPath | undefined = obj && call ? toCaller(obj, calleeFn!, call, caller.file) : undefined;
    if (mapped && !visibleIn(mapped, caller.file.rel, callerFn)) mapped = undefined; // a variable of another function (a callback's capture)
    if (!mapped) certain = false;
    const locks = locksOnPath(caller.file, callerFn, caller.line);
    const same = mapped && locks.held.find((h) => sameObject(h.obj, mapped!));
    // Lost track of the object: fall back to the lock's class.
    const byClass = !same && innerClass && (!mapped || !certain) ? locks.held.find((h) => lockClass(caller.pkg, caller.file, h.obj) === innerClass) : undefined;
    const h = same ?? byClass;
    if (h) {
      const exact = !!same && certain;
      const conf = same ? 'high' : 'medium';
      const again = inner.read && h.read
        ? `${inner.call.text} at ${place(site, site.line)} read-locks it again; a writer queued in between blocks new readers, and the writer waits for the first read lock`
        : `${inner.call.text} at ${place(site, site.line)} takes it again; Go's sync locks are not reentrant`;
      const held = h.deferredUnlock ? `the deferred ${h.deferredUnlock.text} (line ${lineOf(h.deferredUnlock)}) keeps it held` : 'no Unlock runs before the call';
      const via = path.length > 2 ? ` The path: ${path.join(' → ')}.` : '';
      const causes: Cause[] = [
        cause('lock-held-at-call', caller.file, h.call, `${h.call.text} is taken here and still held at the call on line ${caller.line} (${held}); ${again}.${via}`, conf, callerFn),
        cause('lock-reentry', site.file, inner.call, `${objectText(inner.obj)} is already held by this goroutine: ${h.call.text} at ${place(caller, lineOf(h.call))}, still held at the call on line ${caller.line}.${via}`, conf, innerFn),
      ];
      const note = `${h.call.text} at ${place(caller, lineOf(h.call))} is held at the call on line ${caller.line}, and ${inner.call.text} locks the ${same ? 'same object' : 'same lock class'}${path.length > 2 ? ` (through ${path.length - 2} frame${path.length > 3 ? 's' : ''} between)` : ''}`;
      return { verdict: 'confirmed', causes, note, exact };
    }
    if (k === holder && mapped && certain && !contradiction) contradiction = contradict(caller, callerFn, call!, locks.held, locks.released, mapped, inner.obj, site);
    obj = mapped;
    calleeFn = callerFn;
  }
  return contradiction ?? UNCONFIRMED;
}

/** `google.golang.org/grpc/internal/cache.(*TimeoutCache).Add` → `(*TimeoutCache).Add`. */
function shortFunc(f: string): string {
  const tail = f.slice(f.lastIndexOf('/') + 1);
  return tail.slice(tail.indexOf('.') + 1) || f;
}

/** Can the caller's code name this object: a package variable, or a variable of the caller or of a function around it? */
function visibleIn(o: ObjectPath, rel: string, fn: Node): boolean {
  const b = o.root;
  if (!b || !b.func) return true;
  return b.key.startsWith(`${rel}:`) && b.func.startIndex <= fn.startIndex && fn.endIndex <= b.func.endIndex;
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
  return undefined;
}
