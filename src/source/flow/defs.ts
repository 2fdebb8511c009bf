/** Where a variable, field or result gets its value: the backward steps of channel tracing. */
import { find, kids, type GoFile, type Node } from '../syntax/parser.js';
import { paramsOf, resolve } from '../syntax/scope.js';
import { assignedFrom, assignedTo, exprList, ownDescendants, unparen } from '../syntax/tree.js';
import type { FuncInfo, GoPackage } from '../workspace/package.js';
import type { Place } from './types.js';

/** The value `target` gets in `stmt` (`:=`, `=`, var spec): an expression, or a call's n-th result. */
export function assigned(pkg: GoPackage, file: GoFile, stmt: Node, target: Node): { file: GoFile; expr?: Node; place?: Place } | undefined {
  const lefts = assignedTo(stmt);
  const rights = assignedFrom(stmt);
  const i = lefts.findIndex((l) => l.startIndex === target.startIndex);
  if (i < 0 || rights.length === 0) return undefined;
  if (rights.length === lefts.length) return { file, expr: rights[i] };
  if (rights.length === 1 && unparen(rights[0]).type === 'call_expression') {
    const c = pkg.callee(file, unparen(rights[0]));
    if (c && c !== 'external') return { file, place: { kind: 'return', fn: c.fn, index: i } };
  }
  return undefined;
}

export function fieldDefs(place: Extract<Place, { kind: 'field' }>): { file: GoFile; expr: Node; exact: boolean; nil?: boolean }[] {
  const { type, field } = place;
  const out: { file: GoFile; expr: Node; exact: boolean; nil?: boolean }[] = [];
  for (const pkg of type ? place.scope.seeing(type, field) : [place.scope]) for (const f of pkg.files) {
    for (const n of find(f.root, ['assignment_statement', 'composite_literal', 'keyed_element'])) {
      if (n.type === 'assignment_statement') {
        const lefts = exprList(n.childForFieldName('left'));
        const rights = exprList(n.childForFieldName('right'));
        lefts.forEach((l, i) => {
          if (l.type === 'selector_expression' && l.childForFieldName('field')?.text === field && rights.length === lefts.length) {
            const m = pkg.typeMatches(pkg.typeOf(f, l.childForFieldName('operand')!), type);
            if (m !== false) out.push({ file: f, expr: rights[i], exact: m === true });
          }
        });
      } else if (n.type === 'composite_literal' && type && pkg.typeOf(f, n) === type) {
        // T{a: x} without `field:` leaves the channel nil
        const body = n.childForFieldName('body');
        const elems = body ? kids(body) : [];
        if (elems.every((e) => e.type === 'keyed_element') && !elems.some((e) => kids(e)[0]?.text === field)) out.push({ file: f, expr: n, exact: true, nil: true });
      } else if (n.type === 'keyed_element') {
        const [k, v] = kids(n);
        const lit = n.parent?.parent;
        if (k?.text === field && v && lit?.type === 'composite_literal') {
          const m = pkg.typeMatches(pkg.typeOf(f, lit), type);
          if (m !== false) out.push({ file: f, expr: kids(v)[0] ?? v, exact: m === true });
        }
      }
    }
  }
  return out;
}

export function returnDefs(fn: FuncInfo, index: number): { expr?: Node; place?: Place }[] {
  const out: { expr?: Node; place?: Place }[] = [];
  for (const r of ownDescendants(fn.node, 'return_statement')) {
    const vals = exprList(kids(r)[0] ?? null);
    if (vals.length === 0) {
      const res = paramsOf(fn.node.childForFieldName('result')).find((p) => p.index === index);
      const b = res ? resolve(fn.file.rel, res.id) : undefined;
      if (b) out.push({ place: { kind: 'var', file: fn.file, b } });
    } else if (vals.length === 1 && index > 0 && unparen(vals[0]).type === 'call_expression') {
      const c = fn.pkg.callee(fn.file, unparen(vals[0]));
      if (c && c !== 'external') out.push({ place: { kind: 'return', fn: c.fn, index } });
    } else if (vals[index]) out.push({ expr: vals[index] });
  }
  return out;
}

