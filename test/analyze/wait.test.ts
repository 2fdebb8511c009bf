/**
 * classifyWait on states and frames printed by real runtimes. Frames marked "go1.19 run" come from a
 * Go 1.19.8 program that parked one goroutine per primitive and wrote debug=0/1/2 of itself; others
 * name their corpus file or sample.
 */
import { describe, expect, it } from 'vitest';
import type { DumpFormat, WaitKind } from '../../src/model/dump.js';
import { classifyWait } from '../../src/model/wait.js';
import { frames } from './fixtures.js';

const k = (state: string, text: string, format: DumpFormat): WaitKind => classifyWait(state, frames(text), format);

describe('classifyWait from the printed state', () => {
  const cases: Array<[string, WaitKind]> = [
    ['chan send', 'chan-send'], ['chan receive', 'chan-receive'],
    ['chan send (nil chan)', 'blocked-forever'], ['chan receive (nil chan)', 'blocked-forever'],
    ['select (no cases)', 'blocked-forever'], ['select', 'select'],
    ['chan receive (durable)', 'chan-receive'], ['chan send (durable)', 'chan-send'], ['select (durable)', 'select'],
    ['sync.Mutex.Lock', 'mutex'], ['sync.RWMutex.RLock', 'rwmutex'], ['sync.RWMutex.Lock', 'rwmutex'],
    ['sync.WaitGroup.Wait', 'waitgroup'], ['sync.Cond.Wait', 'cond'], ['synctest.Wait', 'waitgroup'],
    ['IO wait', 'io'], ['sleep', 'sleep'], ['syscall', 'syscall'], ['running', 'running'], ['runnable', 'runnable'],
    ['GC worker (idle)', 'runtime'], ['finalizer wait', 'runtime'], ['force gc (idle)', 'runtime'],
    ['GC sweep wait', 'runtime'], ['GC scavenge wait', 'runtime'], ['trace reader (blocked)', 'runtime'],
    ['timer goroutine (idle)', 'runtime'], ['GOMAXPROCS updater (idle)', 'runtime'], ['panicwait', 'runtime'],
    ['idle', 'runtime'], ['preempted', 'runnable'], ['debug call', 'runnable'], ['wait for GC cycle', 'runnable'],
    ['coroutine', 'chan-receive'],
    // Decorations that readers may leave on: the kind does not change.
    ['chan send (leaked)', 'chan-send'], ['select, 5 minutes', 'select'], ['IO wait (scan)', 'io'],
  ];
  it.each(cases)('%s → %s', (state, kind) => {
    expect(classifyWait(state, [], 'debug2')).toBe(kind);
  });

  it('refines semacquire by the sync frames (Go < 1.20 prints semacquire for all of them)', () => {
    // go1.19 run, debug=2: RWMutex.RLock (no RWMutexR entry in 1.19), RWMutex.Lock via its Mutex,
    // Once.Do waiting on its mutex, errgroup.Wait (samples/apiproxy-leak).
    expect(k('semacquire', `
      sync.runtime_SemacquireMutex /usr/lib/go-1.19/src/runtime/sema.go:77
      sync.(*RWMutex).RLock /usr/lib/go-1.19/src/sync/rwmutex.go:71
      main.reader /tmp/lnexp2/main.go:19`, 'debug2')).toBe('rwmutex');
    expect(k('semacquire', `
      sync.runtime_SemacquireMutex /usr/lib/go-1.19/src/runtime/sema.go:77
      sync.(*Mutex).lockSlow /usr/lib/go-1.19/src/sync/mutex.go:171
      sync.(*Mutex).Lock /usr/lib/go-1.19/src/sync/mutex.go:90
      sync.(*RWMutex).Lock /usr/lib/go-1.19/src/sync/rwmutex.go:147
      main.writer /tmp/lnexp2/main.go:20`, 'debug2')).toBe('rwmutex');
    expect(k('semacquire', `
      sync.runtime_SemacquireMutex /usr/lib/go-1.19/src/runtime/sema.go:77
      sync.(*Mutex).lockSlow /usr/lib/go-1.19/src/sync/mutex.go:171
      sync.(*Mutex).Lock /usr/lib/go-1.19/src/sync/mutex.go:90
      sync.(*Once).doSlow /usr/lib/go-1.19/src/sync/once.go:70
      sync.(*Once).Do /usr/lib/go-1.19/src/sync/once.go:65
      main.onceWaiter /tmp/lnexp2/main.go:31`, 'debug2')).toBe('mutex');
    expect(k('semacquire', `
      sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
      sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
      golang.org/x/sync/errgroup.(*Group).Wait /s/third_party/golang.org/x/sync/errgroup/errgroup.go:59`, 'debug2')).toBe('waitgroup');
    // A semaphore that is no sync primitive.
    expect(k('semacquire', `
      sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
      example.com/x.(*pool).get /src/x/pool.go:10`, 'debug2')).toBe('semaphore');
  });
});

describe('classifyWait from debug=0 frames (all frames, no state)', () => {
  it.each<[string, string, WaitKind]>([
    ['chan send (go1.19 run)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.chansend /usr/lib/go-1.19/src/runtime/chan.go:259
      runtime.chansend1 /usr/lib/go-1.19/src/runtime/chan.go:145
      main.returnErr /tmp/lnexp/main.go:14 (inl)
      main.listAndWatch.func1 /tmp/lnexp/main.go:33`, 'chan-send'],
    ['chan receive (profilernotes-nethttp-debug0-labels)', `
      runtime.gopark /usr/local/Cellar/go/1.15.6/libexec/src/runtime/proc.go:306
      runtime.chanrecv /usr/local/Cellar/go/1.15.6/libexec/src/runtime/chan.go:577
      runtime.chanrecv1 /usr/local/Cellar/go/1.15.6/libexec/src/runtime/chan.go:439
      main.chanReceiveForever /Users/f/go/src/github.com/felixge/go-profiler-notes/examples/goroutine/main.go:177`, 'chan-receive'],
    // samples/nil-channel/goroutine.debug0.pb.gz: the nil-channel park is the first statement of
    // chanrecv/chansend, right below the compiler entry points; the blocking park is 100+ lines on.
    ['nil chan receive (samples/nil-channel debug0)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.chanrecv /usr/lib/go-1.19/src/runtime/chan.go:469
      runtime.chanrecv2 /usr/lib/go-1.19/src/runtime/chan.go:447
      example.com/notifier/internal/broker.(*Broker).Subscribe.func1 /w/internal/broker/broker.go:30`, 'blocked-forever'],
    ['nil chan send (samples/nil-channel debug0)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.chansend /usr/lib/go-1.19/src/runtime/chan.go:165
      runtime.chansend1 /usr/lib/go-1.19/src/runtime/chan.go:145
      example.com/notifier/internal/broker.(*Broker).Publish /w/internal/broker/broker.go:39`, 'blocked-forever'],
    ['blocking receive, Go 1.19 (samples/unstopped-tickers debug0)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.chanrecv /usr/lib/go-1.19/src/runtime/chan.go:583
      runtime.chanrecv2 /usr/lib/go-1.19/src/runtime/chan.go:447
      example.com/chat/internal/session.(*Session).heartbeat /w/internal/session/session.go:31`, 'chan-receive'],
    ['receive without line numbers stays a receive', `
      runtime.gopark
      runtime.chanrecv
      runtime.chanrecv1
      main.f /tmp/main.go:3`, 'chan-receive'],
    ['select (go1.19 run)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.selectgo /usr/lib/go-1.19/src/runtime/select.go:328
      main.selecter /tmp/lnexp2/main.go:24`, 'select'],
    ['select {} (go1.19 run)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.block /usr/lib/go-1.19/src/runtime/select.go:104
      main.main.func1 /tmp/lnexp2/main.go:47`, 'blocked-forever'],
    ['RWMutex.RLock (go1.19 run)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.goparkunlock /usr/lib/go-1.19/src/runtime/proc.go:369 (inl)
      runtime.semacquire1 /usr/lib/go-1.19/src/runtime/sema.go:150
      sync.runtime_SemacquireMutex /usr/lib/go-1.19/src/runtime/sema.go:77
      sync.(*RWMutex).RLock /usr/lib/go-1.19/src/sync/rwmutex.go:71 (inl)
      main.reader /tmp/lnexp2/main.go:19`, 'rwmutex'],
    ['Cond.Wait (go1.19 run)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.goparkunlock /usr/lib/go-1.19/src/runtime/proc.go:369 (inl)
      sync.runtime_notifyListWait /usr/lib/go-1.19/src/runtime/sema.go:517
      sync.(*Cond).Wait /usr/lib/go-1.19/src/sync/cond.go:70
      main.waiter /tmp/lnexp2/main.go:21`, 'cond'],
    ['WaitGroup.Wait (samples/apiproxy-leak)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.goparkunlock /usr/lib/go-1.19/src/runtime/proc.go:369 (inl)
      runtime.semacquire1 /usr/lib/go-1.19/src/runtime/sema.go:150
      sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
      sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139`, 'waitgroup'],
    ['IO wait (go1.19 run)', `
      runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
      runtime.netpollblock /usr/lib/go-1.19/src/runtime/netpoll.go:526
      internal/poll.runtime_pollWait /usr/lib/go-1.19/src/runtime/netpoll.go:305`, 'io'],
    ['sleep (profilernotes-nethttp-debug0-labels)', `
      runtime.gopark /usr/local/Cellar/go/1.15.6/libexec/src/runtime/proc.go:306
      time.Sleep /usr/local/Cellar/go/1.15.6/libexec/src/runtime/time.go:188
      main.sleepLoop /Users/f/main.go:171`, 'sleep'],
    ['syscall (go1.19 run)', `
      syscall.Syscall /usr/lib/go-1.19/src/syscall/syscall_linux.go:68
      syscall.read /usr/lib/go-1.19/src/syscall/zsyscall_linux_amd64.go:696
      main.sysread /tmp/lnexp2/main.go:30`, 'syscall'],
    ['the dumping goroutine (go1.19 run)', `
      runtime.goroutineProfileWithLabels /usr/lib/go-1.19/src/runtime/mprof.go:858
      runtime/pprof.runtime_goroutineProfileWithLabels /usr/lib/go-1.19/src/runtime/mprof.go:846
      runtime/pprof.writeRuntimeProfile /usr/lib/go-1.19/src/runtime/pprof/pprof.go:723`, 'running'],
    ['the dumping goroutine, Go 1.13-era (cortex-355-grpc-conns)', `
      runtime/pprof.writeRuntimeProfile /usr/local/go/src/runtime/pprof/pprof.go:694
      runtime/pprof.writeGoroutine /usr/local/go/src/runtime/pprof/pprof.go:656`, 'running'],
    ['runnable at its entry (profilernotes-nethttp-labels)', `
      net/http.(*connReader).backgroundRead /usr/local/Cellar/go/1.15.6/libexec/src/net/http/server.go:689`, 'runnable'],
    ['GC worker', `
      runtime.gopark /usr/local/go/src/runtime/proc.go:363
      runtime.gcBgMarkWorker /usr/local/go/src/runtime/mgc.go:1235`, 'runtime'],
  ])('%s', (_name, text, kind) => {
    expect(k('', text, 'pprof')).toBe(kind);
  });
});

describe('classifyWait from debug=1 frames (leading runtime frames hidden)', () => {
  it('says unknown when user code is on top: a send, a receive or a select look alike', () => {
    // samples/apiproxy-leak debug=1: the chan send parked in returnErr, the chan receive in the session loop.
    expect(k('', `
      example.com/apiproxy/pkg/stores/proxy.returnErr /s/pkg/stores/proxy/proxy_store.go:50
      example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3 /s/pkg/stores/proxy/proxy_store.go:107`, 'debug1')).toBe('unknown');
    // go1.19 run: select {} and a nil-channel receive are just as invisible.
    expect(k('', 'main.nilRecv /tmp/lnexp2/main.go:22', 'debug1')).toBe('unknown');
    // profilernotes-nethttp-labels: a stdlib select loop.
    expect(k('', 'net/http.(*persistConn).writeLoop /usr/local/go/src/net/http/transport.go:2340', 'debug1')).toBe('unknown');
  });

  it('classifies from the first visible frame where it tells', () => {
    expect(k('', `
      sync.runtime_SemacquireMutex /usr/lib/go-1.19/src/runtime/sema.go:77
      sync.(*Mutex).lockSlow /usr/lib/go-1.19/src/sync/mutex.go:171
      sync.(*Mutex).Lock /usr/lib/go-1.19/src/sync/mutex.go:90
      sync.(*RWMutex).Lock /usr/lib/go-1.19/src/sync/rwmutex.go:147
      main.writer /tmp/lnexp2/main.go:20`, 'debug1')).toBe('rwmutex');
    expect(k('', `
      time.Sleep /usr/local/Cellar/go/1.15.6/libexec/src/runtime/time.go:188
      main.shortSleepLoop /Users/f/main.go:165`, 'debug1')).toBe('sleep');
    expect(k('', `
      internal/poll.runtime_pollWait /usr/local/Cellar/go/1.15.6/libexec/src/runtime/netpoll.go:222
      internal/poll.(*pollDesc).wait /usr/local/Cellar/go/1.15.6/libexec/src/internal/poll/fd_poll_runtime.go:87`, 'debug1')).toBe('io');
    // Go 1.24+ moved the mutex into internal/sync (kvstore-raft-windows-program-files).
    expect(k('', `
      internal/sync.runtime_SemacquireMutex C:/Program Files/Go/src/runtime/sema.go:95
      internal/sync.(*Mutex).lockSlow C:/Program Files/Go/src/internal/sync/mutex.go:149
      internal/sync.(*Mutex).Lock C:/Program Files/Go/src/internal/sync/mutex.go:70
      sync.(*Mutex).Lock C:/Program Files/Go/src/sync/mutex.go:46
      distributed-kv/consensus.(*RaftConsensus).Start.func2 C:/Users/m/KVStore/consensus/consensus.go:432`, 'debug1')).toBe('mutex');
    // Go 1.22+: the profile call itself is hidden, writeRuntimeProfile is on top (cyrillic-path-with-spaces).
    expect(k('', `
      runtime/pprof.writeRuntimeProfile /usr/local/go/src/runtime/pprof/pprof.go:788
      runtime/pprof.writeGoroutine /usr/local/go/src/runtime/pprof/pprof.go:747`, 'debug1')).toBe('running');
  });

  it('reads Go 1.1-era C runtime frames (gocircuit-go1.1-era-c-runtime)', () => {
    expect(k('', `
      netpollblock /b/go/src/pkg/runtime/znetpoll_darwin_amd64.c:255
      net.runtime_pollWait /b/go/src/pkg/runtime/znetpoll_darwin_amd64.c:118`, 'debug1')).toBe('io');
  });
});
