/**
 * WaitGroups in one package: which expressions are the same WaitGroup (the variable, `&wg`, the
 * parameters of package functions it is passed to, or the same struct field), the `Wait` call at a
 * line, and the `Done` calls of a WaitGroup.
 */
import { find, type GoFile, type Node } from '../syntax/parser.js';
import { paramsOf, resolve } from '../syntax/scope.js';
import { callArgs, methodCall, nodesAtLine, unparen } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';

/** Identity of a WaitGroup expression: a binding key, or a field class; `&wg` and `wg` alike. */
export function waitGroupIdentity(pkg: GoPackage, file: GoFile, e: Node): { key: string; exact: boolean } | undefined {
  let x = unparen(e);
  if (x.type === 'unary_expression' && x.childForFieldName('operator')?.text === '&') x = unparen(x.childForFieldName('operand')!);
  if (x.type === 'identifier') {
    const b = resolve(file.rel, x);
    return b ? { key: `v:${b.key}`, exact: true } : undefined;
  }
  if (x.type === 'selector_expression') {
    const t = pkg.typeOf(file, x.childForFieldName('operand')!);
    return { key: `f:${t ?? '?'}.${x.childForFieldName('field')!.text}`, exact: !!t };
  }
  return undefined;
}

/** The `wg.Wait()` call at a line. */
export function waitCallAt(root: Node, line: number): Node | undefined {
  return nodesAtLine(root, line, new Set(['call_expression'])).find((c) => methodCall(c)?.name === 'Wait');
}

/** The `Done` calls, anywhere in the package, of the WaitGroup whose identity is `key`. */
export function doneCalls(pkg: GoPackage, key: string): { file: GoFile; call: Node }[] {
  // The WaitGroup's names: itself, and parameters of package functions it is passed to (one level).
  const keys = new Set([key]);
  const calls: { file: GoFile; call: Node }[] = [];
  for (const f of pkg.files) for (const call of find(f.root, 'call_expression')) calls.push({ file: f, call });
  for (const { file, call } of calls) {
    callArgs(call).forEach((arg, i) => {
      const a = waitGroupIdentity(pkg, file, arg);
      if (!a || !keys.has(a.key)) return;
      const c = pkg.callee(file, call);
      if (!c || c === 'external') return;
      const p = paramsOf(c.fn.node.childForFieldName('parameters')).find((x) => x.index === i);
      const b = p ? resolve(c.fn.file.rel, p.id) : undefined;
      if (b) keys.add(`v:${b.key}`);
    });
  }
  return calls.filter(({ file, call }) => methodCall(call)?.name === 'Done' && keys.has(waitGroupIdentity(pkg, file, methodCall(call)!.op)?.key ?? ''));
}
