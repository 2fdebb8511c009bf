/**
 * SignatureTable orders thousands of signatures by their pieces' ranks (and first by the first ranks
 * packed into one number) instead of comparing their texts: the order must be the texts' order, with
 * shared prefixes longer than what a packed number holds, signatures that are prefixes of others,
 * few and many distinct pieces, and pieces that are prefixes of other pieces.
 */
import { describe, expect, it } from 'vitest';
import { SignatureTable } from '../../src/analyze/signature-table.js';
import type { Frame } from '../../src/model/dump.js';

/** A deterministic pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function frame(func: string, line: number): Frame {
  return { func, pkg: func.slice(0, func.lastIndexOf('.')), file: `/src/${func.split('.')[0]}.go`, line, inlined: false } as Frame;
}

function check(pool: Frame[], stacks: number, maxDepth: number, seed: number, prefixShare: number, least = 2000, packed = false): void {
  const rnd = random(seed);
  const table = new SignatureTable('exact');
  const seen: Frame[][] = [];
  for (let i = 0; i < stacks; i++) {
    let fr: Frame[];
    // Some stacks extend or cut another one: signatures that are prefixes of others.
    if (seen.length && rnd() < prefixShare) {
      const base = seen[Math.floor(rnd() * seen.length)];
      fr = rnd() < 0.5 ? base.slice(0, Math.max(1, base.length - 1 - Math.floor(rnd() * 3))) : [...base, pool[Math.floor(rnd() * pool.length)]];
    } else {
      const depth = 1 + Math.floor(rnd() * maxDepth);
      fr = Array.from({ length: depth }, () => pool[Math.floor(rnd() * pool.length)]);
    }
    seen.push(fr);
    table.add(fr);
  }
  expect(table.size).toBeGreaterThanOrEqual(least);
  const sigs = Array.from({ length: table.size }, (_, i) => i);
  const byText = [...sigs].sort((a, b) => (table.key(a) < table.key(b) ? -1 : table.key(a) > table.key(b) ? 1 : 0));
  const cmp = table.comparator();
  const byRank = [...sigs].sort(cmp);
  expect(byRank).toEqual(byText);
  // Antisymmetric, never equal for two signatures.
  for (let i = 0; i + 1 < byRank.length; i++) {
    expect(cmp(byRank[i], byRank[i + 1])).toBeLessThan(0);
    expect(cmp(byRank[i + 1], byRank[i])).toBeGreaterThan(0);
  }
  // `order` (the comparator alone where every count is equal): by count
  // descending, then by text; with equal counts, with a few counts, and with counts far apart.
  const equal = sigs.map(() => 1);
  expect(table.order(equal)).toEqual(byText);
  // The native sort of packed ranks, where they fit in 64 bits (else the comparator sorts).
  const native = table.packedOrder();
  expect(native !== undefined).toBe(packed);
  if (native !== undefined) expect(native).toEqual(byText);
  for (const spread of [3, 100000]) {
    const counts = sigs.map(() => 1 + Math.floor(rnd() * spread));
    const byCount = [...sigs].sort((a, b) => counts[b] - counts[a] || (table.key(a) < table.key(b) ? -1 : 1));
    expect(table.order(counts)).toEqual(byCount);
  }
}

describe('SignatureTable.comparator and order', () => {
  it('orders as the texts with few pieces and deep shared prefixes (every rank packed)', () => {
    const pool = ['m.park', 'm.north', 'm.south', 'm.east', 'm.west', 'm.Walk'].map((f, i) => frame(f, 10 + i));
    check(pool, 4000, 20, 1, 0.2);
  });

  it('orders 20,000 signatures of a few pieces as the texts by one native sort (every rank and the number in 64 bits)', () => {
    const pool = ['m.park', 'm.north', 'm.south', 'm.east', 'm.west', 'm.Walk'].map((f, i) => frame(f, 10 + i));
    check(pool, 20000, 12, 5, 0.2, 14000, true);
  });

  it('packs past a signature\'s end below every rank: a signature sorts before its extension by the lowest piece, though seen after it', () => {
    const pool = ['m.park', 'm.north', 'm.south', 'm.east', 'm.west'].map((f, i) => frame(f, 10 + i));
    // Below '(no frames)' too (a piece every table holds): '#' < '('.
    const lowest = frame('#lowest', 1);
    const rnd = random(6);
    const table = new SignatureTable('exact');
    for (let i = 0; i < 3000; i++) {
      const fr = Array.from({ length: 1 + Math.floor(rnd() * 10) }, () => pool[Math.floor(rnd() * pool.length)]);
      table.add([...fr, lowest, lowest]);
      table.add([...fr, lowest]);
      table.add(fr);
    }
    const sigs = Array.from({ length: table.size }, (_, i) => i);
    const byText = [...sigs].sort((a, b) => (table.key(a) < table.key(b) ? -1 : table.key(a) > table.key(b) ? 1 : 0));
    const native = table.packedOrder();
    expect(native).toBeDefined();
    expect(native).toEqual(byText);
  });

  it('orders as the texts with thousands of pieces (a few ranks packed, the rest compared)', () => {
    const pool = Array.from({ length: 5000 }, (_, i) => frame(`p${i % 7}.F${i}`, i % 13));
    check(pool, 3000, 8, 2, 0.3);
  });

  it('orders a few hundred signatures (compared by text) as the texts', () => {
    const pool = ['m.park', 'm.north', 'm.south', 'm.east'].map((f, i) => frame(f, 10 + i));
    check(pool, 300, 6, 4, 0.2, 100);
  });

  it('orders as the texts where pieces are prefixes of other pieces', () => {
    const pool: Frame[] = [];
    for (const f of ['a.F', 'a.Fo', 'a.Foo', 'a.G', 'a.Go']) for (const line of [1, 10, 100, 2]) pool.push(frame(f, line));
    check(pool, 2500, 12, 3, 0.25);
  });
});
