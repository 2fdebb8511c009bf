/**
 * programModules decides main.main's checkout once per frame object (frames are interned: the
 * 220,000 frames of 20,000 distinct stacks are 9 objects). What it finds must be what deciding
 * every frame of every group in turn finds: the checkout of the first frame, in group and frame
 * order, whose checkout holds main's file.
 */
import { describe, expect, it } from 'vitest';
import { programModules } from '../../src/analyze/modules.js';
import type { Snapshot } from '../../src/model/dump.js';
import { sampleAndCorpusDumps } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';
import { snapshot, type Rec } from './fixtures.js';

/** `s` with a fresh object for every frame of every group: no frame is ever seen twice. */
function unshared(s: Snapshot): Snapshot {
  return { ...s, groups: s.groups.map((g) => ({ ...g, frames: g.frames.map((f) => ({ ...f })) })) };
}

describe("programModules: main.main's checkout decided once per frame", () => {
  it('finds the first frame whose checkout holds main, not the first frame seen of a function', () => {
    // Two checkouts of github.com/o/r: one holding main (/w/r), one elsewhere; the one elsewhere
    // is seen first, on the same function, and on the group after it again.
    const recs: Rec[] = [
      { frames: 'github.com/o/r/lib.Do /elsewhere/r/lib/do.go:3\ngithub.com/o/lib.Do /elsewhere/lib/do.go:3', state: 'chan receive', id: 2 },
      { frames: 'github.com/o/r/lib.Do /elsewhere/r/lib/do.go:3\ngithub.com/o/r/lib.Do /w/r/lib/do.go:3', state: 'select', id: 3 },
      { frames: 'main.helper /w/r/cmd/x/help.go:9\nmain.main /w/r/cmd/x/main.go:5', state: 'running', id: 1 },
    ];
    const mods = programModules(snapshot('debug2', recs));
    expect(mods).toEqual([{ module: 'github.com/o/r', why: "main.main's checkout" }]);
    expect(programModules(unshared(snapshot('debug2', recs)))).toEqual(mods);
  });

  it('finds what a decision per frame occurrence finds, on every sample and corpus dump', async () => {
    let mains = 0;
    for await (const { path: p, snapshot: s } of snapshotsOf(sampleAndCorpusDumps())) {
      const mods = programModules(s);
      expect(programModules(unshared(s)), p).toEqual(mods);
      if (mods.some((m) => m.why === "main.main's checkout")) mains++;
    }
    expect(mains).toBeGreaterThan(0);
  });
});
