/**
 * SnapshotBuilder groups goroutines exactly by their identity, whatever shortcuts it takes: a plain
 * group's `restKey` made only when a second group of its stack needs it (from the group's own kept
 * fields), the creator of the last new group reused, the first id in an array of one, wait minutes
 * kept without an Infinity start. Records made up here (the builder's own contract, not a dump's
 * text) are grouped by the builder and by a plain reference grouping; both must agree, and a part
 * built on another builder and `absorb`ed must give the same snapshot.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameTable, SnapshotBuilder, frameKeyPart, type GoroutineRecord } from '../../src/model/builder.js';
import type { Frame, Group, Snapshot } from '../../src/model/dump.js';
import { MAX_ID_SAMPLE } from '../../src/model/dump.js';

const table = new FrameTable();
const FRAMES: Frame[] = [
  table.frame('main.a', 'main', '/src/a.go', 10, false),
  table.frame('main.b', 'main', '/src/b.go', 20, false),
  table.frame('main.b', 'main', '/src/b.go', 21, true),
  table.frame('example.com/x.(*T).Run', 'example.com/x', '/x/t.go', 5, false),
];
const CREATORS = [
  { func: 'main.main', pkg: 'main', file: '/src/main.go', line: 7 },
  { func: 'main.main', pkg: 'main', file: '/src/main.go', line: 8 },
  { func: 'main.start', pkg: 'main', file: '/src/main.go', line: 7 },
  { func: 'main.start', pkg: 'main', file: '/src/other.go', line: 7 },
];

interface Spec {
  stack: number[];
  state: number;
  creator: number;
  creatorId: number;
  id: number;
  wait: number;
  leaked: boolean;
  label: number;
  elided: number;
  partial: boolean;
}

const STATES = ['chan receive', 'chan send', 'select'];

/** The record a reader would hand over; strings made fresh (sliced), as readers' are. */
function record(s: Spec): GoroutineRecord {
  const fresh = (x: string): string => ` ${x}`.slice(1);
  const g: GoroutineRecord = { state: fresh(STATES[s.state]), waitKind: s.state === 2 ? 'select' : 'chan-receive', frames: s.stack.map((i) => FRAMES[i]) };
  if (s.id >= 0) g.id = s.id;
  if (s.creator >= 0) {
    const c = CREATORS[s.creator];
    g.creator = { func: fresh(c.func), pkg: fresh(c.pkg), file: fresh(c.file), line: c.line };
    if (s.creatorId >= 0) g.creator.goroutineId = s.creatorId;
  }
  if (s.wait >= 0) g.waitMinutes = s.wait;
  if (s.leaked) g.flags = { leaked: true };
  if (s.label >= 0) g.labels = { job: `j${s.label}` };
  if (s.elided !== 0) g.elidedFrames = s.elided;
  if (s.partial) g.partial = true;
  return g;
}

/** The grouping spelled out: one group per distinct identity, in order of first appearance. */
function reference(specs: Spec[]): Omit<Group, 'frames'>[] {
  const byKey = new Map<string, { g: Group; ids: number[]; cids: number[]; waits: number[] }>();
  for (const s of specs) {
    const c = s.creator >= 0 ? CREATORS[s.creator] : undefined;
    const key = JSON.stringify([s.stack, s.state, c && [c.func, c.file, c.line], s.leaked, s.label, s.elided, s.partial]);
    let e = byKey.get(key);
    if (e === undefined) {
      const g = record(s);
      e = {
        g: {
          count: 0, state: g.state, flags: g.flags ?? {}, waitKind: g.waitKind, frames: g.frames, elidedFrames: g.elidedFrames ?? 0,
          ...(c ? { creator: { ...c, goroutineIds: [] } } : {}), labels: g.labels ?? {}, goroutineIds: [], ancestors: [], partial: s.partial,
        },
        ids: [], cids: [], waits: [],
      };
      byKey.set(key, e);
    }
    (e.g as { count: number }).count++;
    if (s.id >= 0 && e.ids.length < MAX_ID_SAMPLE) e.ids.push(s.id);
    if (c && s.creatorId >= 0 && e.cids.length < MAX_ID_SAMPLE && !e.cids.includes(s.creatorId)) e.cids.push(s.creatorId);
    if (s.wait >= 0) e.waits.push(s.wait);
  }
  return [...byKey.values()].map(({ g, ids, cids, waits }) => {
    const { frames: _, ...rest } = g;
    return {
      ...rest,
      ...(waits.length > 0 ? { wait: { min: Math.min(...waits), max: Math.max(...waits), stamped: waits.length } } : {}),
      ...(rest.creator ? { creator: { ...rest.creator, goroutineIds: cids.sort((a, b) => a - b) } } : {}),
      goroutineIds: ids.sort((a, b) => a - b),
    };
  });
}

function build(specs: Spec[], cut: number): Snapshot {
  const header = { source: 'made-up', index: 0, format: 'debug2' as const, profile: 'goroutine' as const };
  const b = new SnapshotBuilder({ ...header });
  for (const s of specs.slice(0, cut)) b.add(record(s));
  if (cut < specs.length) {
    const later = new SnapshotBuilder({ ...header });
    for (const s of specs.slice(cut)) later.add(record(s));
    b.absorb(structuredClone(later.toPart()), (f) => table.intern(f));
  }
  return b.build();
}

const spec: fc.Arbitrary<Spec> = fc.record({
  stack: fc.array(fc.integer({ min: 0, max: FRAMES.length - 1 }), { minLength: 1, maxLength: 3 }),
  state: fc.integer({ min: 0, max: STATES.length - 1 }),
  creator: fc.integer({ min: -1, max: CREATORS.length - 1 }),
  creatorId: fc.integer({ min: -1, max: 3 }),
  id: fc.integer({ min: -1, max: 200 }),
  wait: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 9 })),
  leaked: fc.boolean(),
  label: fc.integer({ min: -1, max: 1 }),
  elided: fc.integer({ min: -1, max: 1 }),
  partial: fc.boolean(),
});

describe('SnapshotBuilder', () => {
  it('groups exactly by identity, in one builder or in two parts', () => {
    fc.assert(
      fc.property(fc.array(spec, { minLength: 1, maxLength: 40 }), fc.nat(), (specs, at) => {
        const want = reference(specs);
        for (const cut of [specs.length, at % (specs.length + 1)]) {
          const snap = build(specs, cut);
          expect(snap.groups.map(({ frames: _, ...g }) => g)).toEqual(want);
          expect(snap.total).toBe(specs.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('files a stack’s second group apart from its first, plain one (the first group’s key is made late)', () => {
    const s: Spec = { stack: [0, 1], state: 0, creator: 0, creatorId: -1, id: 1, wait: -1, leaked: false, label: -1, elided: 0, partial: false };
    const specs = [s, { ...s, id: 2, creator: 1 }, { ...s, id: 3 }, { ...s, id: 4, state: 1 }, { ...s, id: 5, creator: 1 }, { ...s, id: 6, creator: 2 }];
    const snap = build(specs, specs.length);
    expect(snap.groups.map((g) => [g.state, g.creator?.line, g.creator?.func, g.goroutineIds])).toEqual([
      ['chan receive', 7, 'main.main', [1, 3]],
      ['chan receive', 8, 'main.main', [2, 5]],
      ['chan send', 7, 'main.main', [4]],
      ['chan receive', 7, 'main.start', [6]],
    ]);
  });

  it('keeps no group field shared with the record, and shares the empty ones read-only', () => {
    const s: Spec = { stack: [0], state: 0, creator: -1, creatorId: -1, id: 1, wait: 0, leaked: false, label: -1, elided: 0, partial: false };
    const snap = build([s, { ...s, stack: [1], wait: 3 }, { ...s, stack: [1], wait: 2 }], 3);
    expect(snap.groups.map((g) => g.wait)).toEqual([{ min: 0, max: 0, stamped: 1 }, { min: 2, max: 3, stamped: 2 }]);
    // A part whose goroutines of the group have no wait minutes changes none of the group's.
    const merged = build([{ ...s, wait: 3 }, { ...s, wait: 5 }, { ...s, wait: -1 }, { ...s, wait: 4 }], 2);
    expect(merged.groups[0].wait).toEqual({ min: 3, max: 5, stamped: 3 });
    expect(build([{ ...s, wait: 3 }, { ...s, wait: -1 }], 1).groups[0].wait).toEqual({ min: 3, max: 3, stamped: 1 });
    // Fields in the order JSON prints them, whichever are present.
    const all = build([{ ...s, creator: 0, creatorId: 2 }, { ...s, stack: [2], wait: -1 }], 2).groups;
    expect(Object.keys(all[0])).toEqual(['count', 'state', 'flags', 'waitKind', 'wait', 'frames', 'elidedFrames', 'creator', 'labels', 'goroutineIds', 'ancestors', 'partial']);
    expect(Object.keys(all[1])).toEqual(['count', 'state', 'flags', 'waitKind', 'frames', 'elidedFrames', 'labels', 'goroutineIds', 'ancestors', 'partial']);
    expect(Object.keys(all[0].creator!)).toEqual(['func', 'pkg', 'file', 'line', 'goroutineIds']);
    expect(() => ((snap.groups[0].flags as { leaked?: boolean }).leaked = true)).toThrow();
    expect(snap.groups[1].flags).toEqual({});
  });

  it('hands each group its own id arrays, once: a second build throws', () => {
    const s: Spec = { stack: [0], state: 0, creator: 0, creatorId: -1, id: -1, wait: -1, leaked: false, label: -1, elided: 0, partial: false };
    const b = new SnapshotBuilder({ source: 'made-up', index: 0, format: 'debug2', profile: 'goroutine' });
    for (const x of [s, { ...s, stack: [1] }, { ...s, stack: [2], id: 9 }, { ...s, stack: [2], id: 4, creatorId: 3 }]) b.add(record(x));
    const snap = b.build();
    const arrays = snap.groups.flatMap((g) => [g.goroutineIds, g.creator!.goroutineIds]);
    expect(new Set(arrays).size).toBe(arrays.length);
    expect(snap.groups.map((g) => g.goroutineIds)).toEqual([[], [], [4, 9]]);
    for (const a of arrays) expect(Object.isFrozen(a)).toBe(false);
    expect(() => b.build()).toThrow(/already built/);
  });

  it('puts a wait first stamped after its group was made in its place, read in one builder or in two parts', () => {
    const s: Spec = { stack: [0], state: 0, creator: 0, creatorId: 1, id: 1, wait: -1, leaked: false, label: -1, elided: 0, partial: false };
    const specs = [s, { ...s, id: 2, wait: 4 }, { ...s, id: 3, stack: [1] }, { ...s, id: 4, stack: [1], creator: -1, wait: 2 }, { ...s, id: 5, stack: [1], creator: -1 }];
    const want = reference(specs);
    for (let cut = 0; cut <= specs.length; cut++) {
      const groups = build(specs, cut).groups.map(({ frames: _, ...g }) => g);
      expect(groups).toEqual(want);
      // toEqual ignores the order of keys; JSON does not.
      const order = ['count', 'state', 'flags', 'waitKind', 'wait', 'elidedFrames', 'creator', 'labels', 'goroutineIds', 'ancestors', 'partial'];
      for (const g of groups) expect(Object.keys(g)).toEqual(order.filter((k) => k in g));
    }
  });

  it('keeps every goroutine detail’s arguments as read, past the strings it remembers', () => {
    const b = new SnapshotBuilder({ source: 'made-up', index: 0, format: 'debug2', profile: 'goroutine' });
    const want: string[][] = [];
    for (let id = 1; id <= 2000; id++) {
      // Repeated arguments, and unique ones enough to overflow the remembered strings (4096).
      const args = [`0x0?, 0x0?, 0x${id % 3}?`, ` 0xc000${id.toString(16).padStart(6, '0')}, 0x${id}, 0x1`.slice(1), '', `${id % 7}`, `{0xc0001, 0x${id}}, 0x2`];
      want.push([...args]);
      b.add({ ...record({ stack: [0], state: 0, creator: -1, creatorId: -1, id, wait: -1, leaked: false, label: -1, elided: 0, partial: false }), frames: [...FRAMES, FRAMES[0]], args });
    }
    expect(b.build().goroutines!.map((d) => d.args)).toEqual(want);
  });

  it('gives details, groups, waits and creators the keys and order of the model, as plain data', () => {
    const b = new SnapshotBuilder({ source: 'made-up', index: 0, format: 'debug2', profile: 'goroutine' });
    const base = { stack: [0], state: 0, creator: -1, creatorId: -1, wait: -1, leaked: false, label: -1, elided: 0, partial: false };
    b.add({ ...record({ ...base, id: 1 }), args: [''] });
    b.add({ ...record({ ...base, id: 2, stack: [1], wait: 4 }), args: [''] });
    b.add({ ...record({ ...base, id: 3, stack: [2], creator: 0, creatorId: 1 }), args: [''] });
    b.add({ ...record({ ...base, id: 4, stack: [3], creator: 1, creatorId: 2, wait: 7 }), args: [''] });
    const snap = b.build();
    expect(snap.goroutines!.map((d) => Object.keys(d))).toEqual([
      ['id', 'group', 'args'],
      ['id', 'group', 'args', 'waitMinutes'],
      ['id', 'group', 'args', 'createdBy'],
      ['id', 'group', 'args', 'waitMinutes', 'createdBy'],
    ]);
    expect(Object.keys(snap.groups[3].wait!)).toEqual(['min', 'max', 'stamped']);
    expect(Object.keys(snap.groups[3].creator!)).toEqual(['func', 'pkg', 'file', 'line', 'goroutineIds']);
    // Made with `new` (no allocation site), they read, print and compare as the literals they were.
    const plain = JSON.parse(JSON.stringify(snap)) as Snapshot;
    expect(JSON.stringify(plain)).toBe(JSON.stringify(snap));
    expect(snap).toEqual(plain);
    expect(structuredClone(snap)).toEqual(plain);
  });

  it('keys stacks by frame numbers without two sequences sharing a key (frameKeyPart)', () => {
    const number = fc.oneof(fc.integer({ min: 0, max: 0xd100 }), fc.integer({ min: -70000, max: -1 }), fc.integer({ min: 0, max: 2 ** 40 }));
    const key = (ns: number[]): string => ns.map(frameKeyPart).join('');
    fc.assert(
      fc.property(fc.array(number, { maxLength: 6 }), fc.array(number, { maxLength: 6 }), (a, b) => {
        expect(key(a) === key(b)).toBe(a.length === b.length && a.every((x, i) => x === b[i]));
      }),
      { numRuns: 2000 },
    );
    // Near the edges: one character below 0xD000, none of them a surrogate.
    for (const n of [0, 0xcfff, 0xd000, 0xdfff, 0x7fff, 0x8000, -1, 2 ** 31, 2 ** 40]) {
      expect(/[\ud800-\udfff]/.test(frameKeyPart(n))).toBe(false);
      expect(frameKeyPart(n).length === 1).toBe(n >= 0 && n < 0xd000);
    }
    expect(new Set([0xcfff, 0xd000, 0xd001, 0x10000, -0xd000, 2 ** 40].map((n) => key([n, 5]))).size).toBe(6);
    // A long number's digits are not a shorter number and a frame of its own.
    expect(key([2 ** 30 + 20480 * 2 ** 15 + 7])).not.toBe(key([2 ** 15 + 20480, 7]));
  });
});

