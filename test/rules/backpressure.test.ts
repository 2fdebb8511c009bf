/**
 * core/backpressure and the peer-write classification on stack shapes the real-server samples do not
 * cover: a dial's wait for writability is no write, the healthy send loop (waiting for work) is not
 * counted, a few blocked writes are info (and a write that waited a minute a warning, however few), a
 * wait of ten minutes is an error, a socket write through TLS and
 * bufio names the handler above it; yamux streams handing frames to their session's writer wait for
 * the peer only while such a writer is stuck on its socket. (Real dumps: test/rules/servers.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { peerWrites } from '../../src/analyze/peers.js';
import { runRules } from '../../src/rules/index.js';
import { analysis, group } from './build.js';

const socketWrite = (count: number, top: string[], wait?: { min: number; max: number }) =>
  group({
    count,
    waitKind: 'io',
    state: 'IO wait',
    ...(wait ? { wait } : {}),
    frames: [
      'internal/poll.runtime_pollWait @ /usr/lib/go/src/runtime/netpoll.go:305',
      'internal/poll.(*pollDesc).wait @ /usr/lib/go/src/internal/poll/fd_poll_runtime.go:84',
      'internal/poll.(*pollDesc).waitWrite @ /usr/lib/go/src/internal/poll/fd_poll_runtime.go:93 (inlined)',
      'internal/poll.(*FD).Write @ /usr/lib/go/src/internal/poll/fd_unix.go:391',
      'net.(*netFD).Write @ /usr/lib/go/src/net/fd_posix.go:96',
      'net.(*conn).Write @ /usr/lib/go/src/net/net.go:195',
      'crypto/tls.(*Conn).write @ /usr/lib/go/src/crypto/tls/conn.go:912',
      'crypto/tls.(*Conn).writeRecordLocked @ /usr/lib/go/src/crypto/tls/conn.go:980',
      'crypto/tls.(*Conn).Write @ /usr/lib/go/src/crypto/tls/conn.go:1151',
      'bufio.(*Writer).Flush @ /usr/lib/go/src/bufio/bufio.go:628',
      ...top,
    ],
  });

const PUSH = ['example.com/app/push.(*Hub).deliver @ /src/push/hub.go:88', 'example.com/app/push.(*Hub).serve @ /src/push/hub.go:40'];

describe('core/backpressure', () => {
  it('names socket writes through TLS and bufio with the producer above them', () => {
    const f = runRules(analysis([socketWrite(40, PUSH)])).find((x) => x.ruleId === 'core/backpressure');
    expect(f).toMatchObject({ severity: 'warning', location: { func: 'example.com/app/push.(*Hub).deliver', line: 88 } });
    expect(f!.title).toMatch(/^Stalled peers: 40 connections blocked writing/);
    expect(f!.evidence.facts.find((x) => x.startsWith('producer:'))).toMatch(/write call: bufio\.\(\*Writer\)\.Flush/);
  });

  it('a dial waits for writability too: not a write to a peer', () => {
    const dial = group({
      count: 40,
      waitKind: 'io',
      state: 'IO wait',
      frames: [
        'internal/poll.runtime_pollWait @ /usr/lib/go/src/runtime/netpoll.go:305',
        'internal/poll.(*pollDesc).waitWrite @ /usr/lib/go/src/internal/poll/fd_poll_runtime.go:93',
        'net.(*netFD).connect @ /usr/lib/go/src/net/fd_unix.go:141',
        'net.(*netFD).dial @ /usr/lib/go/src/net/sock_posix.go:149',
        'example.com/app/push.(*Hub).dial @ /src/push/hub.go:20',
      ],
    });
    expect(peerWrites(analysis([dial])).blocked).toBe(0);
  });

  it('the healthy send loop waiting for work is not counted; it is named beside the blocked ones', () => {
    const idle = group({ count: 160, waitKind: 'select', state: 'select', frames: ['example.com/app/push.(*Hub).deliver @ /src/push/hub.go:80'] });
    expect(runRules(analysis([idle])).filter((x) => x.ruleId === 'core/backpressure')).toEqual([]);
    const f = runRules(analysis([idle, socketWrite(40, PUSH)])).find((x) => x.ruleId === 'core/backpressure');
    expect(f!.evidence.facts.some((x) => /^160 goroutines of the same producers wait for work/.test(x))).toBe(true);
  });

  it('a few blocked writes are info; minutes of waiting are an error', () => {
    expect(runRules(analysis([socketWrite(6, PUSH)])).find((x) => x.ruleId === 'core/backpressure')?.severity).toBe('info');
    expect(runRules(analysis([socketWrite(4, PUSH)])).find((x) => x.ruleId === 'core/backpressure')).toBeUndefined();
    expect(runRules(analysis([socketWrite(6, PUSH, { min: 12, max: 14 })])).find((x) => x.ruleId === 'core/backpressure')?.severity).toBe('error');
  });

  it('a write that waited a minute is a stalled peer: a warning, even for fewer than 5', () => {
    const f = runRules(analysis([socketWrite(2, PUSH, { min: 1, max: 1 })])).find((x) => x.ruleId === 'core/backpressure');
    expect(f?.severity).toBe('warning');
    expect(f?.evidence.facts.some((x) => /^blocked a minute or more: 2 goroutines \(1 minutes at /.test(x))).toBe(true);
    // With 6 blocked a moment beside them, the count is all 8 and the fact tells the 2 apart.
    const g = runRules(analysis([socketWrite(2, PUSH, { min: 1, max: 1 }), socketWrite(6, ['example.com/app/push.(*Hub).other @ /src/push/hub.go:99'])])).find((x) => x.ruleId === 'core/backpressure');
    expect(g?.evidence.facts.some((x) => /their peers stopped reading; the other 6 waited less/.test(x))).toBe(true);
  });

  it("yamux streams handing a frame to their session's writer: a moment's wait, unless a session's writer is stuck on its socket", () => {
    const YAMUX = '/usr/share/gocode/src/github.com/hashicorp/yamux';
    const handoff = group({
      count: 30,
      waitKind: 'select',
      state: 'select',
      frames: [
        `github.com/hashicorp/yamux.(*Session).waitForSendErr @ ${YAMUX}/session.go:360`,
        `github.com/hashicorp/yamux.(*Stream).write @ ${YAMUX}/stream.go:194`,
        `github.com/hashicorp/yamux.(*Stream).Write @ ${YAMUX}/stream.go:150`,
        'example.com/app/feed.(*Feed).stream @ /src/feed/feed.go:84',
      ],
    });
    // A busy session's writer takes frames one at a time: the streams queued for it are no stall.
    expect(peerWrites(analysis([handoff])).producers).toBe(0);
    const writer = socketWrite(1, [`github.com/hashicorp/yamux.(*Session).send @ ${YAMUX}/session.go:418`]);
    const pw = peerWrites(analysis([handoff, writer]));
    expect(pw.producers).toBe(30);
    expect(pw.groups.find((x) => x.kind === 'mux-flow-control')?.producer?.func).toBe('example.com/app/feed.(*Feed).stream');
    // The session's writer drains the connection: it is no producer.
    expect(pw.groups.find((x) => x.kind === 'socket-write')?.producer).toBeUndefined();
  });
});
