/**
 * One-group leak rules on hand-built analyses, frames quoted from the corpus and samples: blocked
 * receive vs idle pool, blocked forever, goroutineleak profiles, unstopped loops vs per-object
 * families, long parks (never an error alone), HTTP and gRPC client connections.
 */
import { describe, expect, it } from 'vitest';
import { runRules } from '../../src/rules/index.js';
import { analysis, group, httpServerBackground } from './build.js';

const errors = (fs: ReturnType<typeof runRules>) => fs.filter((f) => f.severity === 'error');

describe('blocked receive', () => {
  // samples/blocked-receive: a request waiting for one lookup result, deep in its call chain.
  const price = (count: number) =>
    group({
      count,
      waitKind: 'chan-receive',
      state: 'chan receive',
      frames: [
        'example.com/orders/internal/orders.(*Processor).price @ /w/internal/orders/processor.go:47',
        'example.com/orders/internal/orders.(*Processor).process @ /w/internal/orders/processor.go:37',
      ],
      creator: 'example.com/orders/internal/orders.(*Processor).Submit @ /w/internal/orders/processor.go:34',
    });
  // corpus/debug2/transferfile-trimpath-133.txt: 8 processLoop workers, one creator.
  const workers = group({
    count: 8,
    waitKind: 'chan-receive',
    state: 'chan receive',
    frames: ['github.com/ledgerwatch/erigon/turbo/jsonrpc.(*PreRunProcessor).processLoop @ turbo/jsonrpc/pre_run_xlayer.go:47'],
    creator: 'github.com/ledgerwatch/erigon/turbo/jsonrpc.NewPreRunProcessor @ turbo/jsonrpc/pre_run_xlayer.go:30',
  });

  it('is an error for many receivers waiting deep in a call, with the producer-side fix', () => {
    const f = errors(runRules(analysis([price(100), workers])));
    expect(f).toHaveLength(1);
    expect(f[0].ruleId).toBe('core/blocked-receive');
    expect(f[0].location).toMatchObject({ line: 47 });
    expect(f[0].fix).toMatch(/close/);
  });

  it('calls a small group of identical loop workers an idle pool (info)', () => {
    const user = group({
      count: 16,
      waitKind: 'chan-receive',
      state: 'chan receive',
      frames: ['example.com/inventory/internal/workers.(*Pool).worker @ /w/internal/workers/pool.go:42', 'example.com/inventory/internal/workers.Start.func1 @ /w/internal/workers/pool.go:30'],
      creator: 'example.com/inventory/internal/workers.Start @ /w/internal/workers/pool.go:29',
    });
    const f = runRules(analysis([user, ...httpServerBackground()]));
    expect(f.map((x) => [x.ruleId, x.severity])).toEqual([['core/blocked-receive', 'info']]);
    expect(f[0].title).toMatch(/^Idle loops: 16 goroutines wait for work at pool.go:42/);
  });

  it('keeps quiet about per-object goroutine families that scale together', () => {
    const fam = ['(*Session).loop', '(*StreamWatcher).receive', '(*Store).watchLoop'].map((fn, i) =>
      group({ count: 80, waitKind: 'chan-receive', state: 'chan receive', frames: [`example.com/p.${fn} @ /w/p/f.go:${10 + i}`] }),
    );
    expect(runRules(analysis(fam)).filter((f) => f.severity !== 'info')).toEqual([]);
  });
});

describe('blocked forever', () => {
  it('makes nil-channel operations errors and leaves select {} in main alone', () => {
    const nilRecv = group({
      count: 50,
      waitKind: 'blocked-forever',
      state: 'chan receive (nil chan)',
      frames: ['example.com/notifier/internal/broker.(*Broker).Subscribe.func1 @ /w/internal/broker/broker.go:30'],
    });
    const mainSelect = group({ count: 1, waitKind: 'blocked-forever', state: 'select (no cases)', frames: ['main.main @ /w/main.go:20'] });
    const f = runRules(analysis([nilRecv, mainSelect]));
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ ruleId: 'core/blocked-forever', severity: 'error', location: { line: 30 } });
  });

  it('trusts a goroutineleak profile: certain', () => {
    // corpus/leakprofile/ko-notes-goroutineleak-debug1-plus-goroutine-profile.txt
    const g = group({ count: 3, waitKind: 'unknown', frames: ['main.sendNoRecv.func1 @ ex/t31prof.go:11'] });
    const f = runRules(analysis([g], { profile: 'goroutineleak', format: 'debug1' }));
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ ruleId: 'core/leaked', severity: 'error', confidence: 'certain', location: { line: 11 } });
  });
});

describe('unstopped loops and long parks', () => {
  const heartbeat = (count: number) =>
    group({
      count,
      waitKind: 'chan-receive',
      state: 'chan receive',
      frames: ['example.com/chat/internal/session.(*Session).heartbeat @ /w/internal/session/session.go:31'],
      creator: 'example.com/chat/internal/session.Open @ /w/internal/session/session.go:24',
    });

  it('calls thousands of identical ticker loops from one site an error', () => {
    const f = runRules(analysis([heartbeat(2000), ...httpServerBackground()]));
    expect(errors(f).map((x) => x.ruleId)).toEqual(['core/unstopped-loop']);
    expect(f[0].title).toMatch(/2,000 identical loops at session.go:31 started by session.Open/);
    expect(f[0].fix).toMatch(/ticker\.Stop\(\)/);
  });

  it('never makes a long wait alone an error', () => {
    const old = group({
      count: 3,
      waitKind: 'chan-receive',
      state: 'chan receive',
      wait: { min: 900, max: 1200 },
      frames: ['example.com/x.(*Client).await @ /w/x/c.go:70', 'example.com/x.(*Client).Call @ /w/x/c.go:50'],
    });
    const young = group({ count: 5, waitKind: 'select', state: 'select', wait: { min: 1, max: 2 }, frames: ['example.com/x.loop @ /w/x/l.go:9'] });
    const f = runRules(analysis([old, young]));
    const park = f.find((x) => x.ruleId === 'core/long-park');
    expect(park?.severity).toBe('info');
    expect(errors(f)).toEqual([]);
  });
});

describe('client connections', () => {
  const readLoop = (count: number, line: number, waitKind: 'select' | 'io') =>
    group({
      count,
      waitKind,
      state: waitKind === 'io' ? 'IO wait' : 'select',
      frames: [`net/http.(*persistConn).readLoop @ /usr/lib/go-1.19/src/net/http/transport.go:${line}`],
      creator: 'net/http.(*Transport).dialConn @ /usr/lib/go-1.19/src/net/http/transport.go:1751',
    });
  const writeLoop = (count: number) =>
    group({ count, waitKind: 'select', state: 'select', frames: ['net/http.(*persistConn).writeLoop @ /usr/lib/go-1.19/src/net/http/transport.go:2392'] });

  it('names unclosed response bodies (readLoop waiting for the body read) with the writeLoops', () => {
    const f = runRules(analysis([readLoop(150, 2213, 'select'), writeLoop(150)]));
    expect(f[0]).toMatchObject({ ruleId: 'core/unclosed-body', severity: 'error', location: { line: 2213 } });
    expect(f[0].evidence.goroutines).toBe(300);
    expect(f[0].fix).toMatch(/resp\.Body\.Close\(\)/);
  });

  it('leaves a normal keep-alive pool alone', () => {
    expect(runRules(analysis([readLoop(6, 2093, 'io'), writeLoop(6), ...httpServerBackground()]))).toEqual([]);
  });

  it('calls 75 gRPC ClientConns suspect (warning), as in corpus/binary/cortex-355-grpc-conns.pb.gz', () => {
    const fn = [
      'google.golang.org/grpc/internal/transport.(*controlBuffer).get',
      'google.golang.org/grpc.(*ccBalancerWrapper).watcher',
      'google.golang.org/grpc.(*addrConn).resetTransport',
      'google.golang.org/grpc/internal/transport.(*http2Client).reader',
    ];
    const gs = fn.map((f, i) => group({ count: 75, waitKind: 'select', state: 'select', frames: [`${f} @ /go/pkg/mod/google.golang.org/grpc@v1.30.0/x.go:${i + 1}`] }));
    const f = runRules(analysis(gs));
    const grpc = f.filter((x) => x.ruleId === 'core/grpc-client-conns');
    expect(grpc).toHaveLength(1);
    expect(grpc[0].severity).toBe('warning');
    expect(grpc[0].title).toMatch(/^75 gRPC client connections \(300 goroutines\)/);
    expect(errors(f)).toEqual([]);
  });
});
