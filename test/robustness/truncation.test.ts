/**
 * Every sample and corpus file, cut short: at 25/50/75% of its bytes (moved to the middle of the line
 * there) and in the middle of its last goroutine header line. Contract: no exception other than an
 * InputError (and that only when the cut text holds no goroutine); the last snapshot says it was cut
 * (truncated flag, a partial group or a warning naming a line); goroutines read stay within the
 * goroutines the cut text shows by an independent scan: ≤ headers, ≥ headers − 1 (the cut goroutine
 * may be partial, but it is counted or reported, never silently dropped).
 *
 * The scan cannot see two things the readers rightly do: a crash's stack printed again by another
 * thread (counted once) and a crash stack printed without a header. The full file calibrates both.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Dump } from '../../src/model/dump.js';
import { load, plain, readBounded, realFiles, scanGoroutines, type RealFile } from './support.js';

const files = realFiles();

/** Cut points in `b`: 25/50/75% moved to mid-line, and mid-way through the last goroutine header. */
function cutPoints(b: Buffer): { at: number; why: string }[] {
  const out: { at: number; why: string }[] = [];
  const midLine = (p: number): number => {
    let s = b.lastIndexOf(10, p - 1) + 1;
    let e = b.indexOf(10, p);
    if (e < 0) e = b.length;
    while (e - s < 2 && e < b.length) {
      // an empty line: take the next non-empty one
      s = e + 1;
      e = b.indexOf(10, s);
      if (e < 0) e = b.length;
    }
    return Math.min(b.length - 1, s + Math.max(1, Math.floor((e - s) / 2)));
  };
  for (const f of [0.25, 0.5, 0.75]) out.push({ at: midLine(Math.floor(b.length * f)), why: `${f * 100}% (mid-line)` });
  const text = b.toString('latin1');
  const hdr = [...text.matchAll(/goroutine \d+ \\?\[/g)];
  if (hdr.length > 1) {
    const last = hdr[hdr.length - 1].index!;
    out.push({ at: last + 12, why: 'inside the last goroutine header' });
  }
  return out.filter((c) => c.at > 0 && c.at < b.length);
}

function readCount(d: Dump): number {
  return d.snapshots.reduce((a, s) => a + s.total, 0);
}

function saysCut(d: Dump): boolean {
  const last = d.snapshots[d.snapshots.length - 1];
  // Cut after the last snapshot ended (inside text that follows it): said for the input as a whole.
  if (d.warnings.some((w) => w.code === 'input-cut' && w.line !== undefined)) return true;
  if (!last) return d.warnings.some((w) => /truncat|ends|partial/.test(w.code + w.message)) || d.races.length > 0;
  return last.truncated || last.groups.some((g) => g.partial) || last.warnings.some((w) => w.severity === 'warning');
}

describe('every real dump, truncated, is read as truncated with lower-bound counts', () => {
  const textFiles = files.filter((f) => !f.name.endsWith('.pb.gz'));
  const full = new Map<string, { read: number; scan: number; refused?: string }>();

  beforeAll(async () => {
    for (const f of textFiles) {
      const b = load(f);
      const r = await readBounded(f.name, b);
      full.set(f.name, { read: r.dump ? readCount(r.dump) : 0, scan: scanGoroutines(b.toString('utf8')), ...(r.error ? { refused: r.error.code } : {}) });
    }
  });

  it.each(textFiles.map((f) => [f.name, f] as [string, RealFile]))('%s', async (_n, f) => {
    const b = load(f);
    const cal = full.get(f.name)!;
    const dedup = Math.max(0, cal.scan - cal.read);
    const headerless = Math.max(0, cal.read - cal.scan);
    for (const { at, why } of cutPoints(b)) {
      const cut = b.subarray(0, at);
      const where = `${f.name} cut at byte ${at} of ${b.length} (${why})`;
      const scan = scanGoroutines(cut.toString('utf8'));
      const r = await readBounded(where, cut);
      if (r.error && cal.refused) {
        expect(r.error.code, `${where}: refused differently from the whole file`).toBe(cal.refused);
        continue;
      }
      if (r.error) {
        expect(scan, `${where}: refused (${r.error.message}) though it shows ${scan} goroutines`).toBe(0);
        expect(['not-a-dump', 'wrong-profile', 'empty']).toContain(r.error.code);
        continue;
      }
      const d = r.dump;
      const n = readCount(d);
      expect(n, `${where}: read ${n} goroutines, the cut text shows ${scan}`).toBeLessThanOrEqual(scan + headerless);
      expect(n, `${where}: read ${n} goroutines, the cut text shows ${scan}: one vanished silently`).toBeGreaterThanOrEqual(scan - 1 - dedup);
      if (scan > 0 || d.snapshots.length > 0) {
        expect(saysCut(d), `${where}: the last snapshot does not say it was cut: ${JSON.stringify(d.snapshots.at(-1)?.warnings ?? d.warnings)}`).toBe(true);
      }
      // Where it was cut: a truncated snapshot says which line.
      const last = d.snapshots.at(-1);
      if (last?.truncated) {
        const w = last.warnings.find((x) => x.code === 'truncated' || x.code === 'total-mismatch');
        expect(w, `${where}: truncated without a warning saying so: ${JSON.stringify(last.warnings)}`).toBeDefined();
        expect(w!.line, `${where}: the truncation warning names no line: ${w!.message}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('every real pprof profile, truncated, is refused with a clear error or read as truncated', () => {
  const binFiles = files.filter((f) => f.name.endsWith('.pb.gz'));

  it.each(binFiles.map((f) => [f.name, f] as [string, RealFile]))('%s', async (_n, f) => {
    const gz = load(f);
    const raw = plain(gz);
    const full = await readBounded(f.name, raw);
    const total = full.dump!.snapshots[0].total;
    for (const frac of [0.25, 0.5, 0.75, 0.95]) {
      // the gzip stream cut short
      const at = Math.floor(gz.length * frac);
      const where = `${f.name} (gzip) cut at byte ${at} of ${gz.length}`;
      const r = await readBounded(where, gz.subarray(0, at));
      if (r.error) {
        expect(['bad-protobuf', 'bad-gzip', 'not-a-dump', 'empty'], where).toContain(r.error.code);
      } else {
        const s = r.dump.snapshots[0];
        if (s.format === 'pprof') expect(s.truncated, `${where}: read ${s.total} goroutines without saying the gzip ended early`).toBe(true);
        expect(r.dump.snapshots.reduce((a, x) => a + x.total, 0)).toBeLessThanOrEqual(total);
      }
      // the raw protobuf cut short (a gunzipped file copied in part)
      const rat = Math.floor(raw.length * frac);
      const rwhere = `${f.name} (raw protobuf) cut at byte ${rat} of ${raw.length}`;
      const rr = await readBounded(rwhere, raw.subarray(0, rat));
      if (rr.dump) {
        const s = rr.dump.snapshots[0];
        expect(s.total, `${rwhere}: read more than the whole profile`).toBeLessThanOrEqual(total);
        if (s.format === 'pprof' && s.total < total) {
          expect(s.truncated || s.warnings.some((w) => w.severity === 'warning'), `${rwhere}: read ${s.total} of ${total} goroutines and said nothing`).toBe(true);
        }
      }
    }
  });

  it('a gzip cut after the profile is whole is still read', async () => {
    const f = binFiles[0];
    if (!f) return;
    const raw = plain(load(f));
    const gz = gzipSync(raw);
    const r = await readBounded(f.name, gz.subarray(0, gz.length - 4));
    expect(r.dump?.snapshots[0].truncated ?? r.error?.code).toBeTruthy();
    expect(gunzipSync(gz).equals(raw)).toBe(true);
  });
});
