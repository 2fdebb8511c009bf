/**
 * The readers on the bundled samples (test/live/live-capture.test.ts checks them on a LIVE capture):
 * every bundled sample, read through `readDump` the way the CLI reads it, against the counts its own Go
 * program knew to be true (samples/<case>/expected.json, see samples/README.md for the schema and the
 * membership rule).
 *
 * - pprof captures (debug=0/1/2): the snapshot total; every expected group's count, with membership
 *   decided over the read MODEL (function + line + file suffix on any frame of `Group.frames`),
 *   independently of analyze; groups disjoint and accounting for every goroutine; wait state (debug=2
 *   only), creator (debug=2 only), runtime-free stack and labels (debug=0/1) where listed.
 * - the same process in debug=0/1/2 gives the same normalized signatures (`AnalyzedGroup.key`) and
 *   counts for the goroutines of every listed group.
 * - other text files (`traces{}`): read without an exception, the headline kind and message, the
 *   goroutines read equal the file's own `goroutine N [` headers, the listed groups; race reports.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import type { Analysis, SimilarityLevel } from '../../src/analyze/types.js';
import type { Dump, Headline, Snapshot } from '../../src/model/dump.js';
import { readDump } from '../../src/read/index.js';
import { SAMPLES, sampleCases } from '../helpers/paths.js';
import {
  PPROF_FILES, countHeaders, fileMatches, groupMismatches, jsonlOutput, loadExpected, membership,
  type ExpectedTrace, type PprofFormat,
} from './expected.js';

const CASES = sampleCases();
const FORMATS = Object.keys(PPROF_FILES) as PprofFormat[];

describe('samples folder', () => {
  it('holds the sample cases the suite requires', () => {
    for (const c of ['apiproxy-leak', 'concurrent-map-crash', 'watch-storm', 'healthy-server']) expect(CASES).toContain(c);
  });
});

describe.each(CASES)('sample %s', (name) => {
  const expected = loadExpected(name);
  const dir = join(SAMPLES, name);
  const formats = FORMATS.filter((f) => expected.files.includes(PPROF_FILES[f]));
  const groups = expected.groups ?? [];

  it('expected.json is well-formed and every listed file exists', () => {
    expect(expected.schema).toBe('leakscope-sample/v1');
    expect(expected.case).toBe(name);
    for (const f of expected.files) expect(existsSync(join(dir, f)), f).toBe(true);
    // Every other file is a pprof capture or a listed trace.
    for (const f of expected.files) expect(f in PPROF_FILES || Object.values(PPROF_FILES).includes(f as never) || f in (expected.traces ?? {}), f).toBe(true);
    if (formats.length) {
      // The groups account for every goroutine (samples/README.md: sum(count) == total).
      expect(groups.reduce((s, g) => s + g.count, 0)).toBe(expected.total);
      const ids = groups.map((g) => g.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  if (!formats.length) return;

  const dumps = {} as Record<PprofFormat, Dump>;
  beforeAll(async () => {
    for (const f of formats) dumps[f] = await readDump(join(dir, PPROF_FILES[f]));
  });
  const snap = (f: PprofFormat): Snapshot => {
    expect(dumps[f].snapshots, `${f}: snapshots`).toHaveLength(1);
    return dumps[f].snapshots[0];
  };

  describe.each(formats)('%s', (fmt) => {
    it('one snapshot of that format, with the exact total', () => {
      const s = snap(fmt);
      expect(s.format).toBe(fmt);
      expect(s.profile).toBe('goroutine');
      expect(s.truncated).toBe(false);
      expect(dumps[fmt].races).toHaveLength(0);
      if (expected.total !== undefined) expect(s.total).toBe(expected.total);
      if (expected.totalAtLeast !== undefined) expect(s.total).toBeGreaterThanOrEqual(expected.totalAtLeast);
      // The total is the sum of the groups read, never a declared number standing in for them.
      expect(s.groups.reduce((n, g) => n + g.count, 0)).toBe(s.total);
      if (fmt === 'debug1') expect(s.declaredTotal).toBe(expected.total);
      // debug=2 dumps carry no headline (they are not crashes).
      if (fmt === 'debug2') expect(s.headline).toBeUndefined();
      // Every goroutine was read: nothing dropped or skipped.
      expect(s.groups.every((g) => !g.partial), 'no partial stacks').toBe(true);
    });

    it('every expected group has its count (model membership: function + line + file on any frame)', () => {
      const s = snap(fmt);
      const m = membership(s, groups);
      expect(m.overlaps, 'expected groups are disjoint').toEqual([]);
      expect(m.counts).toEqual(Object.fromEntries(groups.map((e) => [e.id, e.count])));
      expect(m.unmatched, 'goroutines in no expected group').toBe(s.total - groups.reduce((n, e) => n + e.count, 0));
    });

    it(`group facts: ${fmt === 'debug2' ? 'state, creator, ' : ''}runtime-free stack${fmt === 'debug2' ? '' : ', labels'}`, () => {
      const s = snap(fmt);
      const m = membership(s, groups);
      const problems = groups.flatMap((e) => groupMismatches(s, e, m.members[e.id]));
      expect(problems).toEqual([]);
    });

    if (fmt === 'debug2') {
      it('debug=2 goroutine ids: a sample per group, and as many headers as goroutines read', () => {
        const s = snap(fmt);
        const text = readFileSync(join(dir, PPROF_FILES.debug2), 'utf8');
        expect(s.total).toBe(countHeaders(text));
        for (const g of s.groups) {
          expect(g.goroutineIds.length).toBeGreaterThan(0);
          expect(g.goroutineIds.length).toBeLessThanOrEqual(Math.min(g.count, 32));
        }
      });
    }
  });

  const crossFormat = formats.length === FORMATS.length;
  // The dumping goroutine's stack above writeProfile differs per format by construction (README:
  // writeGoroutineStacks for debug=2, runtime_goroutineProfileWithLabels for debug=1/0).
  const comparable = groups.filter((e) => e.role !== 'dumper' && e.count > 0);
  describe.runIf(crossFormat).each(['exact', 'functions'] as SimilarityLevel[])('analyze level %s: same signatures across debug=0/1/2', (level) => {
    const an = {} as Record<PprofFormat, Analysis>;
    beforeAll(() => {
      for (const f of formats) an[f] = analyze(dumps[f].snapshots[0], { level });
    });

    /** key → goroutines of expected group `id` that analyze put under that key. */
    const keysOf = (f: PprofFormat, id: string): Record<string, number> => {
      const s = dumps[f].snapshots[0];
      const m = membership(s, groups);
      const out: Record<string, number> = {};
      for (const i of m.members[id]) {
        const owners = an[f].groups.filter((g) => g.members.includes(i));
        expect(owners, `${f}: model group ${i} is in exactly one analyzed group`).toHaveLength(1);
        out[owners[0].key] = (out[owners[0].key] ?? 0) + s.groups[i].count;
      }
      return out;
    };

    it.each(comparable.map((e) => [e.id, e] as const))('group %s', (id, e) => {
      const k2 = keysOf('debug2', id);
      expect(Object.values(k2).reduce((a, b) => a + b, 0)).toBe(e.count);
      expect(keysOf('debug1', id), 'debug1 vs debug2').toEqual(k2);
      expect(keysOf('pprof', id), 'debug0 vs debug2').toEqual(k2);
      if (level === 'exact') {
        // A signature holds function + file:line of every frame, so an analyzed group holding this
        // group's frame holds nothing else.
        for (const f of formats) {
          for (const [key, n] of Object.entries(keysOf(f, id))) {
            expect(an[f].groups.find((g) => g.key === key)!.count, `${f}: ${key}`).toBe(n);
          }
        }
      }
    });

    it('the analysis total equals the snapshot total in every format', () => {
      for (const f of formats) {
        expect(an[f].total).toBe(expected.total);
        expect(an[f].groups.reduce((n, g) => n + g.count, 0)).toBe(expected.total);
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Other text files: SIGQUIT dumps, crashes, deadlocks, `go test` timeouts (text and -json), races.

const TRACES = CASES.flatMap((c) => Object.entries(loadExpected(c).traces ?? {}).map(([file, t]) => [c, file, t] as const));

/** The first crash headline line of the (unwrapped) text: what `Headline.message` must say. */
function firstHeadlineLine(text: string): string {
  const line = text.split('\n').find((l) => /^(panic: |fatal error: |SIGQUIT: )/.test(l));
  if (!line) throw new Error('no headline line in trace');
  return line.replace(/\r$/, '');
}

function headlineKind(t: ExpectedTrace, message: string): Headline['kind'] {
  switch (t.kind) {
    case 'sigquit': return 'sigquit';
    case 'go-test-timeout': return 'test-timeout';
    case 'fatal': return message.startsWith('fatal error: all goroutines are asleep') ? 'deadlock' : 'fatal-error';
    default: throw new Error(`no headline for ${t.kind}`);
  }
}

describe('traces (other text files of the samples)', () => {
  it('there are traces of every kind', () => {
    const kinds = new Set(TRACES.map(([, , t]) => t.kind));
    for (const k of ['sigquit', 'fatal', 'go-test-timeout', 'race']) expect(kinds).toContain(k);
  });

  describe.each(TRACES.map(([c, f, t]) => [`${c}/${f}`, c, f, t] as const))('%s', (_label, name, file, t) => {
    const path = join(SAMPLES, name, file);
    const raw = readFileSync(path, 'utf8');
    const text = file.endsWith('.jsonl') ? jsonlOutput(raw) : raw;
    let dump: Dump;
    beforeAll(async () => {
      dump = await readDump(path);
    });

    it('contains what expected.json says (fixture sanity)', () => {
      for (const c of t.contains ?? []) expect(text).toContain(c);
    });

    if (t.kind === 'race') {
      const race = loadExpected(name).race!;
      it('is read as race reports, not as a goroutine dump', () => {
        expect(dump.races).toHaveLength(race.reports);
        expect(countHeaders(text)).toBe(0);
        const goroutines = dump.snapshots.reduce((n, s) => n + s.total, 0);
        expect(goroutines, 'goroutines read from a file with no goroutine headers').toBe(0);
      });
      it.each(race.races.map((r, i) => [i, r] as const))('race %i: both accesses, their ops and stacks', (i, r) => {
        const rep = dump.races[i];
        expect(rep.source).toBe(path);
        const [a, p] = rep.accesses;
        for (const [got, want, previous] of [[a, r.access, false], [p, r.previous, true]] as const) {
          expect(got.previous).toBe(previous);
          expect(got.op).toBe(want.op.toLowerCase());
          expect(got.address).toMatch(/^0x[0-9a-f]+$/);
          if (want.top) expect(got.frames[0]?.func).toBe(want.top);
          expect(got.frames.some((f) => f.func === want.function && f.line === want.line && fileMatches(f.file, want.file)),
            `${want.function} ${want.file}:${want.line} in ${got.frames.map((f) => `${f.func} ${f.file}:${f.line}`).join(' | ')}`).toBe(true);
        }
        // The two goroutines: the reader still running, the writer finished, both created in main.
        const statuses = rep.goroutines.map((g) => g.status).sort();
        expect(statuses).toEqual((race.goroutines ?? []).map((g) => g.state).sort());
        for (const want of race.goroutines ?? []) {
          const g = rep.goroutines.find((x) => x.status === want.state)!;
          expect(g.createdAt[0]).toMatchObject({ func: want.createdAt.function, line: want.createdAt.line });
          expect(fileMatches(g.createdAt[0].file, want.createdAt.file)).toBe(true);
        }
      });
      return;
    }

    it('one snapshot with the headline kind and message', () => {
      expect(dump.snapshots).toHaveLength(1);
      const s = dump.snapshots[0];
      expect(s.format).toBe('debug2');
      const message = firstHeadlineLine(text);
      expect(s.headline?.kind).toBe(headlineKind(t, message));
      expect(s.headline?.message).toBe(message);
    });

    it("goroutines read equal the file's own `goroutine N [` headers", () => {
      const s = dump.snapshots[0];
      const headers = countHeaders(text);
      expect(s.total).toBe(headers);
      if (t.total !== undefined) expect(s.total).toBe(t.total);
      if (t.totalAtLeast !== undefined) expect(s.total).toBeGreaterThanOrEqual(t.totalAtLeast);
      expect(s.groups.reduce((n, g) => n + g.count, 0)).toBe(s.total);
    });

    it('the listed groups: counts, states, creators, runtime-free stacks', () => {
      const s = dump.snapshots[0];
      const gs = t.groups ?? [];
      const m = membership(s, gs);
      expect(m.overlaps).toEqual([]);
      expect(m.counts).toEqual(Object.fromEntries(gs.map((e) => [e.id, e.count])));
      expect(gs.flatMap((e) => groupMismatches(s, e, m.members[e.id]))).toEqual([]);
      // The goroutine that threw is marked.
      for (const e of gs.filter((x) => x.role === 'crashing')) {
        for (const i of m.members[e.id]) expect(s.groups[i].flags.crashed, `${e.id} crashed flag`).toBe(true);
      }
    });
  });
});
