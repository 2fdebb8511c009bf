/**
 * json-text.ts writes what `JSON.stringify(value, null, 2) + '\n'` gives, in pieces: checked here
 * against JSON.stringify itself on values of every kind it may meet, and on the JSON report of real
 * dumps (a sample's, and a dump of many distinct stacks made from one).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, readDump, renderJson, runRules, writeJson } from '../../src/index.js';
import { Memoized, writeJsonText } from '../../src/report/json-text.js';
import { SAMPLES } from '../helpers/paths.js';

function written(value: unknown): { text: string; pieces: string[] } {
  const pieces: string[] = [];
  writeJsonText(value, (t) => pieces.push(t));
  return { text: pieces.join(''), pieces };
}

const expected = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

class Point {
  readonly kind = 'point';
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  get norm(): number {
    return Math.hypot(this.x, this.y);
  }
}

describe('writeJsonText', () => {
  const values: Record<string, unknown> = {
    'empty object': {},
    'empty array': [],
    primitives: { s: 'a', n: 1, f: 0.1, big: 1e21, small: 5e-7, neg: -0, nan: NaN, inf: -Infinity, t: true, f2: false, z: null },
    'undefined, functions and symbols': { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('t'), 2], e: 'kept' },
    'an object whose every field is left out': { a: undefined, b: () => 1 },
    'strings with escapes': { q: '"quoted"\\', nl: 'a\nb\tc\r', ctl: '\u0000\u001f\u007f', uni: 'é漢😀', lone: '\ud800x\udfff', sep: '\u2028\u2029' },
    'keys needing quotes and integer-like keys': { 'b"\n': 1, '10': 2, '2': 3, a: 4, '-1': 5, '01': 6 },
    nesting: { a: [[], [{}], [[1, [2, { b: [] }]]]], c: { d: { e: { f: [null] } } } },
    'holes in arrays': [1, , 3], // eslint-disable-line no-sparse-arrays
    'toJSON giving nothing, and its key': { gone: { toJSON: () => undefined }, list: [{ toJSON: () => undefined }, { toJSON: (k: string) => `at ${k}` }], kept: 1 },
    'toJSON, Map, Set, boxed values and class instances': {
      date: new Date(0),
      custom: { toJSON: (key: string) => ({ key }) },
      map: new Map([[1, 2]]),
      set: new Set([1]),
      boxed: [new String('s'), new Number(3), new Boolean(false)],
      point: new Point(3, 4),
      proto: Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
      nullProto: Object.assign(Object.create(null), { x: 1 }),
    },
    'a deep array of many elements': Array.from({ length: 5000 }, (_, i) => ({ i, s: 'x'.repeat(i % 50), a: [i, [i]] })),
  };
  for (const [name, v] of Object.entries(values)) {
    it(`writes ${name} as JSON.stringify does`, () => expect(written(v).text).toBe(expected(v)));
  }

  it('writes a Memoized array as the array of its elements, each element text made once per depth', () => {
    const frames = [{ f: 'a', line: 1 }, { f: 'b\n', line: 2 }];
    let calls = 0;
    const json = (x: { f: string; line: number }) => {
      calls++;
      return { func: x.f, line: x.line, none: undefined };
    };
    const memo = new Map();
    const lists = Array.from({ length: 100 }, (_, i) => [frames[i % 2], frames[(i + 1) % 2], frames[0]]);
    const doc = { top: new Memoized(frames, json, memo), groups: lists.map((l) => ({ frames: new Memoized(l, json, memo), empty: new Memoized([], json, memo) })) };
    const plain = { top: frames.map(json), groups: lists.map((l) => ({ frames: l.map(json), empty: [] })) };
    calls = 0;
    expect(written(doc).text).toBe(expected(plain));
    // Two elements at two depths: four texts made.
    expect(calls).toBe(4);
  });

  it('hands on its text in pieces of about 64 K characters', () => {
    const v = values['a deep array of many elements'];
    const { pieces, text } = written(v);
    expect(pieces.length).toBeGreaterThan(3);
    for (const p of pieces.slice(0, -1)) expect(p.length).toBeGreaterThanOrEqual(1 << 16);
    for (const p of pieces) expect(p.length).toBeLessThan((1 << 16) + 4096);
    expect(text).toBe(expected(v));
  });
});

/** The soak-leak series: twelve snapshots of one service, text and profile dumps. */
const SERIES = readdirSync(join(SAMPLES, 'soak-leak', 'series')).sort().map((f) => join('soak-leak', 'series', f));

describe('writeJson', () => {
  it('hands on the text renderJson returns, in pieces, for a sample and for a series', async () => {
    for (const files of [['apiproxy-leak/goroutine.debug2.txt'], SERIES]) {
      const dumps = await Promise.all(files.map((f) => readDump(join(SAMPLES, f))));
      const analyses = dumps.flatMap((d) => d.snapshots.map((s) => analyze(s)));
      const input = { command: files.length > 1 ? ('diff' as const) : ('inspect' as const), analyses, findings: analyses.flatMap((a) => runRules(a)) };
      const pieces: string[] = [];
      writeJson(input, {}, (t) => pieces.push(t));
      const text = renderJson(input);
      expect(pieces.join('')).toBe(text);
      if (files.length > 1) expect(pieces.length).toBeGreaterThan(3);
      for (const p of pieces.slice(0, -1)) expect(p.length).toBeGreaterThanOrEqual(1 << 16);
      // The text is JSON.stringify's layout of what it says.
      expect(text).toBe(expected(JSON.parse(text)));
    }
  });
});
