/** Merging read-stage groups under one signature: tallies, labels, ids, order, ids of groups. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { signature } from '../../src/analyze/signature.js';
import { FrameTable } from '../../src/model/builder.js';
import { MAX_ID_SAMPLE, type Frame } from '../../src/model/dump.js';
import { snapshot } from './fixtures.js';

// samples/apiproxy-leak debug=1 records: one stack, split by label set.
const sendStack = `
  example.com/apiproxy/pkg/stores/proxy.returnErr /s/pkg/stores/proxy/proxy_store.go:50
  example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3 /s/pkg/stores/proxy/proxy_store.go:107
  golang.org/x/sync/errgroup.(*Group).Go.func1 /s/third_party/golang.org/x/sync/errgroup/errgroup.go:81`;
const waitStack = `
  sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
  sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
  golang.org/x/sync/errgroup.(*Group).Wait /s/third_party/golang.org/x/sync/errgroup/errgroup.go:59
  example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch /s/pkg/stores/proxy/proxy_store.go:118
  example.com/apiproxy/pkg/stores/proxy.(*Store).watch.func1 /s/pkg/stores/proxy/proxy_store.go:155`;

describe('groupSnapshot', () => {
  it('merges records split by labels into one group, keeping shared labels and counting label sets', () => {
    const s = snapshot('debug1', [
      { frames: sendStack, count: 75, labels: { resource: 'configmaps', subscription: 'names' } },
      { frames: sendStack, count: 75, labels: { resource: 'pods', subscription: 'names' } },
      { frames: sendStack, count: 150, labels: { resource: 'secrets', subscription: 'names' } },
      { frames: waitStack, count: 380 },
    ]);
    const a = analyze(s);
    expect(a.groups).toHaveLength(2);
    const [wait, send] = a.groups;
    expect(wait.count).toBe(380);
    expect(send).toMatchObject({ count: 300, labels: { subscription: 'names' }, labelSets: 3, members: [0, 1, 2] });
    expect(send.share).toBeCloseTo(300 / 680);
    // The representative stack is the largest member's; its frames carry origins.
    expect(send.frames.map((f) => f.origin)).toEqual(['user', 'user', 'dependency']);
    expect(send.id).toBe(createHash('sha1').update(send.key).digest('hex').slice(0, 10));
    expect(a.byWaitKind).toEqual({ unknown: 300, waitgroup: 380 });
  });

  it('merges debug=2 goroutines across states, creators ids and waits; tallies states', () => {
    const creator = { func: 'golang.org/x/sync/errgroup.(*Group).Go', file: '/s/errgroup.go', line: 78 };
    const recs = [];
    for (let i = 0; i < 40; i++) {
      recs.push({ frames: sendStack, state: 'chan send', id: 100 + i, creator: { ...creator, goroutineId: 1000 + i }, waitMinutes: i % 10 === 0 ? undefined : i });
    }
    recs.push({ frames: sendStack, state: 'runnable', id: 7, creator: { ...creator, goroutineId: 5 } });
    recs.push({ frames: sendStack, state: 'chan send', id: 8, leaked: true });
    const a = analyze(snapshot('debug2', recs));
    expect(a.groups).toHaveLength(1);
    const g = a.groups[0];
    expect(g.count).toBe(42);
    expect(g.states).toEqual(['chan send', 'runnable']);
    expect(g.waitKind).toBe('chan-send');
    expect(g.wait).toEqual({ min: 1, max: 39, stamped: 36 });
    expect(g.goroutineIds).toHaveLength(MAX_ID_SAMPLE);
    expect(g.goroutineIds[0]).toBe(7);
    expect(g.creator?.func).toBe(creator.func);
    expect(g.creator?.goroutineIds.length).toBeLessThanOrEqual(MAX_ID_SAMPLE);
    expect(g.leaked).toBe(1);
    expect(g.flags.leaked).toBe(true);
    expect(a.byWaitKind).toEqual({ 'chan-send': 41, runnable: 1 });
  });

  it('prefers a known wait kind over unknown and sorts by count, then key', () => {
    const s = snapshot('debug1', [
      { frames: 'main.a /a.go:1', count: 5 },
      { frames: 'main.b /a.go:2', count: 5 },
      { frames: 'main.c /a.go:3', count: 9 },
    ]);
    const a = analyze(s);
    expect(a.groups.map((g) => g.count)).toEqual([9, 5, 5]);
    expect(a.groups[1].key < a.groups[2].key).toBe(true);
  });

  it('keeps `functions`-level groups together across line changes', () => {
    const s = snapshot('debug2', [
      { frames: 'main.worker /a.go:10\nmain.main.func1 /a.go:20', state: 'chan receive', count: 1 },
      { frames: 'main.worker /a.go:11\nmain.main.func1 /a.go:20', state: 'chan receive', count: 1 },
    ]);
    expect(analyze(s).groups).toHaveLength(2);
    expect(analyze(s, { level: 'functions' }).groups).toHaveLength(1);
  });

  it('merges and orders groups exactly as their key strings would, whatever the frames hold', () => {
    // Hand-made frames (malformed-input style): line numbers that are prefixes of each other,
    // names holding '\n' (a crafted profile: a frame then reads as two lines of the key) or a tab
    // (below '\n'), stacks with nothing to key on.
    const t = new FrameTable();
    const f = (func: string, line: number, file = '/a.go'): Frame => t.frame(func, 'main', file, line, false);
    const stacks: Frame[][] = [
      [f('main.f', 1)], [f('main.f', 10)], [f('main.f', 1), f('main.g', 2)], [f('main.f', 1), f('main.g', 20)],
      [f('main.f /a.go:1\nmain.g', 2, '/b.go')], [f('main.f', 1), f('main.g', 2, '/b.go')],
      [f('main.f\tx', 1)], [f('main.f', 1), f('main.f\tx', 1)],
      [], [f('runtime.goexit', 1)], [f('(no frames)', 0, '')], [f('main.a', 3)], [f('main.a', 3)],
      // Enough signatures for the table to compare ranks rather than text (RANKED_FROM).
      ...Array.from({ length: 2100 }, (_, i) => [f(`main.f${i}`, i % 13), f('main.f', i), f('main.g', 2)]),
    ];
    for (const level of ['exact', 'functions'] as const) {
      for (const withLow of [true, false]) {
        const recs = stacks.filter((st) => withLow || !st.some((fr) => fr.func.includes('\t')));
        const s = snapshot('debug1', recs.map((fr) => ({ frames: fr, count: 1 })));
        const byKey = new Map<string, { count: number; members: number[] }>();
        s.groups.forEach((g, i) => {
          const key = signature(g, level) || '(no frames)';
          const e = byKey.get(key) ?? { count: 0, members: [] };
          e.count += g.count;
          e.members.push(i);
          byKey.set(key, e);
        });
        const expected = [...byKey].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        const got = analyze(s, { level }).groups;
        expect(got.map((g) => [g.key, g.count, g.members])).toEqual(expected.map(([k, e]) => [k, e.count, e.members]));
      }
    }
  });
});
