/**
 * Lock-order cycles (`core/lock-order`): for each goroutine of the cycle, the line where it took the
 * lock it holds and the line of the lock it waits for, in the same function (or a caller on its
 * stack). Confirmed when every member holds, on the path to its wait, a lock of the class another
 * member waits for, on a different object than its own wait (two Lock calls on different variables).
 */
import { lockAt, lockClass, locksOnPath, objectText, sameObject, type Hold } from '../patterns/lock-path.js';
import { lineOf } from '../syntax/parser.js';
import { cause, type Cause } from './cause.js';
import { frameFunc, place, UNCONFIRMED, type Confirmation, type LocatedStack } from './confirm.js';

export interface CycleMember {
  readonly id: number;
  readonly stack: LocatedStack;
}

export function confirmLockCycle(members: readonly CycleMember[]): Confirmation {
  const found = members.map((m) => {
    const site = m.stack[0];
    const wait = site && lockAt(site.file, site.line);
    const fn = site && frameFunc(site);
    if (!site || !wait || !fn) return undefined;
    const cls = lockClass(site.pkg, site.file, wait.obj);
    // The held lock: in the blocked function first, else in a caller at its call.
    for (const fr of m.stack) {
      const f = fr && frameFunc(fr);
      if (!fr || !f) break;
      const held = locksOnPath(fr.file, f, fr.line).held.filter((h) => fr !== site || !sameObject(h.obj, wait.obj));
      if (held.length === 0) continue;
      const h: Hold = held.find((x) => lockClass(fr.pkg, fr.file, x.obj) === cls) ?? held.at(-1)!;
      return { m, site, wait, fn, fr, f, h, cls, heldCls: lockClass(fr.pkg, fr.file, h.obj) };
    }
    return undefined;
  });
  if (found.some((x) => !x)) return UNCONFIRMED;
  const all = found.map((x) => x!);
  const waited = new Set(all.map((x) => x.cls));
  const exact = all.every((x) => x.heldCls !== undefined && waited.has(x.heldCls));
  // Members at the same two lines (one function, arguments swapped) share their cause lines.
  const byLines = new Map<string, typeof all>();
  for (const x of all) {
    const k = `${place(x.fr, lineOf(x.h.call))}>${place(x.site, x.site.line)}`;
    byLines.set(k, [...(byLines.get(k) ?? []), x]);
  }
  const causes: Cause[] = [];
  const lines: string[] = [];
  for (const xs of byLines.values()) {
    const x = xs[0];
    const ids = xs.map((y) => y.m.id);
    const who = ids.length === 1 ? `Goroutine ${ids[0]}` : `Goroutines ${ids.join(' and ')}`;
    const others = all.filter((y) => !xs.includes(y)).map((y) => y.m.id);
    const swapped = ids.length > 1 ? ` with the objects swapped, so each holds what the other waits for` : others.length ? `, while goroutine ${others.join(', ')} holds what it waits for` : '';
    causes.push(cause('lock-order', x.fr.file, x.h.call, `${who} take${ids.length === 1 ? 's' : ''} ${objectText(x.h.obj)} here and still hold${ids.length === 1 ? 's' : ''} it when waiting for ${objectText(x.wait.obj)} at ${place(x.site, x.site.line)}${swapped}. Take the locks in one fixed order (e.g. by ID).`, exact ? 'high' : 'medium', x.f));
    causes.push(cause('lock-order', x.site.file, x.wait.call, `${who} wait${ids.length === 1 ? 's' : ''} here for ${objectText(x.wait.obj)} while holding ${objectText(x.h.obj)} (${place(x.fr, lineOf(x.h.call))}).`, exact ? 'high' : 'medium', x.fn, x.fr === x.site ? lineOf(x.h.call) : undefined));
    lines.push(`${who.toLowerCase()} hold ${objectText(x.h.obj)} (${place(x.fr, lineOf(x.h.call))}) and wait for ${objectText(x.wait.obj)} (line ${x.site.line})${ids.length > 1 ? ', objects swapped' : ''}`);
  }
  return { verdict: 'confirmed', causes, note: lines.join('; '), exact };
}
