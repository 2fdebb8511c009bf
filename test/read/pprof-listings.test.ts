/**
 * `go tool pprof` text listings (samples/pprof-listings, written by real go tool pprof of Go 1.19,
 * 1.23 and 1.26 from the samples' debug=0 profiles): each format read into the model, by content,
 * compared with the profile it was made from; the hand-edited pastes; and the detection boundary
 * (no goroutine dump is ever read as a listing, no listing as a dump).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { readDump, readDumpFrom } from '../../src/read/index.js';
import { listingLines } from '../../src/read/listing/cells.js';
import { parseListingTime } from '../../src/read/listing/header.js';
import { readListingText, sniffListing } from '../../src/read/listing/index.js';
import type { Snapshot } from '../../src/model/dump.js';
import { CORPUS, SAMPLES, corpusFiles, sampleCases } from '../helpers/paths.js';

const LISTINGS = join(SAMPLES, 'pprof-listings');
const KIND: Record<string, { kind: string; groups: string; lines: boolean }> = {
  top: { kind: 'top', groups: 'inferred', lines: false },
  'top-cum': { kind: 'top', groups: 'inferred', lines: false },
  'top-lines': { kind: 'top', groups: 'inferred', lines: false },
  traces: { kind: 'traces', groups: 'exact', lines: false },
  'traces-lines': { kind: 'traces', groups: 'exact', lines: true },
  raw: { kind: 'raw', groups: 'exact', lines: true },
  tree: { kind: 'tree', groups: 'edges', lines: false },
  peek: { kind: 'tree', groups: 'edges', lines: false },
};

const KIND_FILES = Object.fromEntries(Object.keys(KIND).map((k) => [`${k}.txt`, true]));

/** The profile a case's listings were made from, where it is not the case's goroutine.debug0.pb.gz. */
const PROFILE: Record<string, string> = { 'fetch-fanout': join('leakprofile', 'fetch-fanout', 'goroutineleak.debug0.pb.gz') };

/** Every generated listing: [case, toolchain, format, path]. */
function generated(): [string, string, string, string][] {
  const out: [string, string, string, string][] = [];
  for (const c of readdirSync(LISTINGS).sort()) {
    if (c === 'hand-edited' || !statSync(join(LISTINGS, c)).isDirectory()) continue;
    for (const v of readdirSync(join(LISTINGS, c)).sort()) {
      // (peek-returnErr.txt, a -peek of one function, is tested on its own below.)
      for (const f of readdirSync(join(LISTINGS, c, v)).filter((x) => x.endsWith('.txt') && x in { ...KIND_FILES }).sort()) out.push([c, v, f.replace(/\.txt$/, ''), join(LISTINGS, c, v, f)]);
    }
  }
  return out;
}

async function one(path: string): Promise<Snapshot> {
  const d = await readDump(path);
  expect(d.snapshots).toHaveLength(1);
  return d.snapshots[0];
}

/** Goroutines per wait kind. */
function kinds(s: Snapshot): Record<string, number> {
  return analyze(s).byWaitKind as Record<string, number>;
}

describe('go tool pprof listings made by real toolchains', () => {
  const all = generated();

  it('cover every format with Go 1.19, 1.23 and 1.26, leaking and healthy', () => {
    const formats = new Set(all.map((x) => x[2]));
    expect([...formats].sort()).toEqual(Object.keys(KIND).sort());
    for (const c of ['apiproxy-leak', 'healthy-server']) {
      for (const v of ['go1.19', 'go1.23', 'go1.26']) expect(all.filter((x) => x[0] === c && x[1] === v)).toHaveLength(8);
    }
    // The toolchains print the header's time differently (the point of reading all three).
    const time = (v: string) => readFileSync(join(LISTINGS, 'apiproxy-leak', v, 'top.txt'), 'utf8').split('\n')[2];
    expect(time('go1.19')).toMatch(/^Time: [A-Z][a-z]{2} \d{1,2}, \d{4} at \d+:\d\d[ap]m \(UTC\)$/);
    expect(time('go1.26')).toMatch(/^Time: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  });

  for (const [c, v, f, path] of all) {
    it(`${c}/${v}/${f}: read as ${KIND[f].kind} with the profile's total and waits`, async () => {
      const s = await one(path);
      const profile = await one(join(SAMPLES, PROFILE[c] ?? join(c, 'goroutine.debug0.pb.gz')));
      expect(s.format).toBe('pprof');
      expect(s.profile).toBe(c in PROFILE ? 'goroutineleak' : 'goroutine');
      expect(s.profile).toBe(profile.profile);
      expect(s.listing).toMatchObject({ ...KIND[f], header: true });
      expect(s.capturedAt?.slice(0, 10)).toBe(profile.capturedAt?.slice(0, 10));
      if (f !== 'raw' && f !== 'traces' && f !== 'traces-lines') expect(s.declaredTotal).toBe(profile.total);
      expect(s.truncated).toBe(false);
      expect(s.warnings.filter((w) => w.severity === 'warning')).toEqual([]);
      expect(s.warnings.some((w) => w.code === 'pprof-listing')).toBe(true);
      if (KIND[f].groups === 'exact') {
        // Every sample's stack, as in the profile: same total, same waits, same groups.
        expect(s.total).toBe(profile.total);
        expect(kinds(s)).toEqual(kinds(profile));
        const level = KIND[f].lines ? 'exact' : 'functions';
        const keys = (x: Snapshot) => analyze(x, { level }).groups.map((g) => `${g.count} ${g.key}`).sort();
        expect(keys(s)).toEqual(keys(profile));
      } else if (f === 'tree' || f === 'peek') {
        // The goroutines in the nodes shown; dropped ones are said, not invented.
        const shown = Number(/Showing nodes accounting for (\d+)/.exec(readFileSync(path, 'utf8'))![1]);
        expect(s.total).toBe(shown);
        const k = kinds(s);
        const p = kinds(profile);
        // Parked in gopark through a dropped function: counted as parked, the wait unknown.
        for (const w of Object.keys(k)) if (w !== 'unknown') expect(k[w], w).toBeLessThanOrEqual(p[w] ?? 0);
        if (s.total < profile.total) expect(s.warnings.some((w) => w.code === 'listing-total' || w.code === 'listing-dropped-nodes')).toBe(true);
      } else {
        // -top: gopark's count, and the profiler's own goroutine when shown; the waits inferred.
        expect(s.total).toBeLessThanOrEqual(profile.total);
        expect(s.total).toBeGreaterThanOrEqual(profile.total - 1);
        const k = kinds(s);
        const p = kinds(profile);
        for (const w of ['chan-send', 'waitgroup', 'rwmutex', 'mutex']) expect(k[w] ?? 0, w).toBe(p[w] ?? 0);
      }
    });
  }

  it('a -peek of one function: that function\'s chain, partial, with the total the header states', async () => {
    const s = await one(join(LISTINGS, 'apiproxy-leak', 'go1.19', 'peek-returnErr.txt'));
    expect(s.listing).toMatchObject({ kind: 'tree', groups: 'edges' });
    expect(s.declaredTotal).toBe(1061);
    expect(s.groups.map((g) => [g.count, g.waitKind, g.partial, g.frames.map((f) => f.func.replace(/^.*\//, ''))])).toEqual([
      [300, 'chan-send', true, ['runtime.chansend1', 'proxy.returnErr', 'proxy.(*Store).listAndWatch.func3']],
    ]);
    expect(s.groups[0].frames[1].inlined).toBe(true);
  });

  it('a -top cut to 10 rows shows no blocking call: the parked goroutines stay unknown, and it says how to get them', async () => {
    const s = await one(join(LISTINGS, 'apiproxy-leak', 'go1.26', 'top-nodecount10.txt'));
    expect(s.groups.map((g) => [g.count, g.waitKind])).toEqual([[1060, 'unknown']]);
    expect(s.warnings.find((w) => w.code === 'listing-unplaced')).toMatchObject({ severity: 'warning' });
    expect(s.warnings.find((w) => w.code === 'listing-top-nodes')?.message).toContain('top 10 of 22');
  });

  it('reads Type: goroutineleak as a goroutineleak profile whose groups the GC proved leaked', () => {
    // Hand-edited from apiproxy-leak/go1.26/traces.txt: only the Type line changed (no goroutineleak
    // debug=0 sample exists in this branch; its proof logic is tested in test/cli/leakprofile.test.ts).
    const text = readFileSync(join(LISTINGS, 'apiproxy-leak', 'go1.26', 'traces.txt'), 'utf8').replace('Type: goroutine\n', 'Type: goroutineleak\n');
    const s = readListingText('leak.txt', text);
    expect(s.profile).toBe('goroutineleak');
    expect(s.groups.every((g) => g.flags.leaked)).toBe(true);
  });

  it('refuses a listing of another profile by name', () => {
    // Hand-written: a heap profile's -top header.
    const text = 'File: app\nType: inuse_space\nShowing nodes accounting for 512kB, 100% of 512kB total\n      flat  flat%   sum%        cum   cum%\n     512kB   100%   100%      512kB   100%  main.main\n';
    expect(() => readListingText('heap.txt', text)).toThrow('heap.txt: is a go tool pprof listing of a inuse_space profile (Type: inuse_space), not of a goroutine profile');
  });

  it('reads both header time formats', () => {
    expect(parseListingTime('Nov 30, 2026 at 6:59pm (UTC)')).toBe('2026-11-30T18:59:00.000Z');
    expect(parseListingTime('Dec 1, 2026 at 12:05am (UTC)')).toBe('2026-12-01T00:05:00.000Z');
    expect(parseListingTime('2026-11-30 06:59:21 UTC')).toBe('2026-11-30T06:59:21.000Z');
    expect(parseListingTime('2026-11-30 06:59:13.381774386 +0000 UTC')).toBe('2026-11-30T06:59:13.381Z');
    expect(parseListingTime('Nov 30, 2026 at 6:59am (CET)')).toBeUndefined();
  });
});

describe('hand-edited listings (as pasted)', () => {
  const dir = join(LISTINGS, 'hand-edited');
  const read = (f: string) => one(join(dir, f));

  it('-top re-spaced without header: the same groups as pprof printed them', async () => {
    const s = await read('top-respaced-no-header.txt');
    const orig = await one(join(LISTINGS, 'apiproxy-leak', 'go1.19', 'top.txt'));
    expect(s.listing).toMatchObject({ kind: 'top', header: false });
    expect(s.declaredTotal).toBeUndefined();
    expect(analyze(s).groups.map((g) => `${g.count} ${g.key}`)).toEqual(analyze(orig).groups.map((g) => `${g.count} ${g.key}`));
    expect(s.warnings.some((w) => w.code === 'listing-no-header')).toBe(true);
  });

  it('-top -cum cut mid-row: marked truncated, the cut row said', async () => {
    const s = await read('top-cum-cut.txt');
    expect(s.truncated).toBe(true);
    expect(s.warnings.find((w) => w.code === 'unparsed-line')?.line).toBe(21);
    expect(s.declaredTotal).toBe(1061);
  });

  it('-traces without indentation or header: the exact groups', async () => {
    const s = await read('traces-no-indent-no-header.txt');
    const orig = await one(join(LISTINGS, 'apiproxy-leak', 'go1.23', 'traces.txt'));
    expect(s.listing).toMatchObject({ kind: 'traces', header: false });
    expect(s.groups).toEqual(orig.groups);
    expect(s.groups.some((g) => g.labels.resource === 'configmaps')).toBe(true);
  });

  it('-tree cut and without indentation: truncated, chains cut where the callers were', async () => {
    const s = await read('tree-no-header-cut.txt');
    expect(s.listing).toMatchObject({ kind: 'tree', header: false });
    expect(s.truncated).toBe(true);
  });

  it('-raw cut inside Locations: missing frames said, stacks partial', async () => {
    const s = await read('raw-cut.txt');
    expect(s.truncated).toBe(true);
    expect(s.warnings.some((w) => w.code === 'missing-locations')).toBe(true);
    expect(s.groups.some((g) => g.partial)).toBe(true);
    expect(s.total).toBe(1061);
  });

  it('a markdown list of count-function pairs, and a quoted CRLF email paste', async () => {
    const md = await read('healthy-top-markdown.txt');
    expect(md.listing?.kind).toBe('top');
    expect(md.total).toBe(38);
    expect(md.warnings.find((w) => w.code === 'listing-preamble')?.severity).toBe('info');
    const mail = await read('top-crlf-quoted.txt');
    const orig = await one(join(LISTINGS, 'waitgroup-leak', 'go1.19', 'top.txt'));
    expect(mail.groups).toEqual(orig.groups);
  });
});

describe('detection', () => {
  const head = (p: string) => {
    const b = readFileSync(p);
    const text = (b[0] === 0x1f && b[1] === 0x8b ? '' : b.toString('utf8')).slice(0, 256 * 1024);
    return listingLines(text).join('\n');
  };

  it('never reads a sample dump as a listing', () => {
    const files = sampleCases().flatMap((c) => readdirSync(join(SAMPLES, c)).filter((f) => /\.(txt|jsonl|log)$/.test(f)).map((f) => join(SAMPLES, c, f)));
    expect(files.length).toBeGreaterThan(30);
    for (const f of files) expect(sniffListing(head(f)), f).toBeUndefined();
  });

  it('never reads a corpus dump as a listing', () => {
    const files = corpusFiles().map((f) => join(CORPUS, f)).filter((p) => existsSync(p) && statSync(p).isFile());
    if (corpusFiles().length > 0) expect(files.length).toBeGreaterThan(20);
    for (const f of files) expect(sniffListing(head(f)), f).toBeUndefined();
  });

  it('always reads a listing as one', () => {
    for (const [, , f, p] of generated()) expect(sniffListing(head(p)), p).toBe(KIND[f].kind);
    for (const f of readdirSync(join(LISTINGS, 'hand-edited')).filter((x) => x.endsWith('.txt'))) {
      expect(sniffListing(head(join(LISTINGS, 'hand-edited', f))), f).toBeDefined();
    }
  });

  it('says what a listing with no goroutine in it is', async () => {
    // Hand-written: the -top column titles and nothing under them.
    await expect(readDumpFrom('empty.txt', 'File: x\nType: goroutine\n      flat  flat%   sum%        cum   cum%\n')).rejects.toThrow(
      'empty.txt: looks like a `go tool pprof -top` listing, but no goroutine could be read from it',
    );
  });
});
