/**
 * Lock order in one package: the `Lock`/`RLock` calls of each function in source order, with the
 * locks held at each (one level into callees). Locks are named by their receiver type and field
 * (`Account.mu`), so `a.mu` and `b.mu` of two `*Account`s are the same lock class, as in lock-order
 * checkers.
 */
import { lineOf, walk, type GoFile, type Node } from '../syntax/parser.js';
import { resolve } from '../syntax/scope.js';
import { ancestors, funcName, methodCall, nodesAtLine, unparen } from '../syntax/tree.js';
import type { FuncInfo, GoPackage } from '../workspace/package.js';

export interface Acquire {
  readonly key: string;
  /** Same lock (not just same class) within one function. */
  readonly ident: string;
  readonly exact: boolean;
  readonly node: Node;
  readonly file: GoFile;
  readonly fn: FuncInfo;
  /** Locks held when this one is taken, with where they were taken. */
  readonly held: Acquire[];
  /** Taken inside a callee called here (node = the call). */
  readonly via?: string;
}

const ACQ = /^(Lock|RLock)$/;
const REL = /^(Unlock|RUnlock)$/;

/**
 * A lock's class (`dir#Type.field`, a package var, or a function-local name, never equal across
 * functions) and its identity within one function (`from.mu` vs `to.mu`: same class, two locks).
 */
function lockKey(pkg: GoPackage, file: GoFile, op: Node, fn: FuncInfo): { key: string; ident: string; exact: boolean } {
  const e = unparen(op);
  if (e.type === 'selector_expression') {
    const base = e.childForFieldName('operand')!;
    const t = pkg.typeOf(file, base);
    const b = base.type === 'identifier' ? resolve(file.rel, base) : undefined;
    const field = e.childForFieldName('field')!.text;
    return { key: `${t ?? '?'}.${field}`, ident: `${b?.key ?? base.text}.${field}`, exact: !!t };
  }
  if (e.type === 'identifier') {
    const b = resolve(file.rel, e);
    if (!b || b.kind === 'global') return { key: `${pkg.dir}#${e.text}`, ident: e.text, exact: true };
    const t = pkg.typeOf(file, e);
    if (t && b.kind !== 'local') return { key: t, ident: b.key, exact: true };
    return { key: `${fn.key}#${e.text}`, ident: b.key, exact: true };
  }
  return { key: `${fn.key}#${e.text}`, ident: e.text, exact: false };
}

export function deferred(n: Node, fnNode: Node): boolean {
  return ancestors(n, fnNode).some((a) => a.type === 'defer_statement');
}

/** A release that only happens on an early-return branch does not end the hold for later code. */
export function branchRelease(n: Node, fnNode: Node): boolean {
  for (const a of ancestors(n, fnNode)) {
    if (a.type === 'block' || a.type === 'expression_case' || a.type === 'communication_case') {
      let ret = false;
      walk(a, (c) => (c.type === 'func_literal' ? false : ((ret ||= c.type === 'return_statement' && c.startIndex > n.startIndex), !ret)));
      if (ret && a.parent?.type !== 'function_declaration' && a.parent?.type !== 'method_declaration' && a.parent?.type !== 'func_literal') return true;
    }
  }
  return false;
}

export class LockOrder {
  private readonly memo = new Map<string, Acquire[]>();

  constructor(private readonly pkg: GoPackage) {}

  /** Lock acquisitions of a function in source order, with what is held at each (one level into callees). */
  acquisitions(fn: FuncInfo, depth = 0): Acquire[] {
    const hit = this.memo.get(fn.key);
    if (hit) return hit;
    this.memo.set(fn.key, []);
    const out = this.scan(fn, depth).out;
    this.memo.set(fn.key, out);
    return out;
  }

  /** Locks `fn` holds when it reaches line `line` (a call to the next frame of a stack). */
  heldAt(fn: FuncInfo, line: number): Acquire[] {
    return this.scan(fn, 2, line).held;
  }

  private scan(fn: FuncInfo, depth: number, stopLine = Infinity): { out: Acquire[]; held: Acquire[] } {
    const out: Acquire[] = [];
    let held: Acquire[] = [];
    const body = fn.node.childForFieldName('body');
    let stopped = false;
    if (body) {
      walk(body, (n) => {
        if (stopped || n.type === 'func_literal') return false;
        if (n.type !== 'call_expression') return true;
        if (lineOf(n) >= stopLine) {
          stopped = true;
          return false;
        }
        const m = methodCall(n);
        if (m && ACQ.test(m.name)) {
          const k = lockKey(this.pkg, fn.file, m.op, fn);
          const a: Acquire = { ...k, node: n, file: fn.file, fn, held: [...held] };
          out.push(a);
          held.push(a);
        } else if (m && REL.test(m.name)) {
          if (!deferred(n, fn.node) && !branchRelease(n, fn.node)) {
            const k = lockKey(this.pkg, fn.file, m.op, fn).ident;
            held = held.filter((h) => h.ident !== k);
          }
        } else if (held.length > 0 && depth < 2) {
          const c = this.pkg.callee(fn.file, n);
          if (c && c !== 'external' && c.fn.node.type !== 'func_literal') {
            for (const inner of this.acquisitions(c.fn, depth + 1)) {
              if (inner.held.length === 0) out.push({ key: inner.key, ident: `${c.fn.key}:${inner.ident}`, exact: inner.exact && c.exact, node: n, file: fn.file, fn, held: [...held], via: funcName(c.fn.node) });
            }
          }
        }
        return true;
      });
    }
    return { out, held };
  }

  all(): Acquire[] {
    return this.pkg.funcs.filter((f) => /Lock\(\)/.test(f.node.text)).flatMap((f) => this.acquisitions(f));
  }
}

/** The `X.Lock()` / `X.RLock()` call at a line. */
export function lockCallAt(root: Node, line: number): Node | undefined {
  return nodesAtLine(root, line, new Set(['call_expression'])).find((c) => ACQ.test(methodCall(c)?.name ?? ''));
}
