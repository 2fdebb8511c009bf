/**
 * WaitGroup findings: at a blocked `wg.Wait()`, find the `wg.Done()` calls of the same WaitGroup
 * (the variable, closures capturing it, functions it is passed to, or the same struct field) and the
 * paths of those functions that return before `Done` without a `defer wg.Done()`.
 */
import { contains, endLineOf, find, lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { paramsOf, resolve } from '../syntax/scope.js';
import { ancestors, callArgs, FUNC_TYPES, funcName, nodesAtLine, ownDescendants, runsBefore, statementsOf, unparen } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';
import { at, cause, lower, type Cause, type Site, type SiteResult } from './cause.js';

function method(call: Node): { op: Node; name: string } | undefined {
  const f = unparen(call.childForFieldName('function')!);
  if (f.type !== 'selector_expression') return undefined;
  return { op: unparen(f.childForFieldName('operand')!), name: f.childForFieldName('field')!.text };
}

/** Identity of a WaitGroup expression: a binding key, or a field class; `&wg` and `wg` alike. */
function identity(pkg: GoPackage, file: GoFile, e: Node): { key: string; exact: boolean } | undefined {
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

export function explainWaitSite(s: Site): SiteResult {
  const wait = nodesAtLine(s.file.root, s.line, new Set(['call_expression'])).find((c) => method(c)?.name === 'Wait');
  if (!wait) return { causes: [], warnings: [], found: false };
  const id = identity(s.pkg, s.file, method(wait)!.op);
  if (!id) return { causes: [], warnings: [], found: true };
  // The WaitGroup's names: itself, and parameters of package functions it is passed to (one level).
  const keys = new Set([id.key]);
  const calls: { file: GoFile; call: Node }[] = [];
  for (const f of s.pkg.files) for (const call of find(f.root, 'call_expression')) calls.push({ file: f, call });
  for (const { file, call } of calls) {
    callArgs(call).forEach((arg, i) => {
      const a = identity(s.pkg, file, arg);
      if (!a || !keys.has(a.key)) return;
      const c = s.pkg.callee(file, call);
      if (!c || c === 'external') return;
      const p = paramsOf(c.fn.node.childForFieldName('parameters')).find((x) => x.index === i);
      const b = p ? resolve(c.fn.file.rel, p.id) : undefined;
      if (b) keys.add(`v:${b.key}`);
    });
  }
  const dones = calls.filter(({ file, call }) => method(call)?.name === 'Done' && keys.has(identity(s.pkg, file, method(call)!.op)?.key ?? ''));
  const causes: Cause[] = [];
  const byFunc = new Map<Node, { file: GoFile; calls: Node[] }>();
  for (const d of dones) {
    const fn = ancestors(d.call).find((a) => FUNC_TYPES.has(a.type));
    if (!fn) continue;
    const key = [...byFunc.keys()].find((k) => k.startIndex === fn.startIndex && k.endIndex === fn.endIndex) ?? fn;
    const entry = byFunc.get(key) ?? { file: d.file, calls: [] };
    entry.calls.push(d.call);
    byFunc.set(key, entry);
  }
  for (const [fn, { file, calls: ds }] of byFunc) {
    if (ds.some((d) => ancestors(d, fn).some((a) => a.type === 'defer_statement'))) continue;
    const own = ds.filter((d) => !ancestors(d, fn).some((a) => a.type === 'func_literal' && a.startIndex !== fn.startIndex));
    for (const ret of ownDescendants(fn, 'return_statement')) {
      if (own.some((d) => runsBefore(d, ret, fn) || contains(ret, d))) continue;
      causes.push(cause('missing-done', file, ret, `This return leaves ${funcName(fn)} without calling Done: ${at(s.file, wait)} waits forever for it. Call Done on every path (defer wg.Done() first thing in the goroutine).`, lower('high', id.exact), fn));
    }
    const body = fn.childForFieldName('body');
    const last = body ? statementsOf(body).at(-1) : undefined;
    if (body && last && last.type !== 'return_statement' && !own.some((d) => runsBefore(d, last, fn) || contains(last, d))) {
      causes.push(cause('missing-done', file, endLineOf(body), `${funcName(fn)} can end without calling Done: ${at(s.file, wait)} waits forever for it.`, lower('medium', id.exact), fn, lineOf(last)));
    }
  }
  return { causes, warnings: [], found: true };
}
