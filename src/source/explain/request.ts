/**
 * Calls that wait without a way out, where the dump shows goroutines waiting in them: an HTTP request
 * made through `http.DefaultClient` (`http.Get`, `http.Post`…, which has no timeout) waits as long as
 * the server does not answer; so does a call given a context without a deadline; a caller of
 * singleflight's `Do` waits for another caller's call and cannot give up (`Do` takes no context).
 */
import { lineOf, type GoFile, type Node } from '../syntax/parser.js';
import { ASSIGNMENTS, callArgs, calleeText, enclosingFunc, exprList, nodesAtLine, ownDescendants } from '../syntax/tree.js';
import { cause, type Cause } from './cause.js';

const CALLS = new Set(['call_expression']);

/** `http.Get(…)`, `http.DefaultClient.Do(…)`: requests through the client without a timeout. */
const DEFAULT_CLIENT = /^http\.(Get|Head|Post|PostForm|DefaultClient\.(Do|Get|Head|Post|PostForm))$/;

/** The request through `http.DefaultClient` at `line` of `file`, where `parked` goroutines wait for its answer. */
export function requestWithoutTimeout(file: GoFile, line: number, parked: number): Cause | undefined {
  // (From the file: a function literal passed on the line, `Do(key, func() {…})`, starts there too.)
  const call = nodesAtLine(file.root, line, CALLS).find((c) => DEFAULT_CLIENT.test(calleeText(c)));
  if (!call) return undefined;
  const fn = enclosingFunc(call);
  const callee = calleeText(call);
  return cause(
    'request-without-timeout',
    file,
    call,
    `${callee} sends the request with http.DefaultClient, which has no timeout (${parked} goroutine${parked === 1 ? '' : 's'} wait here for the answer): a server that does not answer holds this call, and whatever waits on it, until the connection dies. Use one shared http.Client{Timeout: …}, or http.NewRequestWithContext with a context deadline.`,
    'medium',
    fn,
  );
}

/** The call of singleflight's `Do` at `line` of `file`, where `waiting` callers wait for another caller's call. */
export function uncancellableShare(file: GoFile, line: number, waiting: number): Cause | undefined {
  const call = nodesAtLine(file.root, line, CALLS).find((c) => /\.Do$/.test(calleeText(c)));
  if (!call) return undefined;
  const fn = enclosingFunc(call);
  return cause(
    'uncancellable-share',
    file,
    call,
    `${waiting} caller${waiting === 1 ? '' : 's'} wait here in singleflight's Do for the call another caller of the key is running, and cannot give up: Do takes no context. Wait with DoChan and select on the caller's ctx.Done(), and give the shared call a deadline of its own.`,
    'medium',
    fn,
  );
}

/** `context.Background()`, `context.TODO()`: a context without a deadline. */
const NO_DEADLINE = /^context\.(Background|TODO)\(\)$/;

/**
 * The call at `line` of `file` that `parked` goroutines wait in for a server's answer (a unary gRPC
 * call), when the context it is given has no deadline: `context.Background()` or `context.TODO()`
 * passed directly, or a variable of the function assigned one of them and never wrapped.
 */
export function callWithoutDeadline(file: GoFile, line: number, parked: number): Cause | undefined {
  for (const call of nodesAtLine(file.root, line, CALLS)) {
    const fn = enclosingFunc(call);
    const arg = callArgs(call).find((a) => NO_DEADLINE.test(a.text) || (a.type === 'identifier' && fn !== undefined && boundToBackground(fn, a.text)));
    if (!arg) continue;
    return cause(
      'call-without-deadline',
      file,
      call,
      `${calleeText(call)} is called with ${NO_DEADLINE.test(arg.text) ? arg.text : `${arg.text} (${contextOf(fn!, arg.text)})`}, a context without a deadline (${parked} goroutine${parked === 1 ? '' : 's'} wait here for the answer): a server that does not answer holds the call forever. Pass the caller's context, wrapped in context.WithTimeout for this call.`,
      'medium',
      fn,
    );
  }
  return undefined;
}

/** Every assignment of `name` in `fn` is `context.Background()`/`TODO()`. */
function boundToBackground(fn: Node, name: string): boolean {
  const sets = ownDescendants(fn, ASSIGNMENTS).filter((d) => exprList(d.childForFieldName('left')).some((l) => l.text === name));
  return sets.length > 0 && sets.every((d) => exprList(d.childForFieldName('right')).some((r) => NO_DEADLINE.test(r.text)));
}

function contextOf(fn: Node, name: string): string {
  const d = ownDescendants(fn, ASSIGNMENTS).find((x) => exprList(x.childForFieldName('left')).some((l) => l.text === name));
  return d ? `set from ${exprList(d.childForFieldName('right')).find((r) => NO_DEADLINE.test(r.text))?.text} at line ${lineOf(d)}` : 'without a deadline';
}

