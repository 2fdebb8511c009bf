/** diff(before, after): groups matched by normalized key, across formats, sorted by growth. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { diff } from '../../src/analyze/compare.js';
import { readDump } from '../../src/read/index.js';
import { SAMPLES } from '../helpers/paths.js';
import { snapshot } from './fixtures.js';

/** Frames quoted from samples/apiproxy-leak/goroutine.debug2.txt. */
const SENDER = `
example.com/apiproxy/pkg/stores/proxy.returnErr /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:50 (inl)
example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3 /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:107
golang.org/x/sync/errgroup.(*Group).Go.func1 /work/main/samples/apiproxy-leak/third_party/golang.org/x/sync/errgroup/errgroup.go:81`;
const WAITER = `
sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
golang.org/x/sync/errgroup.(*Group).Wait /work/main/samples/apiproxy-leak/third_party/golang.org/x/sync/errgroup/errgroup.go:59
example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:118`;
const LOOP = `
example.com/apiproxy/pkg/server.(*Session).loop /work/main/samples/apiproxy-leak/pkg/server/session.go:57
example.com/apiproxy/pkg/server.(*Session).Run.func1 /work/main/samples/apiproxy-leak/pkg/server/session.go:41`;
const WORKER = `
example.com/apiproxy/pkg/stores/proxy.(*Store).WatchNames.func1 /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:137`;

describe('diff', () => {
  it('matches groups by key and reports before, after, delta, growth, new and vanished', () => {
    const before = analyze(snapshot('debug2', [
      { frames: SENDER, state: 'chan send', count: 100 },
      { frames: WAITER, state: 'semacquire', count: 40 },
      { frames: WORKER, state: 'chan receive', count: 60 },
    ]));
    const after = analyze(snapshot('debug2', [
      { frames: SENDER, state: 'chan send', count: 300 },
      { frames: WAITER, state: 'semacquire', count: 30 },
      { frames: LOOP, state: 'chan receive', count: 80 },
    ]));
    const d = diff(before, after);
    expect(d.before.total).toBe(200);
    expect(d.after.total).toBe(410);
    expect(d.totalDelta).toBe(210);
    expect(d.totalGrowth).toBeCloseTo(1.05);
    expect(d.newGroups).toBe(1);
    expect(d.vanishedGroups).toBe(1);
    const rows = d.groups.map((g) => [g.change, g.before, g.after, g.delta, g.growth]);
    expect(rows).toEqual([
      ['grown', 100, 300, 200, 2],
      ['new', 0, 80, 80, null],
      ['shrunk', 40, 30, -10, -0.25],
      ['vanished', 60, 0, -60, -1],
    ]);
    expect(d.groups[0].blockingSite?.line).toBe(50);
    expect(d.groups[3].group.blockingSite?.line).toBe(137);
  });

  it('is empty of changes for two formats of one process (debug=1 and debug=2 of the leak sample)', async () => {
    const dir = join(SAMPLES, 'apiproxy-leak');
    const [d1] = (await readDump(join(dir, 'goroutine.debug1.txt'))).snapshots;
    const [d2] = (await readDump(join(dir, 'goroutine.debug2.txt'))).snapshots;
    const d = diff(analyze(d1), analyze(d2));
    expect(d.totalDelta).toBe(0);
    // The one goroutine that wrote the profile runs different code for debug=1 and debug=2.
    const changed = d.groups.filter((g) => g.change !== 'unchanged');
    expect(changed.map((g) => [g.change, g.waitKind, g.delta]).sort()).toEqual([['new', 'running', 1], ['vanished', 'running', -1]]);
    expect(d.groups.filter((g) => g.change === 'unchanged').reduce((n, g) => n + g.after, 0)).toBe(1060);
  });

  it('matches protobuf (debug=0) against text (debug=2)', async () => {
    const dir = join(SAMPLES, 'apiproxy-leak');
    const [d0] = (await readDump(join(dir, 'goroutine.debug0.pb.gz'))).snapshots;
    const [d2] = (await readDump(join(dir, 'goroutine.debug2.txt'))).snapshots;
    const d = diff(analyze(d0), analyze(d2));
    expect(d.totalDelta).toBe(0);
    const send = d.groups.find((g) => g.blockingSite?.line === 50);
    expect(send && [send.before, send.after]).toEqual([300, 300]);
  });

  it('refuses analyses grouped at different levels', () => {
    const s = snapshot('debug2', [{ frames: SENDER, state: 'chan send', count: 1 }]);
    expect(() => diff(analyze(s, { level: 'exact' }), analyze(s, { level: 'functions' }))).toThrow(/different levels/);
  });

  it('handles an empty before (growth null) and is ordered deterministically', () => {
    const empty = analyze(snapshot('debug2', []));
    const after = analyze(snapshot('debug2', [
      { frames: LOOP, state: 'chan receive', count: 5 },
      { frames: WORKER, state: 'chan receive', count: 5 },
    ]));
    const d = diff(empty, after);
    expect(d.totalGrowth).toBeNull();
    expect(d.groups.map((g) => g.key)).toEqual([...d.groups.map((g) => g.key)].sort());
  });
});
