/**
 * Leaked locks: a function that takes `X.Lock()` and can leave (return, panic, runtime.Goexit)
 * before any `X.Unlock()` runs on that path, with no `defer X.Unlock()`. Its goroutine is gone and
 * the lock has no holder: every later locker of X waits forever, and the dump shows only them.
 *
 * Only functions that do release X somewhere count (a `lockLocked` helper that returns holding the
 * lock on purpose is not a leak). Paths are ranked by how often such code runs unwatched: a timer
 * callback, another callback (a func literal handed on), an error branch, any other exit.
 */
import { find, type GoFile, type Node } from '../syntax/parser.js';
import { ancestors, calleeText, methodCall, ownDescendants, runsBefore, upParens } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';
import { lockClass, objectPath, sameObject, type ObjectPath } from './lock-path.js';

export type LeakContext = 'timer' | 'callback' | 'error-branch' | 'plain';

export interface LeakPath {
  readonly file: GoFile;
  readonly fn: Node;
  /** The Lock/RLock call. */
  readonly lock: Node;
  readonly obj: ObjectPath;
  /** The return statement, or the panic / Goexit call, that leaves with the lock held. */
  readonly exit: Node;
  readonly how: 'return' | 'panic' | 'Goexit';
  readonly context: LeakContext;
}

const RANK: Record<LeakContext, number> = { timer: 0, callback: 1, 'error-branch': 2, plain: 3 };
const FUNCS = ['function_declaration', 'method_declaration', 'func_literal'];
const ERROR_TEST = /\berr\b|!= nil|== nil|!ok\b|\bfailed\b|\bdeleted\b|\bclosed\b|\bdone\b/;

/** Paths of the package's functions that leave holding a lock of class `cls`, best ranked first. */
export function leakedLocks(pkg: GoPackage, cls: string): LeakPath[] {
  const out: LeakPath[] = [];
  for (const file of pkg.files) {
    if (!/\.R?Lock\(\)/.test(file.text)) continue;
    for (const fn of find(file.root, FUNCS)) out.push(...leaksOf(pkg, file, fn, cls));
  }
  return out.sort((a, b) => RANK[a.context] - RANK[b.context] || (a.file.rel < b.file.rel ? -1 : a.file.rel > b.file.rel ? 1 : a.exit.startIndex - b.exit.startIndex));
}

function leaksOf(pkg: GoPackage, file: GoFile, fn: Node, cls: string): LeakPath[] {
  const calls = ownDescendants(fn, 'call_expression');
  const ops = calls.flatMap((c) => {
    const m = methodCall(c);
    if (!m || !/^R?(Un)?[Ll]ock$/.test(m.name)) return [];
    const obj = objectPath(file, m.op);
    return obj ? [{ call: c, obj, name: m.name, deferred: ancestors(c, fn).some((a) => a.type === 'defer_statement') }] : [];
  });
  const out: LeakPath[] = [];
  for (const l of ops) {
    if (l.name !== 'Lock' && l.name !== 'RLock') continue;
    if (lockClass(pkg, file, l.obj) !== cls) continue;
    const unlockName = l.name === 'Lock' ? 'Unlock' : 'RUnlock';
    const unlocks = ops.filter((u) => u.name === unlockName && sameObject(u.obj, l.obj) && u.call.startIndex > l.call.startIndex);
    if (unlocks.length === 0 || unlocks.some((u) => u.deferred)) continue;
    for (const { exit, how } of exits(fn, calls)) {
      if (exit.startIndex < l.call.endIndex || !runsBefore(l.call, exit, fn)) continue;
      if (unlocks.some((u) => u.call.startIndex < exit.startIndex && runsBefore(u.call, exit, fn))) continue;
      // The first Unlock after the Lock must not come before the exit on another branch that leads to it.
      out.push({ file, fn, lock: l.call, obj: l.obj, exit, how, context: contextOf(fn, exit) });
    }
  }
  return out;
}

function exits(fn: Node, calls: Node[]): { exit: Node; how: LeakPath['how'] }[] {
  const out: { exit: Node; how: LeakPath['how'] }[] = ownDescendants(fn, 'return_statement').map((r) => ({ exit: r, how: 'return' as const }));
  for (const c of calls) {
    const t = calleeText(c);
    if (t === 'panic') out.push({ exit: c, how: 'panic' });
    else if (t === 'runtime.Goexit') out.push({ exit: c, how: 'Goexit' });
  }
  return out.sort((a, b) => a.exit.startIndex - b.exit.startIndex);
}

function contextOf(fn: Node, exit: Node): LeakContext {
  if (fn.type === 'func_literal') {
    const up = upParens(fn).parent;
    const call = up?.type === 'argument_list' ? up.parent : undefined;
    if (call && /(^|\.)(AfterFunc|NewTimer|Tick|NewTicker)$/.test(calleeText(call))) return 'timer';
    if (up && up.type !== 'call_expression') return 'callback';
  }
  const errorReturn = exit.type === 'return_statement' && /errors\.New|fmt\.Errorf|\berr\b/.test(exit.text);
  for (const a of ancestors(exit, fn)) {
    if (a.type === 'if_statement' && (errorReturn || ERROR_TEST.test(a.childForFieldName('condition')?.text ?? ''))) return 'error-branch';
  }
  return 'plain';
}
