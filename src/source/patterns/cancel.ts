/**
 * A context kept in a struct field (`d.ctx`) whose CancelFunc is kept in another field (`d.cancel`)
 * that no code of the package ever calls: every `case <-d.ctx.Done()` waits forever. The usual
 * shape of a `Close` that "no longer closes the channel its watchers select on".
 */
import { find, kids, type GoFile, type Node } from '../syntax/parser.js';
import { resolve } from '../syntax/scope.js';
import { calleeText, exprList, methodCall, unparen } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';

export interface UncalledCancel {
  /** The canonical type holding both fields. */
  readonly owner: string;
  readonly ctxField: string;
  readonly cancelField: string;
  /** Where the CancelFunc is stored into the field. */
  readonly store: Node;
  readonly file: GoFile;
}

const WITH_CANCEL = /(^|\.)With(Cancel|Timeout|Deadline|CancelCause)$/;

/** `X.ctx` of `<-X.ctx.Done()`: the field and its owner type, when the receive is a Done() of a field. */
export function doneField(pkg: GoPackage, file: GoFile, recv: Node): { owner: string; field: string } | undefined {
  const e = unparen(recv.type === 'unary_expression' ? recv.childForFieldName('operand')! : recv);
  if (e.type !== 'call_expression') return undefined;
  const m = methodCall(e);
  if (m?.name !== 'Done' || m.op.type !== 'selector_expression') return undefined;
  const owner = pkg.typeOf(file, m.op.childForFieldName('operand')!);
  return owner ? { owner, field: m.op.childForFieldName('field')!.text } : undefined;
}

/** The CancelFunc of field `ctxField` of `owner`, stored in a field nothing calls; undefined when it is called (or unknown). */
export function uncalledCancel(pkg: GoPackage, owner: string, ctxField: string): UncalledCancel | undefined {
  for (const file of pkg.files) {
    for (const kv of find(file.root, 'keyed_element')) {
      const [k, v] = kids(kv).map((x: Node) => (x.type === 'literal_element' ? kids(x)[0] ?? x : x));
      if (!k || !v || k.text !== ctxField || v.type !== 'identifier') continue;
      const lit = kv.parent?.parent;
      if (lit?.type !== 'composite_literal' || pkg.canon(file, lit.childForFieldName('type')?.text.replace(/^\*/, '')) !== owner) continue;
      const cancelVar = cancelOf(file, v);
      if (!cancelVar) continue;
      // The CancelFunc stored into a field of the same literal.
      const store = kids(lit.childForFieldName('body')!).find((e: Node) => {
        const [ek, ev] = kids(e).map((x: Node) => (x.type === 'literal_element' ? kids(x)[0] ?? x : x));
        return ek && ev && ev.type === 'identifier' && ev.text === cancelVar;
      });
      if (!store) continue;
      const cancelField = kids(store).map((x: Node) => (x.type === 'literal_element' ? kids(x)[0] ?? x : x))[0].text;
      if (calledAnywhere(pkg, cancelField)) return undefined;
      return { owner, ctxField, cancelField, store, file };
    }
  }
  return undefined;
}

/** `ctx` bound by `ctx, cancel := context.WithCancel(…)`: the name of `cancel`. */
function cancelOf(file: GoFile, ctxId: Node): string | undefined {
  const b = resolve(file.rel, ctxId);
  const st = b?.stmt;
  if (!st || st.type !== 'short_var_declaration') return undefined;
  const rights = exprList(st.childForFieldName('right'));
  if (rights.length !== 1 || rights[0].type !== 'call_expression' || !WITH_CANCEL.test(calleeText(rights[0]))) return undefined;
  const lefts = exprList(st.childForFieldName('left'));
  return lefts.length === 2 && lefts[0].text === ctxId.text ? lefts[1].text : undefined;
}

/** Any `x.field` in the package (a call, a defer, handing the func on) counts as a call; the store is a keyed element, not a selector. */
function calledAnywhere(pkg: GoPackage, field: string): boolean {
  for (const file of pkg.files) {
    if (!file.text.includes(`.${field}`)) continue;
    if (find(file.root, 'selector_expression').some((sel) => sel.childForFieldName('field')?.text === field)) return true;
  }
  return false;
}
