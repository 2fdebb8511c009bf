/**
 * Which locks a function holds on the path to a line, by object rather than by class: `c.mu` of the
 * receiver `c`, `r` (an embedded mutex), `m.From.lock`. The object is its root variable (a binding:
 * parameter, receiver, local, captured or package variable) plus the field path, so it can be carried
 * up a stack through the calls (`c.Get(k)` maps the callee's receiver to the caller's `c`) and two
 * frames compared: the same field path of the same variable is the same lock.
 *
 * The path is the function's body in source order up to the line, as the lock checkers of the
 * LockOrder pattern read it: a non-deferred Unlock ends a hold, unless it sits in a branch that
 * returns (that branch leaves, the rest of the function still holds the lock); a deferred Unlock
 * keeps the lock held until the function returns.
 */
import { lineOf, walk, type GoFile, type Node } from '../syntax/parser.js';
import { resolve, type Binding } from '../syntax/scope.js';
import { callArgs, methodCall, nodesAtLine, unparen } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';
import { branchRelease, deferred } from './lock-order.js';

/** A lock (or any sync object) as a root variable and a field path. */
export interface ObjectPath {
  /** The root variable's binding; undefined for an unresolved name (then compared by text). */
  readonly root?: Binding;
  readonly rootText: string;
  readonly path: readonly string[];
  /** The expression as written (`c.mu`), for its type; it covers the first `written` segments of `path`. */
  readonly expr: Node;
  readonly written: number;
}

export interface Hold {
  /** The `Lock()`/`RLock()` call. */
  readonly call: Node;
  readonly obj: ObjectPath;
  readonly read: boolean;
  /** `defer x.Unlock()` seen after the Lock: held until the function returns. */
  readonly deferredUnlock?: Node;
}

export interface Release {
  readonly hold: Hold;
  /** The Unlock call that ended the hold before the line. */
  readonly unlock: Node;
}

export interface LockPath {
  /** Locks held at the line, in the order taken. */
  readonly held: Hold[];
  /** Locks taken and released before the line. */
  readonly released: Release[];
}

const ACQ = /^(Lock|RLock)$/;
const REL = /^(Unlock|RUnlock)$/;

/** `c.mu`, `&c.mu`, `(r)`, `m.From.lock` → root variable and field path; undefined for calls, indexes… */
export function objectPath(file: GoFile, e: Node): ObjectPath | undefined {
  let x = unparen(e);
  if (x.type === 'unary_expression' && x.childForFieldName('operator')?.text === '&') x = unparen(x.childForFieldName('operand')!);
  const expr = x;
  const path: string[] = [];
  while (x.type === 'selector_expression') {
    path.unshift(x.childForFieldName('field')!.text);
    x = unparen(x.childForFieldName('operand')!);
  }
  if (x.type === 'unary_expression' && x.childForFieldName('operator')?.text === '*') x = unparen(x.childForFieldName('operand')!);
  if (x.type !== 'identifier') return undefined;
  return { root: resolve(file.rel, x), rootText: x.text, path, expr, written: path.length };
}

export function sameObject(a: ObjectPath, b: ObjectPath): boolean {
  const sameRoot = a.root && b.root ? a.root.key === b.root.key : a.rootText === b.rootText;
  return sameRoot && a.path.length === b.path.length && a.path.every((p, i) => p === b.path[i]);
}

/**
 * The lock's class, as lock-order checkers name it: the type holding the field and the field
 * (`Cache.mu`), or the type of an embedded-mutex variable (`Registry`); undefined when unknown.
 */
export function lockClass(pkg: GoPackage, file: GoFile, o: ObjectPath): string | undefined {
  if (o.path.length > o.written) {
    // Mapped from a callee (`peer` + `.state`): follow the field types from the written part.
    let t = pkg.typeOf(file, o.expr);
    for (const f of o.path.slice(o.written, -1)) t = t && pkg.fieldType(t, f);
    return t ? `${t}.${o.path.at(-1)}` : undefined;
  }
  if (o.expr.type === 'selector_expression') {
    const t = pkg.typeOf(file, o.expr.childForFieldName('operand')!);
    return t ? `${t}.${o.path.at(-1)}` : undefined;
  }
  return pkg.typeOf(file, o.expr);
}

/** `c.mu`, `r`, `m.From.lock` for messages. */
export function objectText(o: ObjectPath): string {
  return [o.rootText, ...o.path].join('.');
}

/** The locks `fnNode` holds when it reaches `line` (calls on that line excluded), and those it released before. */
export function locksOnPath(file: GoFile, fnNode: Node, line: number): LockPath {
  const held: Hold[] = [];
  const released: Release[] = [];
  const body = fnNode.childForFieldName('body');
  let stopped = false;
  if (body) {
    walk(body, (n) => {
      if (stopped || n.type === 'func_literal') return false;
      if (n.type !== 'call_expression') return true;
      if (lineOf(n) >= line) {
        stopped = true;
        return false;
      }
      const m = methodCall(n);
      const obj = m && (ACQ.test(m.name) || REL.test(m.name)) ? objectPath(file, m.op) : undefined;
      if (!m || !obj) return true;
      if (ACQ.test(m.name)) {
        held.push({ call: n, obj, read: m.name === 'RLock' });
        return true;
      }
      const read = m.name === 'RUnlock';
      const i = held.findLastIndex((h) => h.read === read && sameObject(h.obj, obj));
      if (i < 0) return true;
      if (deferred(n, fnNode)) held[i] = { ...held[i], deferredUnlock: n };
      else if (!branchRelease(n, fnNode)) released.push({ hold: held.splice(i, 1)[0], unlock: n });
      return true;
    });
  }
  return { held, released };
}

/**
 * The callee's object in the caller's terms, through the call at the caller's line: the callee's
 * receiver becomes the call's receiver expression, its i-th parameter the i-th argument; a captured
 * or package variable stays itself. Undefined when the object is the callee's own local.
 */
export function toCaller(obj: ObjectPath, calleeFn: Node, call: Node, callerFile: GoFile): ObjectPath | undefined {
  const b = obj.root;
  if (!b) return obj;
  const ownedByCallee = b.func && b.func.startIndex === calleeFn.startIndex && b.func.endIndex === calleeFn.endIndex;
  if (!ownedByCallee) return obj;
  let expr: Node | undefined;
  if (b.kind === 'receiver') expr = methodCall(call)?.op;
  else if (b.kind === 'param' && b.paramIndex !== undefined) expr = callArgs(call)[b.paramIndex];
  const base = expr ? objectPath(callerFile, expr) : undefined;
  return base ? { ...base, path: [...base.path, ...obj.path] } : undefined;
}

/** The call at `line` of the caller that enters `calleeFn` (by resolved callee, else the only call named like it). */
export function callInto(pkg: GoPackage, file: GoFile, line: number, calleeFn: Node, calleeName: string): Node | undefined {
  const calls = nodesAtLine(file.root, line, new Set(['call_expression'])).filter((c) => lineOf(c) === line);
  const resolved = calls.find((c) => {
    const t = pkg.callee(file, c);
    return t && t !== 'external' && t.fn.node.startIndex === calleeFn.startIndex && t.fn.node.endIndex === calleeFn.endIndex;
  });
  if (resolved) return resolved;
  if (!calleeName) return calls.length === 1 ? calls[0] : undefined;
  const named = calls.filter((c) => {
    const f = unparen(c.childForFieldName('function')!);
    const name = f.type === 'selector_expression' ? f.childForFieldName('field')!.text : f.text;
    return name === calleeName;
  });
  return named.length === 1 ? named[0] : undefined;
}

/** The `X.Lock()` / `X.RLock()` call at a line, with its object. */
export function lockAt(file: GoFile, line: number): { call: Node; obj: ObjectPath; read: boolean } | undefined {
  for (const c of nodesAtLine(file.root, line, new Set(['call_expression']))) {
    const m = methodCall(c);
    if (!m || !ACQ.test(m.name)) continue;
    const obj = objectPath(file, m.op);
    if (obj) return { call: c, obj, read: m.name === 'RLock' };
  }
  return undefined;
}
