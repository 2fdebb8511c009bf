/**
 * What an excerpt does not show, said instead of "nobody": a goroutine pasted from a larger dump waits
 * for a counterpart (a lock's holder, a channel's other side, the goroutines a WaitGroup counts) that
 * may well be alive in the part not pasted. The finding says where to look for it.
 */
import { receiverType } from '../../analyze/closures.js';
import type { Waiter } from '../../analyze/types.js';
import { shortFunc, siteText } from '../frames.js';
import { LOCKS, sameObject } from './graph.js';
import { whoList } from './text.js';
import type { StuckWait } from './types.js';

/** The innermost method of the program's on `w`'s stack at or above its site: the object it works on. */
export function enclosingMethod(w: Waiter): { type: string; func: string; at: string } | undefined {
  for (let i = w.site; i < w.frames.length; i++) {
    const f = w.frames[i];
    if (f.origin !== 'user' && f.origin !== 'dependency') continue;
    const t = receiverType(f.frame.func);
    if (t !== undefined) return { type: t, func: shortFunc(f.frame.func), at: siteText(f.frame) };
  }
  return undefined;
}

function typeText(t: string): string {
  return `*${shortFunc(t)}`;
}

/** One sentence: the counterpart of `s` the excerpt does not show, and where to look for it in the full dump. */
export function unseenText(s: StuckWait, shown: readonly Waiter[]): string {
  const w = s.waiter;
  const m = enclosingMethod(w);
  const lockType = w.object?.ownerType ?? m?.type;
  switch (s.kind) {
    case 'lock': {
      const same = w.object && w.object.identity !== 'type'
        ? shown.filter((x) => x !== w && LOCKS.has(x.on) && x.object !== undefined && sameObject(x.object, w.object!))
        : [];
      const also = same.length ? ` ${whoList(same).join('; ')} wait${same.length === 1 ? 's' : ''} for the same lock, so its holder is neither of them.` : '';
      return `The goroutine that holds this lock is not in the excerpt: look for one inside a method of ${lockType ? typeText(lockType) : 'the object'} that locked it and has not returned (blocked, or looping), or for a path that returned without Unlock.${also}`;
    }
    case 'channel':
      return w.on === 'chan-send'
        ? 'The goroutine that should receive this value is not in the excerpt: look for the loop that reads the channel; it may have returned early or be blocked elsewhere.'
        : w.on === 'chan-receive'
          ? 'The goroutine that should send on or close this channel is not in the excerpt: look for its producer; it may have returned without closing it or be blocked elsewhere.'
          : 'The goroutines that should complete one of its cases are not in the excerpt: look for the other side of each channel it selects on.';
    case 'waitgroup':
      return `The goroutines this Wait counts are not in the excerpt: look for those started beside it${m ? ` (in ${m.func})` : ''} that have not called Done.`;
    case 'cond':
      return `The goroutine meant to Signal or Broadcast is not in the excerpt: look for one inside a method of ${lockType ? typeText(lockType) : 'the object'}, and check that the condition is re-checked in a loop under the lock.`;
    default:
      return 'What it waits for is not in the excerpt.';
  }
}

/**
 * A blocking channel operation, Wait or Cond inside a method of an object: if that method holds the
 * object's lock there, every goroutine that locks it queues behind this one. One stack cannot prove
 * the lock is held (with `--source`, check that the method locks before the wait).
 */
export function criticalSectionNote(w: Waiter): string | undefined {
  if (LOCKS.has(w.on) || w.on === 'other') return undefined;
  const m = enclosingMethod(w);
  if (!m) return undefined;
  return `it blocks inside ${m.func} (${m.at}), a method of ${typeText(m.type)}: if the object's lock is held there, every goroutine that locks it queues behind this one (check with --source)`;
}
