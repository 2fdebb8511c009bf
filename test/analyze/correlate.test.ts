/** Links between groups: from creator ids (Go 1.21+) and inferred from shared frames (older, debug=0/1). */
import { describe, expect, it } from 'vitest';
import { enclosingFunctions } from '../../src/analyze/closures.js';
import { spawnerCandidates } from '../../src/analyze/correlate.js';
import { analyze } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/analyze/types.js';
import { snapshot } from './fixtures.js';

const P = 'example.com/apiproxy/pkg/stores/proxy';
const EG = 'golang.org/x/sync/errgroup';
// samples/apiproxy-leak (Go 1.19), debug=0 stacks: the leaked sender and the parent in errgroup.Wait.
const sender0 = `
  runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
  runtime.chansend /usr/lib/go-1.19/src/runtime/chan.go:259
  runtime.chansend1 /usr/lib/go-1.19/src/runtime/chan.go:145
  ${P}.returnErr /s/pkg/stores/proxy/proxy_store.go:50 (inl)
  ${P}.(*Store).listAndWatch.func3 /s/pkg/stores/proxy/proxy_store.go:107
  ${EG}.(*Group).Go.func1 /s/third_party/golang.org/x/sync/errgroup/errgroup.go:81`;
const parent0 = `
  runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
  runtime.goparkunlock /usr/lib/go-1.19/src/runtime/proc.go:369 (inl)
  runtime.semacquire1 /usr/lib/go-1.19/src/runtime/sema.go:150
  sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
  sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
  ${EG}.(*Group).Wait /s/third_party/golang.org/x/sync/errgroup/errgroup.go:59
  ${P}.(*Store).listAndWatch /s/pkg/stores/proxy/proxy_store.go:118
  ${P}.(*Store).watch.func1 /s/pkg/stores/proxy/proxy_store.go:155`;
const ctxDone0 = `
  runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
  runtime.chanrecv /usr/lib/go-1.19/src/runtime/chan.go:583
  runtime.chanrecv1 /usr/lib/go-1.19/src/runtime/chan.go:442
  ${P}.(*Store).listAndWatch.func1 /s/pkg/stores/proxy/proxy_store.go:89`;

const byBlockingFunc = (a: Analysis, func: string) => a.groups.find((g) => g.blockingSite?.func === func)!;

describe('closure names', () => {
  it('name their enclosing functions', () => {
    expect(enclosingFunctions(`${P}.(*Store).listAndWatch.func3`)).toEqual([`${P}.(*Store).listAndWatch`]);
    expect(enclosingFunctions(`${EG}.(*Group).Go.func1`)).toEqual([`${EG}.(*Group).Go`]);
    // kvstore-raft-windows-program-files: a nested closure, and a Go 1.22 go-statement wrapper.
    expect(enclosingFunctions('distributed-kv/consensus.(*RaftConsensus).Start.func1.1')).toEqual([
      'distributed-kv/consensus.(*RaftConsensus).Start.func1', 'distributed-kv/consensus.(*RaftConsensus).Start',
    ]);
    expect(enclosingFunctions('net/http.(*connReader).startBackgroundRead.gowrap2')).toEqual(['net/http.(*connReader).startBackgroundRead']);
    // Package-level closures (profilernotes: main.glob..func7) and plain functions name none.
    expect(enclosingFunctions('main.glob..func7')).toEqual([]);
    expect(enclosingFunctions(`${P}.returnErr`)).toEqual([]);
  });
});

describe('shared-frames inference (no creator ids: Go < 1.21, debug=0/1)', () => {
  it('links the blocked senders and the ctx goroutine to the parent waiting in errgroup.Wait (debug=0)', () => {
    const a = analyze(snapshot('pprof', [
      { frames: sender0, count: 300 },
      { frames: parent0, count: 380 },
      { frames: ctxDone0, count: 80 },
    ]));
    const sender = byBlockingFunc(a, `${P}.returnErr`);
    const parent = byBlockingFunc(a, `${P}.(*Store).listAndWatch`);
    const ctx = byBlockingFunc(a, `${P}.(*Store).listAndWatch.func1`);
    expect(spawnerCandidates(sender)).toEqual([`${EG}.(*Group).Go`, `${P}.(*Store).listAndWatch`]);
    expect(a.links).toEqual([
      { child: sender.id, parent: parent.id, count: 300, via: 'shared-frames', spawner: `${P}.(*Store).listAndWatch` },
      { child: ctx.id, parent: parent.id, count: 80, via: 'shared-frames', spawner: `${P}.(*Store).listAndWatch` },
    ]);
  });

  it('uses `created by` when printed (debug=2 before Go 1.21)', () => {
    // panicparse-panicweb-nethttp-debug2: a handler created by net/http.(*Server).Serve, which the
    // accept loop is still blocked in.
    const a = analyze(snapshot('debug2', [
      {
        state: 'chan receive', count: 10,
        frames: `
          github.com/maruel/panicparse/cmd/panicweb/internal.URL1Handler /gopath/src/github.com/maruel/panicparse/cmd/panicweb/internal/internal.go:95
          net/http.HandlerFunc.ServeHTTP /goroot/src/net/http/server.go:2042
          net/http.(*conn).serve /goroot/src/net/http/server.go:1925`,
        creator: { func: 'net/http.(*Server).Serve', file: '/goroot/src/net/http/server.go', line: 2969 },
      },
      {
        state: 'IO wait', count: 1,
        frames: `
          internal/poll.runtime_pollWait /goroot/src/runtime/netpoll.go:222
          net.(*TCPListener).Accept /goroot/src/net/tcpsock.go:261
          net/http.(*Server).Serve /goroot/src/net/http/server.go:2937
          main.main /gopath/src/github.com/maruel/panicparse/cmd/panicweb/main.go:70`,
      },
    ]));
    expect(a.links).toHaveLength(1);
    expect(a.links[0]).toMatchObject({ count: 10, via: 'shared-frames', spawner: 'net/http.(*Server).Serve' });
  });

  it('splits a child between several parents blocked inside the spawner, by their counts', () => {
    const a = analyze(snapshot('pprof', [
      { frames: `runtime.gopark /r/proc.go:1\nruntime.chanrecv1 /r/chan.go:2\nmain.serve.func1 /a.go:5`, count: 40 },
      { frames: `runtime.gopark /r/proc.go:1\nruntime.selectgo /r/select.go:2\nmain.serve /a.go:9\nmain.main /a.go:30`, count: 3 },
      { frames: `runtime.gopark /r/proc.go:1\nruntime.chanrecv1 /r/chan.go:2\nmain.serve /a.go:12\nmain.main /a.go:31`, count: 1 },
    ]));
    expect(a.links.map((l) => l.count).sort((x, y) => x - y)).toEqual([10, 30]);
  });
});

describe('creator-id links (Go 1.21+)', () => {
  // kvstore-raft-windows-program-files: SendRequestVote goroutines created by Start.func1 (goroutine 22).
  const recs = [
    {
      id: 22, state: 'chan receive',
      frames: 'distributed-kv/consensus.(*RaftConsensus).Start.func1 C:/k/consensus/consensus.go:312',
      creator: { func: 'distributed-kv/consensus.(*RaftConsensus).Start', file: 'C:/k/consensus/consensus.go', line: 278, goroutineId: 1 },
    },
    ...[103, 104].map((id) => ({
      id, state: 'select',
      frames: `distributed-kv/rpc.SendRequestVote C:/k/rpc/client.go:36
        distributed-kv/consensus.(*RaftConsensus).Start.func1.1 C:/k/consensus/consensus.go:301`,
      creator: { func: 'distributed-kv/consensus.(*RaftConsensus).Start.func1', file: 'C:/k/consensus/consensus.go', line: 295, goroutineId: 22 },
    })),
    ...[274, 265].map((id, i) => ({
      id, state: 'chan receive',
      frames: `net/rpc.(*Client).Call C:/Program Files/Go/src/net/rpc/client.go:321 (inl)
        distributed-kv/rpc.SendRequestVote.func1 C:/k/rpc/client.go:33`,
      creator: { func: 'distributed-kv/rpc.SendRequestVote', file: 'C:/k/rpc/client.go', line: 32, goroutineId: 103 + i },
    })),
  ];

  it('maps the reader links onto analyzed groups', () => {
    const a = analyze(snapshot('debug2', recs));
    const votes = byBlockingFunc(a, 'distributed-kv/rpc.SendRequestVote');
    const calls = byBlockingFunc(a, 'distributed-kv/rpc.SendRequestVote.func1');
    const loop = byBlockingFunc(a, 'distributed-kv/consensus.(*RaftConsensus).Start.func1');
    expect(a.links).toHaveLength(2);
    expect(a.links).toEqual(expect.arrayContaining([
      { child: calls.id, parent: votes.id, count: 2, via: 'creator-id' },
      { child: votes.id, parent: loop.id, count: 2, via: 'creator-id' },
    ]));
  });

  it('infers nothing for a child whose creator has exited', () => {
    // Start.func1 was created by goroutine 999, which is gone. Goroutine 1 sits in Start (the function
    // Start.func1's closure name points at): inference would link it, the printed id says otherwise.
    const inStart = { id: 1, state: 'sleep', frames: 'time.Sleep /g/time.go:1\ndistributed-kv/consensus.(*RaftConsensus).Start /k/c.go:290' };
    const a = analyze(snapshot('debug2', [{ ...recs[0], creator: { ...recs[0].creator, goroutineId: 999 } }, ...recs.slice(1), inStart]));
    const loop = byBlockingFunc(a, 'distributed-kv/consensus.(*RaftConsensus).Start.func1');
    expect(a.links.filter((l) => l.child === loop.id)).toEqual([]);
    // With goroutine 1 as the printed creator, the link is there, exact.
    const b = analyze(snapshot('debug2', [...recs, inStart]));
    const loopB = byBlockingFunc(b, 'distributed-kv/consensus.(*RaftConsensus).Start.func1');
    expect(b.links.filter((l) => l.child === loopB.id)).toEqual([expect.objectContaining({ via: 'creator-id', count: 1 })]);
  });
});
