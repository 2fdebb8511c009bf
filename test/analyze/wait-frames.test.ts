/**
 * Two shortcuts of the wait-for graph, checked against what they stand for on every debug=2 and
 * crash dump of the samples and the corpus:
 * - `ownerGroups` reads each read-stage group's analyzed group from the signature numbers grouping
 *   kept; it must equal the pass over every group's members (what a copy of the groups gets);
 * - wait frames without pointer words are shared between goroutines (by frame and index); every
 *   waiter's frames must still be its own stack's, with their index, origin and words.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { argWords, isPointerLike } from '../../src/analyze/args.js';
import { ownerGroups, ownerLookup } from '../../src/analyze/group.js';
import { OriginClassifier } from '../../src/analyze/origin.js';
import type { Analysis } from '../../src/analyze/types.js';
import { CORPUS, SAMPLES, corpusAvailable, filesUnder } from '../helpers/paths.js';
import { snapshotsOf } from '../helpers/snapshots.js';

async function detailed(): Promise<Analysis[]> {
  const paths = filesUnder(SAMPLES, /debug2.*\.txt$|crash.*\.txt$/);
  if (corpusAvailable()) paths.push(...filesUnder(join(CORPUS, 'debug2'), /\.txt$/), ...filesUnder(join(CORPUS, 'crash'), /\.txt$/));
  const out: Analysis[] = [];
  for await (const { snapshot: s } of snapshotsOf(paths)) if (s.goroutines?.length) out.push(analyze(s));
  return out;
}

describe('wait-for graph shortcuts', () => {
  it('owner groups from signature numbers equal the pass over members', async () => {
    const all = await detailed();
    expect(all.length).toBeGreaterThan(20);
    for (const a of all) {
      const fast = ownerGroups(a.snapshot, a.groups);
      const slow = ownerGroups(a.snapshot, [...a.groups]);
      expect(fast.length).toBe(a.snapshot.groups.length);
      for (let i = 0; i < fast.length; i++) expect(fast[i]).toBe(slow[i]);
      // The lookup by index answers the same, from the numbers and from the pass alike.
      for (const lookup of [ownerLookup(a.snapshot, a.groups), ownerLookup(a.snapshot, [...a.groups]), ownerLookup({ ...a.snapshot }, a.groups)]) {
        for (let i = -1; i <= fast.length; i++) expect(lookup(i)).toBe(slow[i]);
      }
      // Another snapshot's groups never answer for this one.
      expect(ownerGroups({ ...a.snapshot }, a.groups).every((g, i) => g === slow[i])).toBe(true);
    }
  });

  it('gives every waiter its own stack\'s frames, indexes, origins and pointer words', async () => {
    let waiters = 0;
    let withPointers = 0;
    for (const a of await detailed()) {
      const origins = new OriginClassifier({ userModules: (a.programModules ?? []).map((m) => m.module) });
      for (const w of a.waits?.waiters ?? []) {
        const frames = w.readGroup.frames;
        expect(w.readGroup).toBe(a.snapshot.groups[w.detail.group]);
        expect(w.group.members).toContain(w.detail.group);
        expect(w.frames.length).toBe(frames.length);
        const exact = new Set<number>();
        for (let i = 0; i < frames.length; i++) for (const x of argWords(w.detail.args[i] ?? '')) if (x.exact && isPointerLike(x.value)) exact.add(x.value);
        for (let i = 0; i < frames.length; i++) {
          const f = w.frames[i];
          const words = argWords(w.detail.args[i] ?? '').filter((x) => isPointerLike(x.value));
          expect(f.frame).toBe(frames[i]);
          expect(f.index).toBe(i);
          expect(f.origin).toBe(origins.origin(frames[i]));
          expect(f.pointers).toEqual(words.filter((x) => x.exact).map((x) => x.value));
          expect(f.corroborated).toEqual(words.filter((x) => !x.exact && exact.has(x.value)).map((x) => x.value));
          if (f.pointers.length) withPointers++;
        }
        waiters++;
      }
    }
    expect(waiters).toBeGreaterThan(200);
    expect(withPointers).toBeGreaterThan(50);
  });
});
