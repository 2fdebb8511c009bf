/**
 * Backpressure from stalled peers: many goroutines blocked writing to peers that stopped reading (gRPC
 * and HTTP/2 flow control, socket writes waiting for the send buffer to drain), one per stream or
 * connection, and the code that produces into them. And the gRPC connections of a process, counted
 * per side from the roles that run once per connection (a server's accepted transports are not client
 * connections).
 */
import { grpcConnections, type PeerWriteGroup, type PeerWriteKind } from '../../analyze/peers.js';
import type { AnalyzedGroup, SiteFrame } from '../../analyze/types.js';
import { candidate, type Detector } from '../candidate.js';
import { goroutines, num, shortFunc, siteText, stackFuncs, waitText, writesToPeers } from '../frames.js';
import { relayConsumers } from './relay.js';
import type { Severity } from '../types.js';

const KIND_TEXT: Record<PeerWriteKind, { what: string; cost: string }> = {
  'grpc-flow-control': {
    what: 'gRPC flow control (the stream\'s write quota: the peer has not granted more window)',
    cost: 'each blocked stream holds the message it is sending plus up to its write quota of earlier messages queued in the transport (64 KiB per stream by default), and whatever its producer queues for it',
  },
  'http2-flow-control': {
    what: 'HTTP/2 flow control (the stream waits for window from the peer, or for the connection\'s frame writer stuck on the socket)',
    cost: 'each blocked stream holds its response buffer and the DATA frames queued in the connection\'s write scheduler, up to its flow-control window (64 KiB by default, more when the window was raised)',
  },
  'mux-flow-control': {
    what: 'a multiplexed stream\'s flow control (yamux: the stream\'s send window is used up, or the session\'s frame writer has not taken the frame)',
    cost: 'each blocked stream holds the buffer it is writing, and up to its window (256 KiB by default) sits unread at the peer; one session carries every stream of the connection, so a peer that stops reading stalls all of them',
  },
  'socket-write': {
    what: 'a socket write waiting for the peer to drain the connection (IO wait under Write/Writev/sendfile)',
    cost: 'each blocked connection holds its pending write (the slice passed to Write, a bufio or TLS record buffer of 4–16 KiB, a vectored write\'s whole batch) on top of a kernel send buffer filled to its limit (net.ipv4.tcp_wmem, up to 4 MiB per socket)',
  },
};

function where(f: SiteFrame | undefined): string {
  return f ? `${shortFunc(f.func)} (${siteText(f)})` : 'an unknown site';
}

function count(xs: readonly { count: number }[]): number {
  return xs.reduce((n, x) => n + x.count, 0);
}

/** Groups of the same producing functions that are not blocked writing: peers that still read. */
function idleProducers(all: readonly AnalyzedGroup[], blocked: ReadonlySet<AnalyzedGroup>, producers: ReadonlySet<string>): AnalyzedGroup[] {
  return all.filter((g) => !blocked.has(g) && g.blockingSite !== undefined && producers.has(g.blockingSite.func) && g.waitKind !== 'running' && g.waitKind !== 'runnable');
}

export const backpressureDetector: Detector = {
  description: 'goroutines blocked writing to peers that stopped reading (flow control, socket writes), one per stream or connection',
  vars: ['peers', 'unit', 'units', 'producers', 'kinds', 'cost', 'connections', 'producerList'],
  find(ctx, rule) {
    const min = ctx.param(rule, 'minBlocked', 5);
    const lonely = ctx.param(rule, 'stalledWaitMinutes', 1);
    const pw = writesToPeers(ctx.analysis);
    if (!pw.producers) return [];
    const withProducer = pw.groups.filter((x) => x.producer);
    // A write that waited a minute is no busy client's: the peer stopped reading. Fewer than
    // `minBlocked` such writes are a finding too (one client stopped is still a goroutine, its
    // buffers and whatever it holds, forever), unless they are a stalled relay's consumers, which
    // that finding names.
    const longest = withProducer.reduce((m, x) => Math.max(m, x.group.wait?.max ?? 0), 0);
    let stalled = withProducer.filter((x) => (x.group.wait?.max ?? 0) >= lonely);
    if (stalled.length) {
      const consumers = relayConsumers(ctx.analysis);
      stalled = stalled.filter((x) => !consumers.has(x.group));
    }
    if (pw.producers < min && !stalled.length) return [];
    const writers = pw.groups.filter((x) => !x.producer);
    // One line per producing site, largest first.
    const bySite = new Map<string, PeerWriteGroup[]>();
    for (const x of withProducer) {
      const k = `${x.producer!.func}\u0000${x.producer!.file}:${x.producer!.line}\u0000${x.kind}`;
      const l = bySite.get(k);
      if (l) l.push(x);
      else bySite.set(k, [x]);
    }
    const sites = [...bySite.values()].sort((a, b) => count(b) - count(a));
    const top = sites[0];
    const root = top.reduce((m, x) => (x.count > m.count ? x : m)).group;
    const kinds = [...new Set(withProducer.map((x) => x.kind))];
    const conns = grpcConnections(ctx.analysis, stackFuncs(ctx.analysis));
    const peers = pw.producers;
    const producerList = sites
      .map((l) => `${num(count(l))} in ${where(l[0].producer)} blocked in ${KIND_TEXT[l[0].kind].what.replace(/ \(.*$/, '')}${l[0].write ? ` at ${shortFunc(l[0].write.func)}` : ''}`)
      .join('; ');
    const unit = kinds.every((k) => k === 'socket-write') ? 'connection' : kinds.includes('socket-write') ? 'stream or connection' : 'stream';
    const units = unit === 'stream or connection' ? 'streams and connections' : `${unit}s`;
    const connections = kinds.includes('grpc-flow-control') && conns.serverConns > 0
      ? ` on ${num(conns.serverConns)} accepted gRPC connection${conns.serverConns === 1 ? '' : 's'}`
      : '';
    const blockedSet = new Set(pw.groups.map((x) => x.group));
    const idle = idleProducers(ctx.analysis.groups, blockedSet, new Set(withProducer.map((x) => x.producer!.func)));
    const idleCount = idle.reduce((n, g) => n + g.count, 0);
    const facts = [
      ...sites.map((l) => `producer: ${goroutines(count(l))} in ${where(l[0].producer)}, blocked in ${KIND_TEXT[l[0].kind].what}${l[0].write ? ` (write call: ${shortFunc(l[0].write.func)})` : ''}, waiting at ${shortFunc(l[0].wait.func)}${waitText(l[0].group.wait) ? `, for ${waitText(l[0].group.wait)}` : ''}`),
      ...(writers.length ? [`connection writers: ${goroutines(count(writers))} that drain a connection's queue (${[...new Set(writers.map((x) => shortFunc(x.group.frames.find((f) => /loopyWriter|writeFrameAsync|writeLoop|yamux\.\(\*Session\)\.send$/.test(f.func))?.func ?? x.wait.func)))].join(', ')}) are blocked writing too`] : []),
      ...(conns.serverConns > 0 ? [`gRPC connections: ${num(conns.serverConns)} accepted by this server (one stream reader each)${conns.clientConns ? `, ${num(conns.clientConns)} of its own as a client` : ''}`] : []),
      ...(idleCount ? [`${goroutines(idleCount)} of the same producers wait for work instead (${idle.map((g) => where(g.blockingSite)).slice(0, 3).join(', ')}): their peers read`] : []),
      ...(stalled.length ? [`blocked a minute or more: ${goroutines(count(stalled))} (${stalled.slice(0, 3).map((x) => `${waitText(x.group.wait)} at ${siteText(x.group.blockingSite)}`).join('; ')}): their peers stopped reading${count(stalled) < peers ? `; the other ${num(peers - count(stalled))} waited less (a busy client's write waits a moment too)` : ''}`] : []),
      `cost: ${kinds.map((k) => KIND_TEXT[k].cost).join('; ')}`,
    ];
    const severity: Severity | undefined =
      longest >= ctx.param(rule, 'errorWaitMinutes', 10) ? 'error' : peers >= ctx.param(rule, 'warnBlocked', 20) || stalled.length ? 'warning' : undefined;
    return [
      candidate(rule, root, {
        related: [...pw.groups.map((x) => x.group).filter((g) => g !== root)],
        claimsRelated: true,
        absorbs: true,
        goroutines: pw.blocked,
        ...(severity ? { severity } : {}),
        location: top[0].producer ? { file: top[0].producer.file, line: top[0].producer.line, func: top[0].producer.func } : undefined,
        vars: {
          peers: num(peers),
          unit,
          units: peers === 1 ? unit : units,
          producers: where(top[0].producer),
          kinds: kinds.map((k) => KIND_TEXT[k].what).join('; '),
          cost: kinds.map((k) => KIND_TEXT[k].cost).join('; '),
          connections,
          producerList,
        },
        facts,
      }),
    ];
  },
};

export const grpcConnsDetector: Detector = {
  description: 'gRPC client connections counted once each (server-side transports of accepted connections are not client connections)',
  vars: ['clientConns', 'transports', 'serverConns'],
  find(ctx, rule) {
    const c = grpcConnections(ctx.analysis, stackFuncs(ctx.analysis));
    if (c.clientConns < ctx.param(rule, 'minConns', 10)) return [];
    const [root, ...related] = [...c.clientGroups].sort((a, b) => b.count - a.count);
    const severity: Severity =
      c.clientConns >= ctx.param(rule, 'errorConns', 1000) ? 'error' : c.clientConns >= ctx.param(rule, 'warnConns', 50) ? 'warning' : 'info';
    return [
      candidate(rule, root, {
        related,
        goroutines: c.clientGoroutines,
        severity,
        vars: { clientConns: num(c.clientConns), transports: num(c.clientTransports), serverConns: num(c.serverConns) },
        facts: [
          `client connections: ${num(c.clientConns)} (${num(c.clientTransports)} transport${c.clientTransports === 1 ? '' : 's'} with a reader each)`,
          ...(c.serverConns ? [`not counted: ${num(c.serverConns)} connections this process accepted as a gRPC server`] : []),
        ],
      }),
    ];
  },
};
