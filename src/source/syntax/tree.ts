/** Small structural helpers over tree-sitter-go syntax trees. */
import { contains, kids, lineOf, endLineOf, walk, type Node } from './parser.js';

export const FUNC_TYPES = new Set(['function_declaration', 'method_declaration', 'func_literal']);
const LOOP_OR_SWITCH = new Set(['for_statement', 'expression_switch_statement', 'type_switch_statement', 'select_statement']);

/** Skip parentheses upwards. */
export function upParens(n: Node): Node {
  let cur = n;
  while (cur.parent && cur.parent.type === 'parenthesized_expression') cur = cur.parent;
  return cur;
}

/** Skip parentheses downwards. */
export function unparen(n: Node): Node {
  let cur = n;
  while (cur.type === 'parenthesized_expression' && cur.namedChildCount === 1) cur = cur.namedChild(0)!;
  return cur;
}

/** The innermost function (declaration, method or literal) containing `n`, `n` excluded. */
export function enclosingFunc(n: Node): Node | undefined {
  for (let p = n.parent; p; p = p.parent) if (FUNC_TYPES.has(p.type)) return p;
  return undefined;
}

/** The innermost function containing the whole of line `line` (1-based) in `root`. */
export function funcAtLine(root: Node, line: number): Node | undefined {
  let best: Node | undefined;
  walk(root, (n) => {
    if (lineOf(n) > line || endLineOf(n) < line) return false;
    if (FUNC_TYPES.has(n.type)) best = n;
    return true;
  });
  return best;
}

/** Named descendants of `n` of the given types that start on `line`, or span it when none start there. */
export function nodesAtLine(root: Node, line: number, types: Set<string>): Node[] {
  const starting: Node[] = [];
  const spanning: Node[] = [];
  walk(root, (n) => {
    if (lineOf(n) > line || endLineOf(n) < line) return false;
    if (types.has(n.type)) (lineOf(n) === line ? starting : spanning).push(n);
    return true;
  });
  return starting.length > 0 ? starting : spanning.reverse(); // innermost spanning first
}

/** Descendants of `n` of some type, not descending into nested function literals. */
export function ownDescendants(n: Node, types: Set<string> | string): Node[] {
  const want = typeof types === 'string' ? new Set([types]) : types;
  const out: Node[] = [];
  const body = n.type === 'func_literal' || FUNC_TYPES.has(n.type) ? n.childForFieldName('body') : n;
  if (!body) return out;
  walk(body, (c) => {
    if (c !== body && c.type === 'func_literal') return false;
    if (want.has(c.type)) out.push(c);
    return true;
  });
  return out;
}

/** Is `n` inside a nested function literal below `scope`? */
export function inNestedFunc(scope: Node, n: Node): boolean {
  for (let p = n.parent; p && !(p.startIndex === scope.startIndex && p.type === scope.type); p = p.parent) {
    if (p.type === 'func_literal') return true;
  }
  return false;
}

/** The function a statement `break` (without label) leaves: the innermost for/switch/select. */
export function breakTarget(brk: Node): Node | undefined {
  for (let p = brk.parent; p; p = p.parent) {
    if (LOOP_OR_SWITCH.has(p.type)) return p;
    if (FUNC_TYPES.has(p.type)) return undefined;
  }
  return undefined;
}

/** The statement labelled `label` that encloses `n` (for `break L`/`continue L`), or anywhere in `fn` (goto). */
export function labelled(fn: Node, label: string): Node | undefined {
  let found: Node | undefined;
  walk(fn, (c) => {
    if (found) return false;
    if (c.type === 'labeled_statement' && c.childForFieldName('label')?.text === label) found = c;
    return true;
  });
  return found;
}

/** The statement under a label (`L: for …` → the for). */
export function labelTarget(lab: Node): Node | undefined {
  return kids(lab).find((k) => k.type !== 'label_name');
}

/** The call's callee text (`close`, `time.After`, `s.mu.Lock`). */
export function calleeText(call: Node): string {
  return call.childForFieldName('function')?.text ?? '';
}

/** A method call's receiver expression (parentheses skipped) and method name: `s.mu.Lock()` → `s.mu`, `Lock`. */
export function methodCall(call: Node): { op: Node; name: string } | undefined {
  const f = unparen(call.childForFieldName('function')!);
  if (f.type !== 'selector_expression') return undefined;
  return { op: unparen(f.childForFieldName('operand')!), name: f.childForFieldName('field')!.text };
}

/** Arguments of a call expression (named children of the argument list). */
export function callArgs(call: Node): Node[] {
  const a = call.childForFieldName('arguments');
  return a ? kids(a) : [];
}

/** Expressions of an expression_list (or the node itself when it is not one). */
export function exprList(n: Node | null): Node[] {
  if (!n) return [];
  return n.type === 'expression_list' ? kids(n) : [n];
}

/** The statements that assign: `=`, `:=`, and a var spec (`assignedTo`, `assignedFrom`). */
export const ASSIGNMENTS = new Set(['short_var_declaration', 'assignment_statement', 'var_spec']);

/** The names or expressions an assignment, `:=` or var spec assigns to, in order. */
export function assignedTo(stmt: Node): Node[] {
  return stmt.type === 'var_spec' ? stmt.childrenForFieldName('name').filter((n): n is Node => !!n) : exprList(stmt.childForFieldName('left'));
}

/** The values an assignment, `:=` or var spec assigns, in order. */
export function assignedFrom(stmt: Node): Node[] {
  return exprList(stmt.childForFieldName(stmt.type === 'var_spec' ? 'value' : 'right'));
}

/** Does the node have an anonymous child token with this text (`:=`, `<-`)? */
export function hasToken(n: Node, tok: string): boolean {
  for (let i = 0; i < n.childCount; i++) {
    const c = n.child(i);
    if (c && !c.isNamed && c.type === tok) return true;
  }
  return false;
}

/** The statements of a block / case body (statement_list children). */
export function statementsOf(n: Node): Node[] {
  const list = n.type === 'statement_list' ? n : kids(n).find((k) => k.type === 'statement_list');
  return list ? kids(list) : [];
}

/** Ancestors of `n` up to (excluding) `stop`. */
export function ancestors(n: Node, stop?: Node): Node[] {
  const out: Node[] = [];
  for (let p = n.parent; p; p = p.parent) {
    if (stop && p.startIndex === stop.startIndex && p.type === stop.type) break;
    out.push(p);
  }
  return out;
}

/** Function display name: `Name`, `(*T).Name`, or `outer.funcN`-ish `func literal at line N`. */
export function funcName(fn: Node): string {
  if (fn.type === 'function_declaration') return fn.childForFieldName('name')?.text ?? '?';
  if (fn.type === 'method_declaration') {
    const recv = fn.childForFieldName('receiver');
    const t = recv ? kids(recv)[0]?.childForFieldName('type')?.text ?? '' : '';
    return `(${t}).${fn.childForFieldName('name')?.text ?? '?'}`;
  }
  const outer = enclosingFunc(fn);
  return `${outer ? funcName(outer) : ''} func literal (line ${lineOf(fn)})`.trim();
}

const CONDITIONAL = new Set(['if_statement', 'expression_switch_statement', 'type_switch_statement', 'expression_case', 'type_case', 'default_case']);

/** Does `a` run on every path to `e` (both in `fn`)? Same or enclosing block, earlier, not under a condition. */
export function runsBefore(a: Node, e: Node, fn: Node): boolean {
  if (a.endIndex > e.startIndex) return false;
  for (const list of ancestors(e, fn)) {
    if (list.type !== 'statement_list' || !contains(list, a)) continue;
    const sa = kids(list).find((k) => contains(k, a));
    const se = kids(list).find((k) => contains(k, e));
    if (!sa || !se || sa.startIndex >= se.startIndex) return false;
    return !ancestors(a, sa).some((x) => CONDITIONAL.has(x.type) || x.type === 'func_literal') && !CONDITIONAL.has(sa.type);
  }
  return false;
}
