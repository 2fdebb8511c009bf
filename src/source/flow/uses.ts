/** What a use of a channel value is: an operation on it, a flow into another place, or an escape. */
import { kids, type GoFile, type Node } from '../syntax/parser.js';
import { paramsOf, resolve } from '../syntax/scope.js';
import { callArgs, calleeText, enclosingFunc, exprList, upParens } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';
import type { OpKind, Place } from './types.js';

export type Use =
  | { readonly kind: 'op'; readonly op: OpKind; readonly node: Node; readonly select?: Node }
  /** The value flows on to `place`; `via` is the argument node when it goes down into a callee. */
  | { readonly kind: 'flow'; readonly place: Place; readonly exact: boolean; readonly via?: Node }
  | { readonly kind: 'escape'; readonly node: Node; readonly why: string };

/** Classify the channel-valued expression `node`; `target` maps an assignment's left side to a place. */
export function classifyUse(pkg: GoPackage, file: GoFile, node: Node, target: (f: GoFile, t: Node) => Place | undefined): Use | undefined {
  const n = upParens(node);
  const p = n.parent;
  if (!p) return undefined;
  const flow = (place: Place | undefined, exact = true, via?: Node): Use | undefined => (place ? { kind: 'flow', place, exact, via } : undefined);
  switch (p.type) {
    case 'send_statement':
      if (p.childForFieldName('channel')?.startIndex === n.startIndex) {
        return { kind: 'op', op: 'send', node: p, select: p.parent?.type === 'communication_case' ? p.parent.parent ?? undefined : undefined };
      }
      return { kind: 'escape', node: p, why: 'sent over another channel' };
    case 'unary_expression': {
      if (p.childForFieldName('operator')?.text !== '<-') return undefined;
      const rs = upParens(p).parent;
      const sel = rs?.type === 'receive_statement' && rs.parent?.type === 'communication_case' ? rs.parent.parent ?? undefined : undefined;
      return { kind: 'op', op: 'recv', node: p, select: sel };
    }
    case 'range_clause':
      return p.parent ? { kind: 'op', op: 'range', node: p.parent } : undefined;
    case 'argument_list': {
      const call = p.parent!;
      const callee = calleeText(call);
      if (callee === 'close') return { kind: 'op', op: 'close', node: call };
      if (callee === 'len' || callee === 'cap') return undefined;
      const c = pkg.callee(file, call);
      if (!c || c === 'external') return { kind: 'escape', node: call, why: `passed to ${callee || 'a function value'}` };
      const idx = callArgs(call).findIndex((a) => a.startIndex === n.startIndex);
      const param = paramsOf(c.fn.node.childForFieldName('parameters')).find((x) => x.index === idx);
      const b = param ? resolve(c.fn.file.rel, param.id) : undefined;
      return flow(b ? { kind: 'var', file: c.fn.file, b } : undefined, c.exact, n);
    }
    case 'expression_list': {
      const st = p.parent;
      const idx = kids(p).findIndex((k) => k.startIndex === n.startIndex);
      if ((st?.type === 'short_var_declaration' || st?.type === 'assignment_statement') && st.childForFieldName('right')?.startIndex === p.startIndex) {
        const lefts = exprList(st.childForFieldName('left'));
        const t = lefts.length === kids(p).length ? lefts[idx] : undefined;
        const pl = t ? target(file, t) : undefined;
        if (pl) return flow(pl);
        return t && t.text !== '_' ? { kind: 'escape', node: st, why: 'stored where it cannot be followed' } : undefined;
      }
      if (st?.type === 'var_spec') {
        const id = st.childrenForFieldName('name').filter((x): x is Node => !!x)[idx];
        const b = id ? resolve(file.rel, id) : undefined;
        return flow(b ? { kind: 'var', file, b } : undefined);
      }
      if (st?.type === 'return_statement') {
        const fnNode = enclosingFunc(st);
        return flow(fnNode ? { kind: 'return', fn: pkg.info(file, fnNode), index: idx } : undefined);
      }
      return undefined;
    }
    case 'literal_element': {
      const ke = p.parent;
      const lit = ke?.parent?.parent;
      if (ke?.type === 'keyed_element' && kids(ke)[1]?.startIndex === p.startIndex && lit?.type === 'composite_literal') {
        return flow({ kind: 'field', type: pkg.typeOf(file, lit), field: kids(ke)[0].text, scope: pkg });
      }
      return { kind: 'escape', node: p, why: 'stored in a composite literal' };
    }
    default:
      return undefined;
  }
}
