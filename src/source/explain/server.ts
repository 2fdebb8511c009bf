/**
 * Servers that read their clients without a deadline, where the dump shows goroutines waiting for
 * clients that stopped sending: the call that starts a server (the line of the program's own code
 * under a `net/http.(*Server).Serve` accept loop of the dump) when that server ends no read:
 * `http.ListenAndServe` and `http.Serve` use a zero `http.Server`; `x.ListenAndServe()` of an
 * `http.Server{…}` literal that sets no such timeout (neither in the literal nor by `x.Field = …`).
 */
import type { Analysis, SiteFrame } from '../../analyze/types.js';
import { find, kids, lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { ASSIGNMENTS, assignedFrom, assignedTo, calleeText, enclosingFunc, exprList, methodCall, nodesAtLine, ownDescendants, unparen } from '../syntax/tree.js';
import type { Workspace } from '../workspace/workspace.js';
import { cause, type Cause } from './cause.js';

/** What the waiting goroutines read: a request body (ended by ReadTimeout) or request headers (ReadHeaderTimeout, else ReadTimeout). */
export type ClientRead = 'body' | 'headers';

const CALLS = new Set(['call_expression']);
const ZERO_SERVER = /^http\.(ListenAndServe|ListenAndServeTLS|Serve|ServeTLS)$/;
const SERVE_METHODS = new Set(['ListenAndServe', 'ListenAndServeTLS', 'Serve', 'ServeTLS']);

/** The timeouts that end a read of this kind, any one of which is enough. */
const ENDS: Record<ClientRead, readonly string[]> = { body: ['ReadTimeout'], headers: ['ReadHeaderTimeout', 'ReadTimeout'] };

const SERVE = 'net/http.(*Server).Serve';

/**
 * The servers of the dump (each `net/http.(*Server).Serve` accept loop, at the line of the program's
 * own code that started it) that set no timeout ending a client's `read`, where `waiting` goroutines
 * wait for clients that stopped sending.
 */
export function unguardedServers(a: Analysis, ws: Workspace, read: ClientRead, waiting: number): Cause[] {
  const starts = new Map<string, SiteFrame>();
  for (const g of a.groups) {
    const at = g.frames.findIndex((fr) => fr.func === SERVE);
    const start = at < 0 ? undefined : g.frames.slice(at + 1).find((fr) => fr.origin === 'user' && fr.file);
    if (start) starts.set(`${start.file}:${start.line}`, start);
  }
  const out: Cause[] = [];
  for (const s of starts.values()) {
    const file = ws.printedFile(s.file, s.pkg);
    const c = file && serverWithoutReadTimeout(file, s.line, read, waiting, starts.size);
    if (c) out.push(c);
  }
  return out;
}

/**
 * The server started at `line` of `file` (a serving goroutine's frame), when it has no timeout that
 * ends a client's `read`; `waiting` goroutines wait for clients that stopped sending, `servers` is how
 * many servers the dump runs (a read cannot be told apart by server: with several, each is a suspect).
 */
export function serverWithoutReadTimeout(file: GoFile, line: number, read: ClientRead, waiting: number, servers: number): Cause | undefined {
  const ends = ENDS[read].join(' or ');
  const who = `${waiting} goroutine${waiting === 1 ? '' : 's'} wait for ${read === 'body' ? 'request bodies' : 'request headers'} their clients stopped sending`;
  const which = servers > 1 ? ` (one of the ${servers} servers this process runs; the dump does not say which one they belong to)` : '';
  for (const call of nodesAtLine(file.root, line, CALLS)) {
    const callee = calleeText(call);
    const fn = enclosingFunc(call);
    if (ZERO_SERVER.test(callee)) {
      return cause('server-without-read-timeout', file, call, `${callee} serves with a zero http.Server, which has no ReadHeaderTimeout, ReadTimeout or IdleTimeout: a client that stops sending holds its goroutine and connection for as long as it likes (${who}${which}). Serve with an http.Server{ReadHeaderTimeout: …, ReadTimeout: …, IdleTimeout: …}.`, servers > 1 ? 'low' : 'medium', fn);
    }
    const m = methodCall(call);
    if (!m || !SERVE_METHODS.has(m.name)) continue;
    const lit = serverLiteral(m.op, fn);
    if (!lit) continue;
    const set = new Set([...literalKeys(lit.node), ...(lit.name && fn ? assignedFields(fn, lit.name) : [])]);
    if (ENDS[read].some((k) => set.has(k))) return undefined;
    return cause('server-without-read-timeout', file, lit.node, `This http.Server sets no ${ends}, and ${calleeText(call)} at line ${lineOf(call)} serves with it: a client that stops sending holds its goroutine and connection for as long as it likes (${who}${which}). Set ReadHeaderTimeout${read === 'body' ? ' and a ReadTimeout long enough for the largest upload (or http.NewResponseController(w).SetReadDeadline per request)' : ' (a few seconds) and IdleTimeout'}.`, servers > 1 ? 'low' : 'medium', fn);
  }
  return undefined;
}

interface ServerLiteral {
  readonly node: Node;
  /** The variable holding it, whose fields may be set after the literal. */
  readonly name?: string;
}

/** The `http.Server{…}` literal the receiver of a serve call is: itself (`(&http.Server{…}).Serve`), or a variable of the function assigned one. */
function serverLiteral(op: Node, fn: Node | undefined): ServerLiteral | undefined {
  const direct = literalOf(op);
  if (direct) return { node: direct };
  if (op.type !== 'identifier' || !fn) return undefined;
  for (const d of ownDescendants(fn, ASSIGNMENTS)) {
    const left = assignedTo(d);
    const right = assignedFrom(d);
    const i = left.findIndex((l) => l.text === op.text);
    const lit = i >= 0 && right[i] ? literalOf(right[i]) : undefined;
    if (lit) return { node: lit, name: op.text };
  }
  return undefined;
}

/** `http.Server{…}` or `&http.Server{…}` (parentheses skipped). */
function literalOf(n: Node): Node | undefined {
  let x = unparen(n);
  if (x.type === 'unary_expression' && x.childForFieldName('operator')?.text === '&') x = unparen(x.childForFieldName('operand')!);
  return x.type === 'composite_literal' && x.childForFieldName('type')?.text === 'http.Server' ? x : undefined;
}

/** The keys of a composite literal's keyed elements. */
function literalKeys(lit: Node): string[] {
  const body = lit.childForFieldName('body');
  if (!body) return [];
  const out: string[] = [];
  for (const e of kids(body)) {
    if (e.type !== 'keyed_element') continue;
    const k = kids(e)[0];
    out.push((k?.type === 'literal_element' ? kids(k)[0] ?? k : k)?.text ?? '');
  }
  return out;
}

/** Fields of `name` assigned in `fn` (`srv.ReadTimeout = …`). */
function assignedFields(fn: Node, name: string): string[] {
  const out: string[] = [];
  for (const a of find(fn, 'assignment_statement')) {
    for (const l of exprList(a.childForFieldName('left'))) {
      if (l.type === 'selector_expression' && l.childForFieldName('operand')?.text === name) out.push(l.childForFieldName('field')!.text);
    }
  }
  return out;
}
