/**
 * Calls that wait without a way out, where the dump shows goroutines waiting in them: an HTTP request
 * made through `http.DefaultClient` (`http.Get`, `http.Post`…, which has no timeout) waits as long as
 * the server does not answer; a caller of singleflight's `Do` waits for another caller's call and
 * cannot give up (`Do` takes no context).
 */
import type { GoFile } from '../syntax/parser.js';
import { calleeText, enclosingFunc, nodesAtLine } from '../syntax/tree.js';
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
