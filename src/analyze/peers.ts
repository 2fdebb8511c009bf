/**
 * Goroutines blocked writing to a peer (backpressure) and the connections they belong to, read from
 * stack shapes alone (every dump format): a write parked in flow control (gRPC's stream write quota,
 * HTTP/2 flow control, a yamux stream's window) or in a socket write waiting for the kernel's send buffer to drain
 * (`pollDesc.waitWrite` under a net connection's Write, Writev, sendfile or splice), and the roles that
 * exist once per gRPC connection on each side (a server transport's stream reader, a client
 * transport's reader), so that connections are counted once per connection whatever else runs on them.
 */
import type { Analysis, AnalyzedGroup, SiteFrame } from './types.js';

/** How a write waits for its peer. */
export type PeerWriteKind = 'grpc-flow-control' | 'http2-flow-control' | 'mux-flow-control' | 'socket-write';

export interface PeerWriteGroup {
  readonly group: AnalyzedGroup;
  /**
   * Its goroutines blocked writing: the group's count, or, in a group most of whose goroutines run
   * (one stack, mixed states: a busy writer's moment and a stalled one's), those that printed a wait
   * time, which only a parked goroutine does.
   */
  readonly count: number;
  readonly kind: PeerWriteKind;
  /** The frame that waits (writeQuota.get, writeDataFromHandler, pollDesc.waitWrite). */
  readonly wait: SiteFrame;
  /** The write call the program (or its server library) made, outermost of the write path. */
  readonly write?: SiteFrame;
  /**
   * The code that produces into the peer: the nearest frame above the write path in the program's
   * own code (a send loop, a handler, a copy), else the blocking site. Undefined for a connection's
   * own writer goroutine (gRPC's loopy writer, HTTP/2's frame writer), which only drains a queue.
   */
  readonly producer?: SiteFrame;
}

export interface PeerWrites {
  readonly groups: PeerWriteGroup[];
  /** Goroutines blocked writing to peers, all kinds. */
  readonly blocked: number;
  /** Of them, producers (streams and connections whose own code waits to write). */
  readonly producers: number;
}

const GRPC_QUOTA = /^google\.golang\.org\/grpc\/internal\/transport\.\(\*(writeQuota\)\.get|controlBuffer\)\.throttle)$/;
const HTTP2_FLOW =
  /^(net\/http\.\(\*http2serverConn\)|golang\.org\/x\/net\/http2\.\(\*serverConn\))\.writeDataFromHandler$|^(net\/http\.\(\*http2clientStream\)|golang\.org\/x\/net\/http2\.\(\*clientStream\))\.awaitFlowControl$/;
/**
 * A stream of a connection multiplexer (yamux, and its InfluxData fork) waiting for its send window
 * (`write`), or handing a frame to the session's writer (`waitForSendErr`), under the stream's own
 * Write (the session also queues window updates and pings through the same wait). A hand-off is a
 * wait for the peer only while a session's writer is itself stuck on its socket; otherwise it is the
 * moment a busy writer takes (a healthy feed shows dozens).
 */
const MUX_FLOW = /^github\.com\/(hashicorp|influxdata)\/yamux\.\(\*(Stream\)\.write|Session\)\.waitForSendErr)$/;
const MUX_HANDOFF = /\.\(\*Session\)\.waitForSendErr$/;
const MUX_WRITE = /^github\.com\/(hashicorp|influxdata)\/yamux\.\(\*Stream\)\.Write$/;
const MUX_SESSION_WRITER = /^github\.com\/(hashicorp|influxdata)\/yamux\.\(\*Session\)\.send$/;
const WAIT_WRITE = /^internal\/poll\.\(\*pollDesc\)\.waitWrite$/;
/** A socket write (not a dial: `netFD.connect` also waits for writability). */
const NET_WRITE = /^net\.(\(\*(netFD|conn|TCPConn|UnixConn|IPConn|UDPConn)\)\.(Write|write|writeBuffers|writeTo|WriteTo|WriteMsg\w*|ReadFrom|readFrom)|sendFile|splice|\(\*Buffers\)\.WriteTo)$/;
const DIAL = /^net\.\(\*netFD\)\.connect$/;
/** Write-path frames above the wait: the stack is still "writing" through these. */
const WRITE_PATH =
  /^(internal\/poll\.|net\.|syscall\.|bufio\.\(\*Writer\)\.|crypto\/tls\.\(\*Conn\)\.(Write|write|flush|writeRecord|writeRecordLocked)|io\.(Copy|CopyN|CopyBuffer|copyBuffer|WriteString)$|os\.\(\*(rawConn|File)\)\.|net\/http\.\((\*response|\*chunkWriter|checkConnErrorWriter|\*http2responseWriter|\*http2responseWriterState|\*http2serverConn|\*http2clientStream|\*http2ClientConn|\*http2Framer|\*http2bufferedWriter|http2stickyErrWriter|\*http2writeData|\*http2writeResHeaders)\)\.|golang\.org\/x\/net\/http2\.|google\.golang\.org\/grpc\/internal\/transport\.|google\.golang\.org\/grpc\.\(\*(serverStream|clientStream|csAttempt)\)\.|google\.golang\.org\/grpc\.(sendResponse|\(\*Server\)\.(sendResponse|writeResponse))|github\.com\/(hashicorp|influxdata)\/yamux\.|runtime\.)/;
/** A connection's own writer goroutine: it drains the connection's queue and produces nothing. */
const CONN_WRITER =
  /^google\.golang\.org\/grpc\/internal\/transport\.\(\*loopyWriter\)\.run$|^(net\/http\.\(\*http2serverConn\)|golang\.org\/x\/net\/http2\.\(\*serverConn\))\.writeFrameAsync$|^(net\/http\.\(\*persistConn\)|net\/http\.\(\*http2ClientConn\)|golang\.org\/x\/net\/http2\.\(\*ClientConn\))\.writeLoop$|^github\.com\/(hashicorp|influxdata)\/yamux\.\(\*Session\)\.send$/;

function kindOf(g: AnalyzedGroup): { kind: PeerWriteKind; at: number } | undefined {
  for (let i = 0; i < g.frames.length; i++) {
    const f = g.frames[i].func;
    if (GRPC_QUOTA.test(f)) return { kind: 'grpc-flow-control', at: i };
    if (HTTP2_FLOW.test(f)) return { kind: 'http2-flow-control', at: i };
    if (MUX_FLOW.test(f)) return g.frames.some((x) => MUX_WRITE.test(x.func)) ? { kind: 'mux-flow-control', at: i } : undefined;
    if (WAIT_WRITE.test(f)) {
      if (g.frames.some((x) => DIAL.test(x.func)) || !g.frames.some((x) => NET_WRITE.test(x.func))) return undefined;
      return { kind: 'socket-write', at: i };
    }
  }
  return undefined;
}

/**
 * Whether some function of `funcs` matches some pattern of `res`: when none does, no frame of any
 * group can, and a pass that tests every frame of every group against them (a dump of 20,000
 * distinct stacks has 220,000 frames, and most dumps neither use gRPC nor block writing) finds
 * nothing.
 */
export function anyFunc(funcs: ReadonlySet<string>, res: readonly RegExp[]): boolean {
  for (const f of funcs) for (const re of res) if (re.test(f)) return true;
  return false;
}

/**
 * Goroutines waiting for a peer to take what they write. `funcs`, when the caller has it: every
 * function on a stack of `a` (rules' `stackFuncs`), to skip the groups when none can match.
 */
export function peerWrites(a: Analysis, funcs?: ReadonlySet<string>): PeerWrites {
  const groups: PeerWriteGroup[] = [];
  // A group is one only where kindOf finds one of these functions.
  if (funcs !== undefined && !anyFunc(funcs, [GRPC_QUOTA, HTTP2_FLOW, MUX_FLOW, WAIT_WRITE])) return { groups, blocked: 0, producers: 0 };
  for (const g of a.groups) {
    const count = g.waitKind === 'running' || g.waitKind === 'runnable' ? g.wait?.stamped ?? 0 : g.count;
    if (!count) continue;
    const k = kindOf(g);
    if (!k) continue;
    let top = k.at;
    while (top + 1 < g.frames.length && WRITE_PATH.test(g.frames[top + 1].func)) top++;
    const write = top > k.at ? g.frames[top] : undefined;
    const writer = g.frames.some((f) => CONN_WRITER.test(f.func));
    const above = g.frames.slice(top + 1).find((f) => f.origin === 'user') ?? g.frames.slice(top + 1).find((f) => f.origin === 'dependency');
    const producer = writer ? undefined : above ?? g.blockingSite;
    groups.push({ group: g, count, kind: k.kind, wait: g.frames[k.at], ...(write ? { write } : {}), ...(producer ? { producer } : {}) });
  }
  const kept = handoffsWithoutStuckWriter(groups);
  const blocked = kept.reduce((n, x) => n + x.count, 0);
  const producers = kept.filter((x) => x.producer).reduce((n, x) => n + x.count, 0);
  return { groups: kept, blocked, producers };
}

/** `groups` without yamux streams handing frames to their session's writer, unless some session's writer is stuck on its socket. */
function handoffsWithoutStuckWriter(groups: PeerWriteGroup[]): PeerWriteGroup[] {
  const handoff = (x: PeerWriteGroup) => x.kind === 'mux-flow-control' && MUX_HANDOFF.test(x.wait.func);
  if (!groups.some(handoff)) return groups;
  const stuck = groups.some((x) => x.kind === 'socket-write' && x.group.frames.some((f) => MUX_SESSION_WRITER.test(f.func)));
  return stuck ? groups : groups.filter((x) => !handoff(x));
}

/** gRPC connections of one process by side, each counted from a role that runs once per connection. */
export interface GrpcConnections {
  /** Client transports (`http2Client.reader`, one per connection a ClientConn holds). */
  readonly clientTransports: number;
  /** Client connections (`grpc.Dial`/`NewClient`): balancer watchers or serializers, one per ClientConn; else the transports. */
  readonly clientConns: number;
  /** Server transports (`http2Server.HandleStreams`, one per accepted connection). */
  readonly serverConns: number;
  /** Goroutines of client connections (transports, balancer, resolver, loopy writers, keepalives). */
  readonly clientGoroutines: number;
  readonly clientGroups: AnalyzedGroup[];
}

const GRPC_CLIENT_READER = /^google\.golang\.org\/grpc\/internal\/transport\.\(\*http2Client\)\.reader$/;
const GRPC_CLIENT_CONN = /^google\.golang\.org\/grpc\.\(\*ccBalancerWrapper\)\.watcher$/;
const GRPC_SERIALIZER = /^google\.golang\.org\/grpc\/internal\/grpcsync\.\(\*CallbackSerializer\)\.run$/;
const GRPC_SERVER_READER = /^google\.golang\.org\/grpc\/internal\/transport\.\(\*http2Server\)\.HandleStreams$/;
/** A goroutine of a server's accept path: started by the server transport or the server's connection handling. */
const GRPC_SERVER_SIDE = /^google\.golang\.org\/grpc\/internal\/transport\.(newHTTP2Server|\(\*http2Server\)\.)|^google\.golang\.org\/grpc\.\(\*Server\)\./;
const GRPC_CLIENT_SIDE =
  /^google\.golang\.org\/grpc\.\(\*(addrConn|ccBalancerWrapper|ccResolverWrapper)\)\.|^google\.golang\.org\/grpc\/internal\/transport\.(\(\*(controlBuffer|http2Client|loopyWriter)\)\.|newHTTP2Client)|^google\.golang\.org\/grpc\/internal\/grpcsync\.\(\*CallbackSerializer\)\.run/;

function serverSide(g: AnalyzedGroup): boolean {
  return g.frames.some((f) => GRPC_SERVER_SIDE.test(f.func)) || (g.creator !== undefined && GRPC_SERVER_SIDE.test(g.creator.func));
}

function has(g: AnalyzedGroup, re: RegExp): boolean {
  return g.frames.some((f) => re.test(f.func));
}

/** gRPC connections of `a`; `funcs` as for `peerWrites`. */
export function grpcConnections(a: Analysis, funcs?: ReadonlySet<string>): GrpcConnections {
  let clientTransports = 0;
  let watchers = 0;
  let serializers = 0;
  let serverConns = 0;
  let clientGoroutines = 0;
  const clientGroups: AnalyzedGroup[] = [];
  // Every count below needs a server reader or a client-side frame on some stack.
  const none = funcs !== undefined && !anyFunc(funcs, [GRPC_SERVER_READER, GRPC_CLIENT_SIDE]);
  for (const g of none ? [] : a.groups) {
    if (has(g, GRPC_SERVER_READER)) serverConns += g.count;
    if (serverSide(g)) continue;
    if (!has(g, GRPC_CLIENT_SIDE)) continue;
    clientGroups.push(g);
    clientGoroutines += g.count;
    if (has(g, GRPC_CLIENT_READER)) clientTransports += g.count;
    if (has(g, GRPC_CLIENT_CONN)) watchers += g.count;
    else if (has(g, GRPC_SERIALIZER)) serializers += g.count;
  }
  // A ClientConn of grpc-go ≥ 1.58 runs several serializers (balancer, resolver, pick-first): they
  // bound the count from above, the transports from below.
  const clientConns = watchers || Math.max(clientTransports, 0) || serializers;
  return { clientTransports, clientConns, serverConns, clientGoroutines, clientGroups };
}
