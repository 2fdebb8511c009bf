/**
 * The per-frame caches of grouping find a frame's value by its number in an array (frame-slots.ts):
 * each frame must get back exactly what was set for it, as a Map keyed by the frame does, whether
 * it was numbered by a FrameTable, numbered below the first number seen, or not numbered at all.
 * On every sample and corpus dump, the groups' signatures and site frames made through them must be
 * what the frames themselves say.
 */
import { describe, expect, it } from 'vitest';
import { FrameSlots } from '../../src/analyze/frame-slots.js';
import { analyze, frameOrigin, signatureOfFrames } from '../../src/analyze/index.js';
import { FrameTable, frameNumber } from '../../src/model/builder.js';
import type { Frame } from '../../src/model/dump.js';
import { sampleAndCorpusDumps } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

describe('FrameSlots', () => {
  it('gives back what was set for each frame, as a Map does', () => {
    const early = new FrameTable();
    const below = Array.from({ length: 5 }, (_, i) => early.frame(`a.Early${i}`, 'a', '/a.go', i, false));
    const table = new FrameTable();
    const numbered = Array.from({ length: 300 }, (_, i) => table.frame(`b.F${i % 50}`, 'b', `/b${i % 3}.go`, i, i % 7 === 0));
    const plain: Frame[] = Array.from({ length: 20 }, (_, i) => ({ func: `c.G${i}`, pkg: 'c', file: '/c.go', line: i, inlined: false }));
    expect(below.every((f) => frameNumber(f)! < frameNumber(numbered[0])!)).toBe(true);
    const slots = new FrameSlots<string>();
    const map = new Map<Frame, string>();
    // The first frame set is numbered in the middle: the ones below it and the unnumbered go to the Map.
    const order = [numbered[150], ...numbered.slice(0, 150), ...below, ...plain, ...numbered.slice(151)];
    const all = [...below, ...numbered, ...plain];
    for (let i = 0; i < order.length; i += 2) {
      slots.set(order[i], `v${i}`);
      map.set(order[i], `v${i}`);
    }
    for (const f of all) expect(slots.get(f)).toBe(map.get(f));
    // Set again: replaced.
    for (const f of all) {
      slots.set(f, `w${f.func}${f.line}`);
      map.set(f, `w${f.func}${f.line}`);
    }
    for (const f of all) expect(slots.get(f)).toBe(map.get(f));
  });
});

describe('signatures and site frames made through per-frame slots', () => {
  it('are what each group\'s frames say, on every sample and corpus dump', async () => {
    let groups = 0;
    for await (const { snapshot: s } of snapshotsOf(sampleAndCorpusDumps())) {
      for (const level of ['exact', 'functions'] as const) {
        const a = analyze(s, { level });
        for (const g of a.groups) {
          const largest = g.members.map((m) => s.groups[m]).reduce((x, y) => (y.count > x.count ? y : x));
          expect(g.key).toBe(signatureOfFrames(largest.frames, level) || '(no frames)');
          expect(g.frames.length).toBe(largest.frames.length);
          g.frames.forEach((f, index) => {
            const want = largest.frames[index];
            expect({ ...f }).toEqual({ func: want.func, pkg: want.pkg, file: want.file, line: want.line, inlined: want.inlined, origin: f.origin, index });
            expect(f.origin).toBe(frameOrigin(want, a.programModules?.map((m) => m.module)));
          });
          groups++;
        }
      }
    }
    expect(groups).toBeGreaterThan(1000);
  });
});
