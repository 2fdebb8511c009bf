/** How the wait-for findings name goroutines and objects: by site, with counts, and how each is known. */
import { hex } from '../../analyze/args.js';
import type { WaitObject, Waiter } from '../../analyze/types.js';
import { shortFunc, siteText } from '../frames.js';
import { cutShort } from './graph.js';

export function ownText(w: Waiter, i = w.site): string {
  const f = w.frames[i]?.frame;
  if (!f) return 'a stack cut off before its first frame';
  return cutShort(w) && w.frames.every((x) => x.origin !== 'user')
    ? `${shortFunc(f.func)} (${siteText(f)}; the stack is cut off before the program's own frames)`
    : `${shortFunc(f.func)} (${siteText(f)})`;
}

/** `goroutine 7`; the stack an excerpt shows without its header (read as goroutine 0) is named so. */
export function goroutineName(w: Waiter): string {
  return w.detail.id === 0 && w.readGroup.state === '' ? 'the goroutine pasted without its header' : `goroutine ${w.detail.id}`;
}

export function where(w: Waiter, i = w.site): string {
  return `${goroutineName(w)} in ${ownText(w, i)}`;
}

/**
 * Goroutines named by site, as a person reads them: `goroutine 7 in Add (table.go:23)` for one,
 * `750 goroutines (7, 8, 9, …) in Add (table.go:23) [semacquire]` for many at one site.
 */
export function whoList(ws: readonly Waiter[], withState = true): string[] {
  const bySite = new Map<string, Waiter[]>();
  for (const w of ws) {
    const k = `${ownText(w)}${withState ? ` [${w.readGroup.state || w.on}]` : ''}`;
    const l = bySite.get(k);
    if (l) l.push(w);
    else bySite.set(k, [w]);
  }
  return [...bySite].map(([site, l]) => {
    if (l.length === 1) return `${goroutineName(l[0])} in ${site}`;
    const ids = l.map((w) => w.detail.id).sort((a, b) => a - b);
    return `${l.length} goroutines (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}) in ${site}`;
  });
}

export function objectText(o: WaitObject): string {
  if (o.identity === 'type') return `a lock of ${o.ownerType ? shortFunc(o.ownerType) : 'an object'}`;
  return o.addr === o.base ? hex(o.addr) : `${hex(o.addr)} (${o.addr - o.base} bytes into the object at ${hex(o.base)})`;
}

/** `0xc000082050 (seen in sync.(*Mutex).lockSlow)` */
export function identityText(o: WaitObject): string {
  switch (o.identity) {
    case 'seen':
      return 'address printed as the argument of the lock call';
    case 'receiver':
      return 'inferred from the receiver of the locking method, of which the lock is a field';
    default:
      return 'inferred from the receiver type only (no exact address printed)';
  }
}
