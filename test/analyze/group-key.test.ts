/**
 * An analyzed group's `key` and `id` are made when first read (analyze/group-key.ts). They must be
 * what the eager code made (the signature of the largest member's frames, and its SHA-1), whatever
 * is read first, and the group must look like a plain object holding them (keys, spread, JSON,
 * deep equality, assignment). The same for the id a finding's evidence names a group by.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { signatureOfFrames } from '../../src/analyze/signature.js';
import type { Analysis } from '../../src/analyze/types.js';
import { readDump } from '../../src/read/index.js';
import { runRules } from '../../src/rules/index.js';
import { SAMPLES, sampleCases } from '../helpers/paths.js';

const sha = (key: string) => createHash('sha1').update(key).digest('hex').slice(0, 10);

/** The eager definition: the signature of the largest member's frames, '(no frames)' when empty. */
function eagerKey(a: Analysis, i: number): string {
  const g = a.groups[i];
  let largest = a.snapshot.groups[g.members[0]];
  for (const m of g.members) if (a.snapshot.groups[m].count > largest.count) largest = a.snapshot.groups[m];
  return signatureOfFrames(largest.frames, a.level) || '(no frames)';
}

async function analyses(): Promise<Analysis[]> {
  const out: Analysis[] = [];
  for (const c of sampleCases()) {
    for (const f of ['goroutine.debug1.txt', 'goroutine.debug2.txt']) {
      const dump = await readDump(join(SAMPLES, c, f)).catch(() => undefined);
      for (const s of dump?.snapshots ?? []) {
        out.push(analyze(s), analyze(s, { level: 'functions' }));
      }
    }
  }
  return out;
}

describe('lazy group key and id', () => {
  it('are the signature and its SHA-1, whether the key or the id is read first', async () => {
    const all = await analyses();
    expect(all.length).toBeGreaterThan(20);
    let groups = 0;
    for (const [n, a] of all.entries()) {
      for (let i = 0; i < a.groups.length; i++) {
        const g = a.groups[i];
        const key = eagerKey(a, i);
        // Alternate which one is read first: the id must not depend on a key made before it.
        if ((n + i) % 2 === 0) {
          expect(g.id).toBe(sha(key));
          expect(g.key).toBe(key);
        } else {
          expect(g.key).toBe(key);
          expect(g.id).toBe(sha(key));
        }
        expect(g.key).toBe(key);
        groups++;
      }
    }
    expect(groups).toBeGreaterThan(100);
  });

  it('are own enumerable properties, first and in order, as data properties were', async () => {
    const a = (await analyses())[1];
    const g = a.groups[0];
    expect(Object.keys(g).slice(0, 3)).toEqual(['key', 'id', 'count']);
    expect(Object.getPrototypeOf(g)).toBe(Object.prototype);
    const copy = { ...g };
    expect(copy.key).toBe(g.key);
    expect(copy.id).toBe(g.id);
    expect(Object.getOwnPropertyDescriptor(copy, 'id')?.value).toBe(g.id);
    expect(g).toEqual(copy);
    const json = JSON.parse(JSON.stringify(g));
    expect(Object.keys(json)).toEqual(Object.keys(g));
    expect(json.key).toBe(g.key);
    expect(json.id).toBe(g.id);
    // Every group of an analysis has the same hidden class; none carries more visible fields.
    expect(new Set(a.groups.map((x) => Object.keys(x).slice(0, 2).join()))).toEqual(new Set(['key,id']));
  });

  it('can be assigned, the id staying that of the key the group was made with', async () => {
    const all = await analyses();
    const g = all[3].groups[0] as { key: string; id: string };
    const key = g.key;
    g.key = 'changed';
    expect(g.key).toBe('changed');
    expect(g.id).toBe(sha(key));
    g.id = 'x';
    expect(g.id).toBe('x');
    expect(Object.keys(g).slice(0, 2)).toEqual(['key', 'id']);
    // Assigned before being read: the id is still the original key's.
    const h = all[5].groups[0] as { key: string; id: string };
    const hk = eagerKey(all[5], 0);
    h.key = 'changed';
    expect(h.id).toBe(sha(hk));
  });

  it('names a finding\'s evidence groups by the ids of their groups', async () => {
    let seen = 0;
    for (const a of await analyses()) {
      const byId = new Map(a.groups.map((g) => [g.id, g]));
      for (const f of runRules(a)) {
        for (const e of f.evidence.groups) {
          const g = byId.get(e.id);
          expect(g && [g.count, g.waitKind]).toEqual([e.count, e.waitKind]);
          expect(Object.keys(e)[0]).toBe('id');
          expect(JSON.parse(JSON.stringify(e)).id).toBe(e.id);
          expect({ ...e }.id).toBe(e.id);
          seen++;
        }
      }
    }
    expect(seen).toBeGreaterThan(50);
  });
});
