/**
 * Every debug1/, binary/ and leakprofile/ file of ../shared/corpus against what SOURCES.tsv says of it
 * (goroutine_count, labels), and the samples/<case>/ dumps against their expected.json.
 *
 * Text files are checked twice: through Debug1Reader alone (as the dispatcher feeds it), and through
 * readDump (the text dispatcher, src/read/text.ts, in front of it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dump, Snapshot } from '../../src/model/dump.js';
import { parseProfileHeader } from '../../src/read/debug1.js';
import { InputError } from '../../src/read/errors.js';
import { readDump } from '../../src/read/index.js';
import { readDebug1Direct } from '../helpers/debug1-direct.js';
import { CORPUS, SAMPLES, corpusAvailable, corpusFiles, sampleCases } from '../helpers/paths.js';
import { fileMatches } from '../samples/expected.js';

interface SourceRow { file: string; count: string; features: string }

function sources(): Map<string, SourceRow> {
  const rows = new Map<string, SourceRow>();
  if (!corpusAvailable()) return rows;
  const [head, ...lines] = readFileSync(join(CORPUS, 'SOURCES.tsv'), 'utf8').split('\n').filter((l) => l.trim());
  const cols = head.split('\t');
  const at = (name: string): number => cols.indexOf(name);
  for (const l of lines) {
    const f = l.split('\t');
    rows.set(f[at('filename')], { file: f[at('filename')], count: f[at('goroutine_count')], features: f[at('features')] });
  }
  return rows;
}

/**
 * What goroutine_count says, per profile in the file: `declared` is each header's `total N`, `read`
 * the goroutines actually present (fewer only where SOURCES says records were cut out).
 */
function expectedTotals(count: string): { declared: number[]; read: number[] } | 'threads' {
  let m: RegExpExecArray | null;
  if ((m = /^(\d+)$/.exec(count))) return { declared: [+m[1]], read: [+m[1]] };
  if ((m = /^(\d+) per snapshot x (\d+) snapshots$/.exec(count))) {
    const n = Array<number>(+m[2]).fill(+m[1]);
    return { declared: n, read: n };
  }
  if ((m = /^leak total (\d+); goroutine total (\d+)$/.exec(count))) return { declared: [+m[1], +m[2]], read: [+m[1], +m[2]] };
  if ((m = /^(\d+) \(header\); only (\d+) records? shown$/.exec(count))) return { declared: [+m[1]], read: [+m[2]] };
  if (/^\d+ threads/.test(count)) return 'threads';
  throw new Error(`goroutine_count not understood: ${count}`);
}

const sum = (s: Snapshot): number => s.groups.reduce((n, g) => n + g.count, 0);
const hasLabels = (snaps: Snapshot[]): boolean => snaps.some((s) => s.groups.some((g) => Object.keys(g.labels).length > 0));
/** SOURCES names pprof labels in the features column of the files that have them. */
const saysLabels = (row: SourceRow): boolean => /label/i.test(row.features);

const rows = sources();
const files = corpusFiles().filter((f) => /^(debug1|binary|leakprofile)\//.test(f));
const textFiles = files.filter((f) => !f.startsWith('binary/'));
const binaryFiles = files.filter((f) => f.startsWith('binary/'));

function checkText(file: string, snaps: Snapshot[]): void {
  const row = rows.get(file)!;
  const want = expectedTotals(row.count);
  if (want === 'threads') throw new Error('the threadcreate control is not a goroutine profile');
  expect(snaps.map((s) => s.declaredTotal)).toEqual(want.declared);
  expect(snaps.map((s) => s.total)).toEqual(want.read);
  expect(snaps.map(sum)).toEqual(want.read);
  snaps.forEach((s, i) => expect(s.truncated).toBe(want.read[i] < want.declared[i]));
  expect(hasLabels(snaps)).toBe(saysLabels(row));
}

describe.skipIf(!corpusAvailable())('corpus profiles', () => {
  it('SOURCES.tsv describes every debug1/, binary/ and leakprofile/ file', () => {
    expect(files.length).toBeGreaterThanOrEqual(15);
    for (const f of files) expect(rows.has(f), f).toBe(true);
  });

  describe('text profiles through Debug1Reader', () => {
    it.each(textFiles.filter((f) => !f.includes('NEGATIVE')))('%s', (f) => {
      checkText(f, readDebug1Direct(f, readFileSync(join(CORPUS, f), 'utf8')));
    });

    it('NEGATIVE threadcreate control: its header names the threadcreate profile, for the dispatcher to refuse', () => {
      const f = 'debug1/NEGATIVE-threadcreate-profile-legacy-godoc.txt';
      expect(expectedTotals(rows.get(f)!.count)).toBe('threads');
      expect(parseProfileHeader(readFileSync(join(CORPUS, f), 'utf8').split('\n')[0])?.profile).toBe('threadcreate');
    });
  });

  describe('text profiles through readDump', () => {
    it.each(textFiles.filter((f) => !f.includes('NEGATIVE')))('%s', async (f) => {
      const d = await readDump(join(CORPUS, f));
      expect(d.snapshots.every((s) => s.format === 'debug1')).toBe(true);
      checkText(f, d.snapshots);
    });

    it('NEGATIVE threadcreate control is refused as wrong-profile', async () => {
      const e = await readDump(join(CORPUS, 'debug1/NEGATIVE-threadcreate-profile-legacy-godoc.txt')).then(() => undefined, (x: unknown) => x);
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).code).toBe('wrong-profile');
    });

    it('rinha debug=2 text named .pprof is read as text', async () => {
      const d = await readDump(join(CORPUS, 'debug2/rinha-text-dump-named-pprof.txt'));
      expect(d.snapshots[0].format).toBe('debug2');
    });
  });

  describe('protobuf profiles through readDump', () => {
    it.each(binaryFiles)('%s', async (f) => {
      const row = rows.get(f)!;
      const d: Dump = await readDump(join(CORPUS, f));
      expect(d.snapshots).toHaveLength(1);
      const s = d.snapshots[0];
      expect([s.format, s.profile, s.truncated]).toEqual(['pprof', 'goroutine', false]);
      expect(s.total).toBe(Number(row.count));
      expect(sum(s)).toBe(Number(row.count));
      expect(hasLabels(d.snapshots)).toBe(saysLabels(row));
    });
  });
});

/** Goroutines of a snapshot whose stack has the frame (function, file ending, line) of an expected group. */
function countAt(s: Snapshot, g: { function: string; file: string; line: number }): number {
  return s.groups
    .filter((x) => x.frames.some((f) => f.func === g.function && f.line === g.line && fileMatches(f.file, g.file)))
    .reduce((n, x) => n + x.count, 0);
}

interface Expected { total?: number; totalAtLeast?: number; groups?: { id: string; function: string; file: string; line: number; count: number; labels?: Record<string, string> }[] }

describe('samples: debug=0 and debug=1 totals and groups match expected.json', () => {
  const cases = sampleCases().filter((c) => existsSync(join(SAMPLES, c, 'goroutine.debug0.pb.gz')) || existsSync(join(SAMPLES, c, 'goroutine.debug1.txt')));
  const expected = (c: string): Expected => JSON.parse(readFileSync(join(SAMPLES, c, 'expected.json'), 'utf8')) as Expected;

  function checkSample(c: string, s: Snapshot): void {
    const e = expected(c);
    expect(e.total ?? e.totalAtLeast, `${c}: expected.json states no total`).toBeDefined();
    if (e.total !== undefined) expect(s.total).toBe(e.total);
    else expect(s.total).toBeGreaterThanOrEqual(e.totalAtLeast!);
    for (const g of e.groups ?? []) {
      expect(countAt(s, g), `${c} group ${g.id}`).toBe(g.count);
      if (g.labels && g.count > 0) {
        const members = s.groups.filter((x) => x.frames.some((f) => f.func === g.function && f.line === g.line));
        for (const m of members) expect(m.labels, `${c} group ${g.id} labels`).toMatchObject(g.labels);
      }
    }
  }

  it.each(cases.filter((c) => existsSync(join(SAMPLES, c, 'goroutine.debug0.pb.gz'))))('%s debug=0', async (c) => {
    const d = await readDump(join(SAMPLES, c, 'goroutine.debug0.pb.gz'));
    expect(d.snapshots[0].format).toBe('pprof');
    checkSample(c, d.snapshots[0]);
  });

  it.each(cases.filter((c) => existsSync(join(SAMPLES, c, 'goroutine.debug1.txt'))))('%s debug=1 (Debug1Reader)', (c) => {
    const snaps = readDebug1Direct(c, readFileSync(join(SAMPLES, c, 'goroutine.debug1.txt'), 'utf8'));
    expect(snaps).toHaveLength(1);
    expect(snaps[0].declaredTotal).toBe(snaps[0].total);
    checkSample(c, snaps[0]);
  });

  it.each(cases.filter((c) => existsSync(join(SAMPLES, c, 'goroutine.debug1.txt'))))('%s debug=1 (readDump)', async (c) => {
    const d = await readDump(join(SAMPLES, c, 'goroutine.debug1.txt'));
    expect(d.snapshots).toHaveLength(1);
    checkSample(c, d.snapshots[0]);
  });
});
