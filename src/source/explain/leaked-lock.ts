/**
 * A lock with waiters and no visible holder: no goroutine of the dump holds it on the path to its
 * frame, so the goroutine that took it has gone. The source names the functions that can leave
 * between its Lock and Unlock without a defer (patterns/lock-leak.ts), best ranked first.
 */
import { leakedLocks, type LeakPath } from '../patterns/lock-leak.js';
import { lockAt, lockClass, locksOnPath } from '../patterns/lock-path.js';
import { lineOf } from '../syntax/parser.js';
import { funcAtLine, funcName } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';
import { at, cause, type Cause, type Site } from './cause.js';

const MAX_PATHS = 3;

const WHERE: Record<LeakPath['context'], string> = {
  timer: 'a timer callback: it runs on its own goroutine, which then ends with the lock held',
  callback: 'a callback: it runs on its caller\'s goroutine and returns to it with the lock held',
  'error-branch': 'an error branch',
  plain: 'an early exit',
};

/** The lock class waited for at the site, when it is a Lock call on a known object. */
export function waitedClass(s: Site): string | undefined {
  const l = lockAt(s.file, s.line);
  return l ? lockClass(s.pkg, s.file, l.obj) : undefined;
}

/** Does a goroutine of the dump (one of `others`' stacks) hold a lock of class `cls` at one of its frames? */
export function holderVisible(cls: string, others: Site['others']): boolean {
  for (const stack of others ?? []) {
    for (const fr of stack) {
      const fn = funcAtLine(fr.file.root, fr.line);
      if (!fn) continue;
      if (locksOnPath(fr.file, fn, fr.line).held.some((h) => lockClass(fr.pkg, fr.file, h.obj) === cls)) return true;
    }
  }
  return false;
}

/** Causes for a lock whose holder is not in the dump: the paths that leave it locked. */
export function explainLeakedLock(s: Site): Cause[] {
  const cls = waitedClass(s);
  if (!cls || holderVisible(cls, s.others)) return [];
  const pkgs = new Set<GoPackage>([s.pkg]);
  const owner = cls.includes('#') ? s.ws.pkgByDir(cls.slice(0, cls.lastIndexOf('#'))) : undefined;
  if (owner) pkgs.add(owner);
  const paths = [...pkgs].flatMap((p) => leakedLocks(p, cls)).slice(0, MAX_PATHS);
  return paths.map((p, i) => {
    const exit = p.how === 'return' ? 'returns' : p.how === 'panic' ? 'panics' : 'calls runtime.Goexit';
    const msg = `${p.lock.text} (${at(p.file, p.lock)}) is still held when ${funcName(p.fn)} ${exit} here, in ${WHERE[p.context]}: no Unlock runs on this path and no defer releases it. Nothing in the dump holds the lock, so this is how it leaked: every later ${p.lock.text.replace(/\(\)$/, '')}() waits forever (as ${at(s.file, s.line)} does). Unlock before leaving, or take the lock with \`defer ${p.lock.text.replace(/R?Lock\(\)$/, (m) => m.replace('Lock', 'Unlock'))}\`.`;
    const conf = paths.length === 1 ? 'high' : i === 0 ? 'medium' : 'low';
    return cause('lock-leaked', p.file, p.exit, msg, conf, p.fn, lineOf(p.lock));
  });
}
