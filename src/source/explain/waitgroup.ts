/**
 * WaitGroup findings: at a blocked `wg.Wait()`, find the `wg.Done()` calls of the same WaitGroup
 * (patterns/waitgroup.ts) and the paths of those functions that return before `Done` without a
 * `defer wg.Done()`.
 */
import { doneCalls, waitCallAt, waitGroupIdentity } from '../patterns/waitgroup.js';
import { contains, endLineOf, lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { ancestors, FUNC_TYPES, funcName, methodCall, ownDescendants, runsBefore, statementsOf } from '../syntax/tree.js';
import { at, cause, lower, type Cause, type Site, type SiteResult } from './cause.js';

export function explainWaitSite(s: Site): SiteResult {
  const wait = waitCallAt(s.file.root, s.line);
  if (!wait) return { causes: [], warnings: [], found: false };
  const id = waitGroupIdentity(s.pkg, s.file, methodCall(wait)!.op);
  if (!id) return { causes: [], warnings: [], found: true };
  const dones = doneCalls(s.pkg, id.key);
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
    // A deferred Done (`defer wg.Done()`, or inside a deferred literal) covers only the paths after its defer statement.
    const own = ds
      .map((d) => ancestors(d, fn).find((a) => a.type === 'defer_statement') ?? d)
      .filter((d) => !ancestors(d, fn).some((a) => a.type === 'func_literal' && a.startIndex !== fn.startIndex));
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
