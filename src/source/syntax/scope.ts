/**
 * Lexical name resolution inside one Go file: which declaration an identifier refers to (parameters,
 * receivers, named results, `:=`, `var`, range and select-case variables, package-level vars). Good
 * enough for following channel variables; it does not type-check.
 */
import { find, kids, type Node } from './parser.js';
import { exprList, FUNC_TYPES, hasToken } from './tree.js';

export type BindingKind = 'param' | 'receiver' | 'result' | 'local' | 'global';

export interface Binding {
  /** `relfile:offset` of the declaring identifier: stable identity. */
  readonly key: string;
  readonly name: string;
  readonly kind: BindingKind;
  /** The declaring identifier. */
  readonly decl: Node;
  /** The function whose parameter/result/local it is (absent for package-level vars). */
  readonly func?: Node;
  /** Position among the function's parameters (params only; variadic counts as one). */
  readonly paramIndex?: number;
  /** Declared type node when written (params, `var x T`). */
  readonly type?: Node;
  /** The declaring statement (short_var_declaration, var_spec, range_clause, receive_statement…). */
  readonly stmt?: Node;
}

function binding(rel: string, decl: Node, kind: BindingKind, extra: Partial<Binding> = {}): Binding {
  return { key: `${rel}:${decl.startIndex}`, name: decl.text, kind, decl, ...extra };
}

/** Identifiers declared by a `:=`-ish or var statement (with the statement), in order. */
function declaredBy(stmt: Node): Node[] {
  switch (stmt.type) {
    case 'short_var_declaration':
      return exprList(stmt.childForFieldName('left')).filter((n) => n.type === 'identifier');
    case 'var_declaration':
    case 'const_declaration': {
      const out: Node[] = [];
      for (const spec of kids(stmt)) {
        const specs = spec.type === 'var_spec_list' ? kids(spec) : [spec];
        for (const s of specs) out.push(...s.childrenForFieldName('name').filter((n): n is Node => !!n));
      }
      return out;
    }
    case 'labeled_statement':
      return [];
    default:
      return [];
  }
}

function specOf(id: Node): Node | undefined {
  const p = id.parent;
  return p && (p.type === 'var_spec' || p.type === 'const_spec') ? p : undefined;
}

/** Parameters of a parameter_list as [identifier, index, type]. */
export function paramsOf(list: Node | null): { id: Node; index: number; type?: Node }[] {
  if (!list) return [];
  const out: { id: Node; index: number; type?: Node }[] = [];
  let index = 0;
  for (const decl of kids(list)) {
    if (decl.type !== 'parameter_declaration' && decl.type !== 'variadic_parameter_declaration') continue;
    const names = decl.childrenForFieldName('name').filter((n): n is Node => !!n);
    const type = decl.childForFieldName('type') ?? undefined;
    if (names.length === 0) index++;
    for (const id of names) out.push({ id, index: index++, type });
  }
  return out;
}

function fromFunc(rel: string, fn: Node, name: string): Binding | undefined {
  const params = paramsOf(fn.childForFieldName('parameters'));
  const p = params.find((x) => x.id.text === name);
  if (p) return binding(rel, p.id, 'param', { func: fn, paramIndex: p.index, type: p.type });
  if (fn.type === 'method_declaration') {
    const r = paramsOf(fn.childForFieldName('receiver')).find((x) => x.id.text === name);
    if (r) return binding(rel, r.id, 'receiver', { func: fn, type: r.type });
  }
  const res = fn.childForFieldName('result');
  if (res?.type === 'parameter_list') {
    const r = paramsOf(res).find((x) => x.id.text === name);
    if (r) return binding(rel, r.id, 'result', { func: fn, paramIndex: r.index, type: r.type });
  }
  return undefined;
}

function innerFunc(n: Node): Node | undefined {
  for (let p: Node | null = n; p; p = p.parent) if (FUNC_TYPES.has(p.type)) return p;
  return undefined;
}

function local(rel: string, id: Node, stmt: Node): Binding {
  const spec = specOf(id);
  return binding(rel, id, 'local', { func: innerFunc(stmt), stmt: spec ?? stmt, type: spec?.childForFieldName('type') ?? undefined });
}

/** The declaration `id` refers to, or undefined (package names, functions, types, builtins, fields). */
export function resolve(rel: string, id: Node): Binding | undefined {
  const name = id.text;
  // A declaring occurrence resolves to itself.
  const p0 = id.parent;
  if (p0?.type === 'expression_list' && p0.parent?.type === 'short_var_declaration' && p0.parent.childForFieldName('left')?.startIndex === p0.startIndex) {
    return local(rel, id, p0.parent);
  }
  const holder = p0?.type === 'expression_list' ? p0.parent : undefined;
  if ((holder?.type === 'receive_statement' || holder?.type === 'range_clause') && holder.childForFieldName('left')?.startIndex === p0!.startIndex && hasToken(holder, ':=')) {
    return binding(rel, id, 'local', { func: innerFunc(holder), stmt: holder });
  }
  for (let prev: Node = id, cur = id.parent; cur; prev = cur, cur = cur.parent) {
    switch (cur.type) {
      case 'statement_list': {
        let found: Node | undefined;
        let foundStmt: Node | undefined;
        for (const st of kids(cur)) {
          if (st.startIndex >= prev.startIndex) break;
          const s = st.type === 'labeled_statement' ? (kids(st).find((k) => k.type !== 'label_name') ?? st) : st;
          for (const d of declaredBy(s)) if (d.text === name) ((found = d), (foundStmt = s));
        }
        if (found && foundStmt) return local(rel, found, foundStmt);
        break;
      }
      case 'for_statement': {
        const rc = kids(cur).find((k) => k.type === 'range_clause');
        if (rc && hasToken(rc, ':=') && prev.type === 'block') {
          const d = exprList(rc.childForFieldName('left')).find((n) => n.text === name);
          if (d) return binding(rel, d, 'local', { func: innerFunc(cur), stmt: rc });
        }
        const fc = kids(cur).find((k) => k.type === 'for_clause');
        const init = fc?.childForFieldName('initializer');
        if (init && prev.startIndex >= init.endIndex) {
          const d = declaredBy(init).find((n) => n.text === name);
          if (d) return local(rel, d, init);
        }
        break;
      }
      case 'if_statement':
      case 'expression_switch_statement':
      case 'type_switch_statement': {
        const init = cur.childForFieldName('initializer');
        if (init && prev.startIndex >= init.endIndex) {
          const d = declaredBy(init).find((n) => n.text === name);
          if (d) return local(rel, d, init);
        }
        if (cur.type === 'type_switch_statement') {
          const alias = cur.childForFieldName('alias');
          const d = alias ? exprList(alias).find((n) => n.text === name) : undefined;
          if (d && prev.startIndex > d.endIndex) return binding(rel, d, 'local', { func: innerFunc(cur), stmt: cur });
        }
        break;
      }
      case 'communication_case': {
        const comm = cur.childForFieldName('communication');
        if (comm?.type === 'receive_statement' && hasToken(comm, ':=') && prev.type === 'statement_list') {
          const d = exprList(comm.childForFieldName('left')).find((n) => n.text === name);
          if (d) return binding(rel, d, 'local', { func: innerFunc(cur), stmt: comm });
        }
        break;
      }
      case 'func_literal':
      case 'function_declaration':
      case 'method_declaration': {
        const b = fromFunc(rel, cur, name);
        if (b) return b;
        break;
      }
      case 'source_file': {
        for (const st of kids(cur)) {
          if (st.type !== 'var_declaration') continue;
          for (const d of declaredBy(st)) if (d.text === name) return binding(rel, d, 'global', { stmt: specOf(d) ?? st, type: specOf(d)?.childForFieldName('type') ?? undefined });
        }
        break;
      }
    }
  }
  return undefined;
}

/** Identifiers in `region` with the binding's name that resolve to it (declaration excluded). */
export function usesOf(rel: string, b: Binding, region: Node): Node[] {
  const out: Node[] = [];
  const other = b.kind === 'global' && !b.key.startsWith(`${rel}:`); // a package var used from another file
  for (const n of find(region, 'identifier')) {
    if (n.text !== b.name || (!other && n.startIndex === b.decl.startIndex)) continue;
    const r = resolve(rel, n);
    if (r ? r.key === b.key : other) out.push(n);
  }
  return out;
}
