/**
 * Lock findings: at a blocked `X.Lock()`, which locks the goroutine already holds there, and which
 * other function of the package takes the same two locks in the opposite order (or the same lock
 * again). Locks are named by their receiver type and field (`Account.mu`), so `a.mu` and `b.mu` of
 * two `*Account`s are the same lock class, as in lock-order checkers.
 */
import { lineOf, walk, type GoFile, type Node } from '../syntax/parser.js';
import { resolve } from '../syntax/scope.js';
import { ancestors, FUNC_TYPES, funcAtLine, funcName, nodesAtLine, unparen } from '../syntax/tree.js';
import type { FuncInfo, GoPackage } from '../workspace/package.js';
import { at, cause, type Cause, type Site, type SiteResult } from './cause.js';

interface Acquire {
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

function method(call: Node): { op: Node; name: string } | undefined {
  const f = unparen(call.childForFieldName('function')!);
  if (f.type !== 'selector_expression') return undefined;
  return { op: f.childForFieldName('operand')!, name: f.childForFieldName('field')!.text };
}

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

/** `dir#Account.mu` → `Account.mu` for messages. */
function show(key: string): string {
  return key.replace(/^.*#/, '').replace(/^ext:.*\//, '');
}

function deferred(n: Node, fnNode: Node): boolean {
  return ancestors(n, fnNode).some((a) => a.type === 'defer_statement');
}

/** A release that only happens on an early-return branch does not end the hold for later code. */
function branchRelease(n: Node, fnNode: Node): boolean {
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
        const m = method(n);
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

export function explainLockSite(s: Site): SiteResult {
  const order = new LockOrder(s.pkg);
  const mine = acquisitionAt(s, order, s.file, s.line);
  if (mine === undefined) return { causes: [], warnings: [], found: false };
  if (mine === null) return { causes: [], warnings: [], found: true };
  // Locks held by the callers on the blocked stack, at their calls.
  const held = [...mine.held];
  for (const fr of s.stack ?? []) {
    const f = s.pkg.files.find((x) => x.rel === fr.rel);
    const callerNode = f ? funcAtLine(f.root, fr.line) : undefined;
    if (!f || !callerNode) break;
    held.push(...order.heldAt(s.pkg.info(f, callerNode), fr.line));
  }
  const causes = inversions(order, mine, held);
  if (causes.length > 0) return { causes, warnings: [], found: true };
  // Nothing held here: the holder is another blocked goroutine that took this lock and waits for another.
  for (const p of s.peers ?? []) {
    if (p.file.rel === s.file.rel && p.line === s.line) continue;
    const pkg = s.ws.pkgOf(p.file);
    if (pkg !== s.pkg) continue;
    const theirs = acquisitionAt(s, order, p.file, p.line);
    if (!theirs) continue;
    const holding = theirs.held.find((h) => h.key === mine.key);
    if (!holding) continue;
    causes.push(cause('lock-order', holding.file, holding.node, `Goroutines blocked at ${at(p.file, p.line)} hold ${show(mine.key)} (taken here) while they wait for another lock, so ${at(s.file, s.line)} queues behind them.`, holding.exact && mine.exact ? 'high' : 'medium', holding.fn.node));
    causes.push(...inversions(order, theirs, theirs.held));
  }
  return { causes, warnings: [], found: true };
}

/** The acquisition at `file:line` (undefined: no Lock call there; null: not tracked). */
function acquisitionAt(s: Site, order: LockOrder, file: GoFile, line: number): Acquire | null | undefined {
  const call = nodesAtLine(file.root, line, new Set(['call_expression'])).find((c) => ACQ.test(method(c)?.name ?? ''));
  if (!call) return undefined;
  const fnNode = ancestors(call).find((a) => FUNC_TYPES.has(a.type));
  if (!fnNode) return null;
  const pkg = s.ws.pkgOf(file) ?? s.pkg;
  return order.acquisitions(pkg.info(file, fnNode)).find((a) => a.node.startIndex === call.startIndex) ?? null;
}

/** Why `mine` can wait forever given the locks `held` when it is taken. */
function inversions(order: LockOrder, mine: Acquire, held: Acquire[]): Cause[] {
  const causes: Cause[] = [];
  const name = funcName(mine.fn.node);
  for (const h of held) {
    if (h.ident === mine.ident) {
      causes.push(cause('lock-reentry', mine.file, mine.node, `${h.node.text} is already held by this goroutine (${at(h.file, h.node)}) when it is taken again here: Go mutexes are not reentrant, so this waits forever.`, h.exact && mine.exact ? 'high' : 'medium', mine.fn.node, lineOf(h.node)));
      continue;
    }
    if (h.key === mine.key) {
      causes.push(cause('lock-order', mine.file, mine.node, `${name} holds one ${show(mine.key)} (${h.node.text}, ${at(h.file, h.node)}) while it takes another (${mine.node.text}) here: two calls that pass the same two objects in opposite order deadlock. Take the two locks in a fixed order (e.g. by ID) or under one outer lock.`, h.exact && mine.exact ? 'high' : 'medium', mine.fn.node, lineOf(h.node)));
      continue;
    }
    for (const other of order.all()) {
      if (other.key !== h.key) continue;
      const first = other.held.find((x) => x.key === mine.key);
      if (!first) continue;
      const exact = h.exact && mine.exact && other.exact && first.exact;
      const msg = `Opposite lock order: ${name} takes ${show(h.key)} (${at(h.file, h.node)}) then ${show(mine.key)} (${at(mine.file, mine.node)}), while ${funcName(other.fn.node)} takes ${show(mine.key)} (${at(first.file, first.node)}) then ${show(h.key)} here${other.via ? ` (inside ${other.via})` : ''}. Two goroutines doing both deadlock; take the locks in one order.`;
      causes.push(cause('lock-order', other.file, other.node, msg, exact ? 'high' : 'medium', other.fn.node, lineOf(first.node)));
      causes.push(cause('lock-order', h.file, h.node, `${name} holds ${show(h.key)} from here while it waits for ${show(mine.key)} at ${at(mine.file, mine.node)}; ${funcName(other.fn.node)} takes them the other way round (${at(other.file, other.node)}).`, exact ? 'medium' : 'low', mine.fn.node));
    }
  }
  return causes;
}
