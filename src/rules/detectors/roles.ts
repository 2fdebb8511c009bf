/** Naming what one group of a set does (a session's copy, reader, process wait) from its blocking site. */
import type { AnalyzedGroup } from '../../analyze/types.js';
import { shortFunc, siteOf, stateOf } from '../frames.js';

/** What a wait kind is, for a role whose called function does not say it (`said`). */
const KIND_WORDS: Partial<Record<AnalyzedGroup['waitKind'], { word: string; said?: RegExp }>> = {
  io: { word: 'I/O wait' },
  syscall: { word: 'syscall' },
  'chan-receive': { word: 'chan receive' },
  'chan-send': { word: 'chan send' },
  select: { word: 'select' },
  mutex: { word: 'Mutex', said: /Mutex|Lock/ },
  rwmutex: { word: 'RWMutex', said: /Mutex|Lock/ },
  waitgroup: { word: 'WaitGroup', said: /WaitGroup|Group\)\.Wait/ },
  cond: { word: 'Cond', said: /Cond/ },
  semaphore: { word: 'semaphore', said: /[Ss]ema/ },
  sleep: { word: 'sleep', said: /Sleep/ },
};

/**
 * One role of a set, named from its blocking site: the call the program's code made there (the frame
 * just inside the site) and the function that made it, e.g. `io.Copy in session.(*Session).pump (I/O
 * wait)`, `sync.(*Cond).Wait in session.(*buffer).Read`. A channel operation in the program's own
 * code has no such call: the state names it.
 */
export function roleOf(g: AnalyzedGroup): string {
  const site = siteOf(g);
  const kind = KIND_WORDS[g.waitKind];
  const state = stateOf(g) || kind?.word || g.waitKind;
  if (!site) return state;
  const at = g.frames.indexOf(site);
  const callee = at > 0 ? g.frames[at - 1] : undefined;
  const where = shortFunc(site.func);
  if (!callee || callee.origin === 'runtime') return `${state} in ${where}`;
  const op = shortFunc(callee.func);
  return !kind || kind.said?.test(op) ? `${op} in ${where}` : `${op} in ${where} (${kind.word})`;
}
