/**
 * gRPC unary calls waiting for their response: goroutines inside `(*ClientConn).Invoke` whose
 * innermost frame past the runtime is the transport's wait for the server's answer (its headers,
 * `(*Stream).waitOnHeader`; its message, `(*recvBufferReader).readClient`). A stream's reader waits the
 * same way for its next message, which is what a stream is for: only unary calls are counted. A call's
 * deadline is its context's, which no dump prints.
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import type { Detector } from '../candidate.js';
import { innermostCall } from '../frames.js';

const WAIT = /^google\.golang\.org\/grpc\/internal\/transport\.\((\*Stream\)\.waitOnHeader|\*recvBufferReader\)\.(readClient|Read))$/;
const UNARY = /^google\.golang\.org\/grpc\.(\(\*ClientConn\)\.Invoke|invoke)$/;

/** A unary call waiting for the server's answer. */
export function awaitsGrpcResponse(g: AnalyzedGroup): boolean {
  const f = innermostCall(g);
  return f !== undefined && WAIT.test(f.func) && g.frames.some((x) => UNARY.test(x.func));
}

/** Goroutines of the analysis waiting in unary gRPC calls (a series' counter), once per analysis. */
export function grpcResponseWaits(a: Analysis): number {
  let n = memo.get(a);
  if (n === undefined) {
    n = 0;
    for (const g of a.groups) if (awaitsGrpcResponse(g)) n += g.count;
    memo.set(a, n);
  }
  return n;
}

const memo = new WeakMap<Analysis, number>();

export const grpcAwaitingDetector: Detector = {
  description: 'unary gRPC calls waiting for their response (the transport\'s wait innermost, Invoke on the stack); else dropped',
  refine(_ctx, _rule, c) {
    return c.root && awaitsGrpcResponse(c.root) ? c : null;
  },
};
