/**
 * A database/sql pool whose connections are never given back (core/db-pool-exhausted): in the
 * function where goroutines wait for a connection, a query's `Rows` (or a `Tx`, a `Conn`) that some
 * path leaves open. A value closed by `defer` is never left open; otherwise each return after it is
 * opened and before it is closed (the error check right after the call aside: the value is nil
 * there) leaves it open, and so does reaching the function's end with no close at all. A value
 * returned or passed to another call is not judged: its owner may close it.
 */
import { contains, find, lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { ancestors, callArgs, exprList, funcAtLine, methodCall, ownDescendants } from '../syntax/tree.js';
import { cause, type Cause } from './cause.js';

/** Calls that take a connection from the pool and the calls that give it back. */
const OPENS: Record<string, { what: string; closes: RegExp; fix: string }> = {
  Query: { what: 'rows', closes: /^Close$/, fix: 'defer NAME.Close() right after checking the error' },
  QueryContext: { what: 'rows', closes: /^Close$/, fix: 'defer NAME.Close() right after checking the error' },
  Begin: { what: 'transaction', closes: /^(Commit|Rollback)$/, fix: 'defer NAME.Rollback() right after checking the error (a no-op once committed)' },
  BeginTx: { what: 'transaction', closes: /^(Commit|Rollback)$/, fix: 'defer NAME.Rollback() right after checking the error (a no-op once committed)' },
  Conn: { what: 'connection', closes: /^Close$/, fix: 'defer NAME.Close() right after checking the error' },
};

const ASSIGNS = new Set(['short_var_declaration', 'assignment_statement']);

/** The returns of the function at `line` that leave a Rows, Tx or Conn it opened open. */
export function leftOpen(file: GoFile, line: number): Cause[] {
  const fn = funcAtLine(file.root, line);
  if (!fn) return [];
  const out: Cause[] = [];
  const calls = ownDescendants(fn, 'call_expression');
  for (const decl of ownDescendants(fn, ASSIGNS)) {
    const call = exprList(decl.childForFieldName('right'))[0];
    const m = call?.type === 'call_expression' ? methodCall(call) : undefined;
    const open = m ? OPENS[m.name] : undefined;
    const name = exprList(decl.childForFieldName('left'))[0]?.text;
    if (!open || !name || name === '_') continue;
    const closes = calls.filter((c) => {
      const mc = methodCall(c);
      return !!mc && mc.op.text === name && open.closes.test(mc.name) && c.startIndex > decl.endIndex;
    });
    if (closes.some((c) => ancestors(c, fn).some((a) => a.type === 'defer_statement'))) continue;
    // Handed on (returned to the caller, passed to another function): closing it is someone else's.
    if (handedOn(fn, name, calls)) continue;
    const fix = open.fix.replace('NAME', name);
    const opened = `${name} (the ${open.what} ${m!.name} opened at line ${lineOf(decl)})`;
    if (!closes.length) {
      out.push(cause('left-open', file, decl, `Nothing closes ${opened}: its connection is never given back to the pool. ${capital(fix)}.`, 'medium', fn));
      continue;
    }
    const firstClose = Math.min(...closes.map((c) => c.startIndex));
    const errCheck = errCheckAfter(decl);
    for (const ret of ownDescendants(fn, 'return_statement')) {
      if (ret.startIndex < decl.endIndex || ret.startIndex > firstClose || (errCheck && contains(errCheck, ret))) continue;
      out.push(cause('left-open', file, ret, `This return leaves ${opened} open: its connection is never given back to the pool, and once the pool's limit of them leak every query waits. ${capital(fix)}.`, 'medium', fn));
    }
  }
  return out;
}

/** `name` is returned, or passed as an argument to a call: its owner may be elsewhere. */
function handedOn(fn: Node, name: string, calls: readonly Node[]): boolean {
  const mentions = (n: Node) => find(n, 'identifier').some((id) => id.text === name);
  if (ownDescendants(fn, 'return_statement').some(mentions)) return true;
  return calls.some((c) => callArgs(c).some((arg) => mentions(arg)));
}

/** The `if err != nil { … }` right after the call's statement, when there is one. */
function errCheckAfter(decl: Node): Node | undefined {
  const next = decl.nextNamedSibling;
  return next?.type === 'if_statement' && /\berr\b/.test(next.childForFieldName('condition')?.text ?? '') ? next : undefined;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
