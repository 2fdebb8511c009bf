/**
 * Cascades on hand-built analyses: the incident (a) shape as Go 1.19 prints it (no creator ids, so
 * links come from closures and counts), a renamed WaitGroup variant, and printed creator-id links.
 */
import { describe, expect, it } from 'vitest';
import { runRules } from '../../src/rules/index.js';
import { analysis, group, httpServerBackground } from './build.js';

const P = '/src/apiproxy/pkg/stores/proxy/proxy_store.go';
const EG = '/src/apiproxy/third_party/golang.org/x/sync/errgroup/errgroup.go';

/** listAndWatch.func3 parked in returnErr's send (returnErr inlined), as in incident (a). */
function sender(count: number) {
  return group({
    count,
    waitKind: 'chan-send',
    state: 'chan send',
    frames: [
      'runtime.gopark @ /usr/local/go/src/runtime/proc.go:363',
      'runtime.chansend @ /usr/local/go/src/runtime/chan.go:259',
      'runtime.chansend1 @ /usr/local/go/src/runtime/chan.go:145',
      `example.com/apiproxy/pkg/stores/proxy.returnErr @ ${P}:50 (inlined)`,
      `example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3 @ ${P}:107`,
      `golang.org/x/sync/errgroup.(*Group).Go.func1 @ ${EG}:75`,
    ],
    creator: `golang.org/x/sync/errgroup.(*Group).Go @ ${EG}:72`,
  });
}

/** watch.func1 → listAndWatch parked in eg.Wait() (semacquire before Go 1.20). */
function waiter(count: number) {
  return group({
    count,
    waitKind: 'semaphore',
    state: 'semacquire',
    frames: [
      'runtime.gopark @ /usr/local/go/src/runtime/proc.go:363',
      'runtime.goparkunlock @ /usr/local/go/src/runtime/proc.go:369',
      'runtime.semacquire1 @ /usr/local/go/src/runtime/sema.go:150',
      'sync.runtime_Semacquire @ /usr/local/go/src/runtime/sema.go:62',
      'sync.(*WaitGroup).Wait @ /usr/local/go/src/sync/waitgroup.go:139',
      `golang.org/x/sync/errgroup.(*Group).Wait @ ${EG}:59`,
      `example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch @ ${P}:118`,
      `example.com/apiproxy/pkg/stores/proxy.(*Store).watch.func1 @ ${P}:155`,
    ],
    creator: `example.com/apiproxy/pkg/stores/proxy.(*Store).watch @ ${P}:154`,
  });
}

describe('cascade: blocked send with WaitGroup/errgroup parents', () => {
  it('reports ONE error finding rooted at the send, with the waiting parents as consequences', () => {
    const s = sender(300);
    const w = waiter(300);
    const findings = runRules(analysis([s, w, ...httpServerBackground()]));
    const errors = findings.filter((f) => f.severity === 'error');
    expect(errors).toHaveLength(1);
    const f = errors[0];
    expect(f.ruleId).toBe('core/blocked-send');
    expect(f.location).toMatchObject({ file: P, line: 50 });
    expect(f.evidence.groups.map((g) => [g.id, g.role])).toEqual([
      [s.id, 'root'],
      [w.id, 'consequence'],
    ]);
    expect(f.evidence.goroutines).toBe(600);
    expect(f.explanation).toContain('errgroup.(*Group).Wait');
    expect(f.cause).toMatch(/returned early/);
    expect(f.cause).toMatch(/draining/);
    expect(f.fix).toMatch(/for range c \{\}/);
    expect(f.fix).toMatch(/ctx\.Done\(\)/);
    // The waiter is never a root anywhere.
    expect(findings.filter((x) => x.evidence.groups.some((g) => g.id === w.id && g.role === 'root'))).toEqual([]);
  });

  it('tolerates counts that differ by a few percent (goroutines caught mid-exit)', () => {
    const f = runRules(analysis([sender(113097), waiter(111938)]));
    expect(f).toHaveLength(1);
    expect(f[0].evidence.groups.map((g) => g.role)).toEqual(['root', 'consequence']);
  });

  it('does not link groups whose counts disagree', () => {
    const f = runRules(analysis([sender(300), waiter(170)]));
    const send = f.find((x) => x.ruleId === 'core/blocked-send')!;
    expect(send.evidence.groups.map((g) => g.role)).toEqual(['root']);
  });

  it('finds the same cascade under other names with sync.WaitGroup (Go 1.20+ wait reason)', () => {
    const child = group({
      count: 120,
      waitKind: 'chan-send',
      state: 'chan send',
      frames: [
        'runtime.gopark @ /usr/local/go/src/runtime/proc.go:398',
        'runtime.chansend @ /usr/local/go/src/runtime/chan.go:259',
        'runtime.chansend1 @ /usr/local/go/src/runtime/chan.go:145',
        'example.com/feeds/internal/relay.(*Hub).pump.func2 @ /src/feeds/internal/relay/hub.go:88',
      ],
      creator: 'example.com/feeds/internal/relay.(*Hub).pump @ /src/feeds/internal/relay/hub.go:80',
    });
    const parent = group({
      count: 120,
      waitKind: 'waitgroup',
      state: 'sync.WaitGroup.Wait',
      frames: [
        'runtime.gopark @ /usr/local/go/src/runtime/proc.go:398',
        'sync.runtime_Semacquire @ /usr/local/go/src/runtime/sema.go:62',
        'sync.(*WaitGroup).Wait @ /usr/local/go/src/sync/waitgroup.go:116',
        'example.com/feeds/internal/relay.(*Hub).pump @ /src/feeds/internal/relay/hub.go:97',
        'example.com/feeds/internal/relay.(*Hub).Subscribe.func1 @ /src/feeds/internal/relay/hub.go:41',
      ],
    });
    const f = runRules(analysis([parent, child]));
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('error');
    expect(f[0].location).toMatchObject({ line: 88 });
    expect(f[0].evidence.groups.map((g) => [g.id, g.role])).toEqual([
      [child.id, 'root'],
      [parent.id, 'consequence'],
    ]);
  });

  it('uses printed creator-id links (Go 1.21+) and follows them up to whoever waits on the parent', () => {
    // A request waiting for one result deep in its call chain (not a worker loop).
    const leaf = group({
      count: 60,
      waitKind: 'chan-receive',
      state: 'chan receive',
      frames: ['runtime.gopark', 'runtime.chanrecv1', 'example.com/svc.lookup @ /src/svc/fetch.go:30', 'example.com/svc.fetch @ /src/svc/fetch.go:12'],
      creator: 'example.com/svc.batch @ /src/svc/batch.go:12',
    });
    const mid = group({
      count: 60,
      waitKind: 'waitgroup',
      state: 'sync.WaitGroup.Wait',
      frames: ['runtime.gopark', 'sync.runtime_Semacquire', 'sync.(*WaitGroup).Wait', 'example.com/svc.batch @ /src/svc/batch.go:20'],
      creator: 'example.com/svc.run @ /src/svc/run.go:9',
    });
    const top = group({
      count: 60,
      waitKind: 'waitgroup',
      state: 'sync.WaitGroup.Wait',
      frames: ['runtime.gopark', 'sync.runtime_Semacquire', 'sync.(*WaitGroup).Wait', 'example.com/svc.run @ /src/svc/run.go:15'],
    });
    const a = analysis([leaf, mid, top], {
      links: [
        { child: leaf.id, parent: mid.id, count: 60, via: 'creator-id' },
        { child: mid.id, parent: top.id, count: 60, via: 'creator-id' },
      ],
    });
    const f = runRules(a);
    expect(f).toHaveLength(1);
    expect(f[0].ruleId).toBe('core/blocked-receive');
    expect(f[0].severity).toBe('error');
    expect(f[0].evidence.groups.map((g) => [g.id, g.role])).toEqual([
      [leaf.id, 'root'],
      [mid.id, 'consequence'],
      [top.id, 'consequence'],
    ]);
  });

  it('re-roots a WaitGroup pile-up onto the child it waits for, even below the child rules\' thresholds', () => {
    const child = group({
      count: 8,
      waitKind: 'chan-send',
      state: 'chan send',
      frames: ['runtime.gopark', 'runtime.chansend1', 'example.com/x.(*S).run.func1 @ /src/x/s.go:21'],
    });
    const parent = group({
      count: 8,
      waitKind: 'waitgroup',
      state: 'sync.WaitGroup.Wait',
      frames: ['runtime.gopark', 'sync.runtime_Semacquire', 'sync.(*WaitGroup).Wait', 'example.com/x.(*S).run @ /src/x/s.go:30'],
    });
    const f = runRules(analysis([child, parent]));
    expect(f).toHaveLength(1);
    expect(f[0].evidence.groups.find((g) => g.role === 'root')!.id).toBe(child.id);
    expect(f[0].evidence.groups.find((g) => g.role === 'consequence')!.id).toBe(parent.id);
  });
});
