/**
 * Detectors beyond one-group matching, on hand-built analyses: lock-order cycles (across types, and
 * one group whose goroutines hold each other's locks), pile-ups, map crashes (both sides, with and
 * without runtime map frames) and race dedupe.
 */
import { describe, expect, it } from 'vitest';
import type { RaceReport } from '../../src/model/dump.js';
import { diagnoseRaces, runRules } from '../../src/rules/index.js';
import { analysis, frame, group } from './build.js';

const lock = ['sync.runtime_SemacquireMutex @ /usr/lib/go/src/runtime/sema.go:77', 'sync.(*Mutex).lockSlow @ /usr/lib/go/src/sync/mutex.go:171', 'sync.(*Mutex).Lock @ /usr/lib/go/src/sync/mutex.go:90'];

describe('lock-order inversion', () => {
  it('names a cycle between two types as the root and the readers behind it as pile-up', () => {
    // (*Cache).refresh holds Cache.mu and calls (*Store).get; (*Store).flush holds Store.mu and calls (*Cache).invalidate.
    const a = group({ count: 1, waitKind: 'mutex', state: 'sync.Mutex.Lock', frames: [...lock, 'example.com/app.(*Store).get @ /w/store.go:40', 'example.com/app.(*Cache).refresh @ /w/cache.go:22'] });
    const b = group({ count: 1, waitKind: 'mutex', state: 'sync.Mutex.Lock', frames: [...lock, 'example.com/app.(*Cache).invalidate @ /w/cache.go:60', 'example.com/app.(*Store).flush @ /w/store.go:77'] });
    const readers = group({ count: 120, waitKind: 'mutex', state: 'sync.Mutex.Lock', frames: [...lock, 'example.com/app.(*Cache).Get @ /w/cache.go:30', 'example.com/app.handle @ /w/h.go:9'] });
    const f = runRules(analysis([a, b, readers]));
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ ruleId: 'core/lock-order', severity: 'error', category: 'deadlock' });
    expect(f[0].evidence.groups.map((g) => g.role)).toEqual(['root', 'root', 'consequence']);
    expect(f[0].evidence.groups[2].id).toBe(readers.id);
    expect(f[0].fix).toMatch(/one global order/);
  });

  it('finds two transfers holding each other\'s account locks with no holder anywhere else (samples/lock-inversion)', () => {
    const transfers = group({ count: 2, waitKind: 'mutex', state: 'semacquire', frames: [...lock, 'example.com/ledger/internal/ledger.(*Ledger).Transfer @ /w/internal/ledger/ledger.go:42'], creator: 'main.main @ /w/main.go:31' });
    const readers = group({ count: 200, waitKind: 'mutex', state: 'semacquire', frames: [...lock, 'example.com/ledger/internal/ledger.(*Account).Balance @ /w/internal/ledger/ledger.go:22', 'main.main.func1 @ /w/main.go:40'] });
    const f = runRules(analysis([transfers, readers]));
    expect(f).toHaveLength(1);
    expect(f[0].location).toMatchObject({ line: 42 });
    expect(f[0].evidence.groups.map((g) => [g.count, g.role])).toEqual([[2, 'root'], [200, 'consequence']]);
  });

  it('calls it contention, not deadlock, when a holder is visible (corpus kvstore-raft shape)', () => {
    const waiter = group({ count: 12, waitKind: 'mutex', state: 'sync.Mutex.Lock', frames: [...lock, 'example.com/kv.(*Raft).apply @ /w/raft.go:90'] });
    const holder = group({ count: 1, waitKind: 'io', state: 'IO wait', frames: ['internal/poll.runtime_pollWait', 'example.com/kv.(*Raft).sendVote @ /w/raft.go:200'] });
    const f = runRules(analysis([waiter, holder]));
    expect(f.map((x) => [x.ruleId, x.severity])).toEqual([['core/lock-pileup', 'warning']]);
  });
});

describe('map crashes', () => {
  it('names the crashing map op and the goroutines caught writing maps', () => {
    const crashed = group({
      count: 1,
      waitKind: 'running',
      state: 'running',
      flags: { crashed: true },
      frames: ['reflect.mapiternext @ /usr/lib/go-1.19/src/runtime/map.go:1380', 'reflect.(*MapIter).Next @ /usr/lib/go-1.19/src/reflect/value.go:1846', 'encoding/json.mapEncoder.encode @ /usr/lib/go-1.19/src/encoding/json/encode.go:798', 'encoding/json.Marshal @ /usr/lib/go-1.19/src/encoding/json/encode.go:160', 'example.com/agent/server.(*WebSocketWriter).writeLoop @ /w/server/websocket.go:22'],
    });
    const writer = group({ count: 1, waitKind: 'running', state: 'running', frames: ['runtime.mapassign_faststr @ /usr/lib/go-1.19/src/runtime/map_faststr.go:203', 'example.com/agent/counts.addCounts @ /w/counts/counts.go:82'] });
    const idle = group({ count: 32, waitKind: 'chan-receive', state: 'chan receive', frames: ['example.com/agent/server.IdleSession @ /w/server/websocket.go:32'] });
    const f = runRules(analysis([crashed, writer, idle], { headline: { kind: 'fatal-error', message: 'fatal error: concurrent map iteration and map write', lines: [] } }));
    const crash = f.filter((x) => x.category === 'crash');
    expect(crash).toHaveLength(1);
    expect(crash[0]).toMatchObject({ ruleId: 'core/map-crash', severity: 'error', location: { line: 22 } });
    expect(crash[0].explanation).toMatch(/iterating a map \(reflect\.mapiternext\) inside encoding\/json/);
    expect(crash[0].explanation).toMatch(/caught writing maps: 1 goroutine \[running\] at counts\.addCounts \(counts\.go:82\)/);
    expect(crash[0].fix).toMatch(/DeepCopy/);
    expect(crash[0].evidence.groups.map((g) => g.role)).toEqual(['root', 'related']);
  });

  it('falls back to the running code when the traceback hides map frames (corpus gonb-etcd-7070)', () => {
    const crashed = group({ count: 1, waitKind: 'running', state: 'running', flags: { crashed: true }, frames: ['ase/etcd-7070.(*store_7070).set_7070 @ /work/verified_test.go:17 (inlined)', 'ase/etcd-7070.TestRace_7070.func1 @ /work/verified_test.go:34'] });
    const others = group({ count: 22, waitKind: 'runnable', state: 'runnable', frames: ['ase/etcd-7070.TestRace_7070.func1 @ /work/verified_test.go:31'] });
    const f = runRules(analysis([crashed, others], { headline: { kind: 'fatal-error', message: 'fatal error: concurrent map writes', lines: [] } }));
    expect(f[0].title).toBe('Crash: concurrent map writes at etcd-7070.(*store_7070).set_7070 (verified_test.go:17)');
    expect(f[0].explanation).toMatch(/possibly writing .*22 goroutines of etcd-7070\.TestRace_7070\.func1/);
  });

  it('recognizes the panic of the JSON map encoder when keys change under it', () => {
    const crashed = group({
      count: 1,
      waitKind: 'running',
      state: 'running',
      flags: { crashed: true },
      frames: ['encoding/json.mapEncoder.encode.func1 @ /usr/lib/go-1.19/src/encoding/json/encode.go:808', 'sort.insertionSort_func @ /usr/lib/go-1.19/src/sort/zsortfunc.go:12', 'encoding/json.mapEncoder.encode @ /usr/lib/go-1.19/src/encoding/json/encode.go:808', 'encoding/json.Marshal @ /usr/lib/go-1.19/src/encoding/json/encode.go:160', 'example.com/agent/server.(*WebSocketWriter).writeLoop @ /w/server/websocket.go:22'],
    });
    const f = runRules(analysis([crashed], { headline: { kind: 'panic', message: 'panic: runtime error: index out of range [3] with length 3', lines: [] } }));
    expect(f.map((x) => [x.ruleId, x.severity])).toEqual([['core/map-crash', 'error']]);
    expect(f[0].title).toBe('Crash: map changed while encoding/json marshalled it at server.(*WebSocketWriter).writeLoop (websocket.go:22)');
  });

  it('reports other panics as a warning, not as a leak', () => {
    const g = group({ count: 1, waitKind: 'running', state: 'running', flags: { crashed: true }, frames: ['main.main @ /tmp/main.go:4'] });
    const f = runRules(analysis([g], { headline: { kind: 'panic', message: 'panic: oh no', lines: [] } }));
    expect(f.map((x) => [x.ruleId, x.severity])).toEqual([['core/crash', 'warning']]);
  });
});

describe('race reports', () => {
  const access = (op: 'read' | 'write', previous: boolean, id: number, fn: string, line: number) => ({
    op,
    previous,
    address: '0x00c000014100',
    goroutineId: id,
    frames: [frame('runtime.mapaccess1_faststr @ /usr/lib/go/src/runtime/map_faststr.go:13', 0), frame(`${fn} @ /w/internal/cache/cache.go:${line}`, 1)],
  });
  const report = (line: number, swap: boolean): RaceReport => {
    const a = access('read', false, 8, 'example.com/sessioncache/internal/cache.(*Cache).Get', 23);
    const b = access('write', true, 7, 'example.com/sessioncache/internal/cache.(*Cache).Put', 18);
    return { source: 'race.txt', accesses: swap ? [b, a] : [a, b], goroutines: [], line };
  };

  it('deduplicates repeated reports of one pair of sites, in either order', () => {
    const f = diagnoseRaces([report(1, false), report(30, false), report(60, true)]);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ ruleId: 'core/race', severity: 'error', category: 'race', location: { line: 23 } });
    expect(f[0].title).toBe('Data race between cache.(*Cache).Get (cache.go:23) and cache.(*Cache).Put (cache.go:18)');
    expect(f[0].evidence.facts).toContain('reported 3 times (first at line 1)');
  });
});
