/**
 * A client pool whose connections are never given back (core/db-pool-exhausted, core/pool-exhausted):
 * in the function where goroutines wait for a connection, a value holding one (a query's `Rows`, a
 * `Tx`, a `Conn`; a pooled connection from `pool.Get()`, a resource from `Acquire`) that some path
 * leaves open. A return leaves it open unless a deferred close comes before it, or a close runs before
 * it in a block the return is in; the error check right after the call aside (the value is nil
 * there), and reaching the function's end with no close at all leaves it open too. A value returned
 * or passed to another call is not judged: its owner may close it.
 */
import { contains, lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { ancestors, callArgs, exprList, funcAtLine, methodCall, ownDescendants } from '../syntax/tree.js';
import { cause, type Cause } from './cause.js';

/**
 * A call that takes a connection and the calls that give it back: `closes` on the value (or on its
 * field `via`: a response's `Body`). `atWait`: names too common to judge anywhere (`Get`): only the
 * call the goroutines wait in. `leak`: what a return that leaves it open does.
 */
interface Open {
  readonly what: string;
  readonly closes: RegExp;
  readonly via?: string;
  readonly fix: string;
  readonly atWait?: boolean;
  readonly leak?: string;
}

/** What holds a connection of a client pool: database/sql's values, a pooled connection or resource. */
const POOL_OPENS: Record<string, Open> = {
  Query: { what: 'rows', closes: /^Close$/, fix: 'defer NAME.Close() right after checking the error' },
  QueryContext: { what: 'rows', closes: /^Close$/, fix: 'defer NAME.Close() right after checking the error' },
  Begin: { what: 'transaction', closes: /^(Commit|Rollback)$/, fix: 'defer NAME.Rollback() right after checking the error (a no-op once committed)' },
  BeginTx: { what: 'transaction', closes: /^(Commit|Rollback)$/, fix: 'defer NAME.Rollback() right after checking the error (a no-op once committed)' },
  Conn: { what: 'connection', closes: /^Close$/, fix: 'defer NAME.Close() right after checking the error' },
  Get: { what: 'pooled connection', closes: /^Close$/, fix: 'defer NAME.Close() right after Get', atWait: true },
  GetContext: { what: 'pooled connection', closes: /^Close$/, fix: 'defer NAME.Close() right after checking the error', atWait: true },
  Acquire: { what: 'pooled resource', closes: /^(Release|Destroy|Hijack)$/, fix: 'defer NAME.Release() right after checking the error', atWait: true },
};

const RESPONSE: Open = {
  what: 'response',
  closes: /^Close$/,
  via: 'Body',
  fix: 'defer NAME.Body.Close() right after checking the error, before any status check',
  atWait: true,
  leak: "its connection is never given back to the transport, and once MaxConnsPerHost of them leak every request to the host waits",
};

/** What holds a connection of an HTTP client's transport: a response whose body is not closed. */
const RESPONSE_OPENS: Record<string, Open> = { Get: RESPONSE, Do: RESPONSE, Post: RESPONSE, PostForm: RESPONSE, Head: RESPONSE };

/** Which values hold the pool's connections: a client pool's (database/sql, redigo, puddle) or an HTTP transport's. */
export type PoolValues = 'pool' | 'response';

const ASSIGNS = new Set(['short_var_declaration', 'assignment_statement']);

/** The returns of the function at `line` that leave a value holding a connection it took open (Rows, Tx, Conn; a pooled connection; a response). */
export function leftOpen(file: GoFile, line: number, values: PoolValues = 'pool'): Cause[] {
  const opens = values === 'response' ? RESPONSE_OPENS : POOL_OPENS;
  const fn = funcAtLine(file.root, line);
  if (!fn) return [];
  const out: Cause[] = [];
  const calls = ownDescendants(fn, 'call_expression');
  for (const decl of ownDescendants(fn, ASSIGNS)) {
    const call = exprList(decl.childForFieldName('right'))[0];
    const m = call?.type === 'call_expression' ? methodCall(call) : undefined;
    const open = m ? opens[m.name] : undefined;
    const name = exprList(decl.childForFieldName('left'))[0]?.text;
    if (!open || !name || name === '_' || (open.atWait && lineOf(decl) !== line)) continue;
    const closes = calls.filter((c) => {
      const mc = methodCall(c);
      return !!mc && mc.op.text === (open.via ? `${name}.${open.via}` : name) && open.closes.test(mc.name) && c.startIndex > decl.endIndex;
    });
    // Handed on (returned to the caller, passed to another function): closing it is someone else's.
    if (handedOn(fn, name, calls)) continue;
    const fix = open.fix.replace('NAME', name);
    const opened = `${name} (the ${open.what} ${m!.name} opened at line ${lineOf(decl)})`;
    if (!closes.length) {
      out.push(cause('left-open', file, decl, `Nothing closes ${opened}: its connection is never given back to the pool. ${capital(fix)}.`, 'medium', fn));
      continue;
    }
    const deferred = closes.filter((c) => ancestors(c, fn).some((a) => a.type === 'defer_statement'));
    const direct = closes.filter((c) => !deferred.includes(c));
    const errCheck = errCheckAfter(decl);
    for (const ret of ownDescendants(fn, 'return_statement')) {
      if (ret.startIndex < decl.endIndex || (errCheck && contains(errCheck, ret))) continue;
      // A deferred close registered before the return, or a close before it in a block it is in.
      if (deferred.some((c) => c.startIndex < ret.startIndex)) continue;
      if (direct.some((c) => c.startIndex < ret.startIndex && contains(blockOf(c, fn), ret))) continue;
      out.push(cause('left-open', file, ret, `This return leaves ${opened} open: ${open.leak ?? "its connection is never given back to the pool, and once the pool's limit of them leak every query waits"}. ${capital(fix)}.`, 'medium', fn));
    }
  }
  return out;
}

/** The innermost block (statement list) around `n` within `fn`. */
function blockOf(n: Node, fn: Node): Node {
  return ancestors(n, fn).find((a) => a.type === 'block') ?? fn;
}

/**
 * `name` itself is returned, or passed as an argument to a call (`track(rows)`, `&rows`): its owner
 * may be elsewhere. Calling its methods (`redis.String(conn.Do(…))`) hands nothing on.
 */
function handedOn(fn: Node, name: string, calls: readonly Node[]): boolean {
  const itself = (n: Node) => n.text === name || n.text === `&${name}`;
  if (ownDescendants(fn, 'return_statement').some((r) => exprList(r.namedChild(0)).some(itself))) return true;
  return calls.some((c) => callArgs(c).some(itself));
}

/** The `if err != nil { … }` right after the call's statement, when there is one. */
function errCheckAfter(decl: Node): Node | undefined {
  let next = decl.nextNamedSibling;
  // (A comment at the end of the call's line is the next sibling.)
  while (next?.type === 'comment') next = next.nextNamedSibling;
  return next?.type === 'if_statement' && /\berr\b/.test(next.childForFieldName('condition')?.text ?? '') ? next : undefined;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
