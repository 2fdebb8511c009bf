/**
 * Snapshots of several inputs → a time-ordered series for `trend` and `check`. Times come from one
 * source for the whole series, the best that every snapshot has: the capture time printed in the
 * dump (a time in an archive entry's name first), else a time in the file name, else the file's mtime; `--interval` overrides them all and
 * keeps the input order. Several dumps in one file without capture times are spaced 1 ms apart.
 */
import type { TrendSample } from '../analyze/trend.js';
import { timeFromName } from './inputs.js';
import type { LoadedInput } from './pipeline.js';

export type TimeSource = 'capture time' | 'file name' | 'file mtime' | 'interval' | 'input order';

export interface Series {
  readonly samples: TrendSample[];
  readonly timeSource: TimeSource;
}

export function buildSeries(loaded: readonly LoadedInput[], intervalMs?: number): Series {
  const flat = loaded.flatMap((l) => l.analyses.map((analysis, i) => ({ l, analysis, i })));
  const withTimes = (source: TimeSource, time: (x: (typeof flat)[number], n: number) => number): Series => ({
    timeSource: source,
    samples: flat.map((x, n) => ({ analysis: x.analysis, time: time(x, n), order: n }))
      .sort((a, b) => a.time - b.time || a.order - b.order)
      .map(({ analysis, time }) => ({ analysis, time })),
  });
  if (intervalMs !== undefined) return withTimes('interval', (_, n) => n * intervalMs);
  // Archive entries and folder files named with their time (a support bundle's `<pod>-goroutine-<time>`)
  // are ordered by that name (issue 14): the collector's clock, the same for every pod.
  const entry = flat.map((x) => x.l.entryTime);
  if (flat.length && entry.every((t) => t !== undefined)) return withTimes('file name', (x, n) => entry[n]! + x.i);
  const captured = flat.map((x) => (x.analysis.snapshot.capturedAt ? Date.parse(x.analysis.snapshot.capturedAt) : NaN));
  if (flat.length && captured.every((t) => Number.isFinite(t))) return withTimes('capture time', (_, n) => captured[n]);
  const named = flat.map((x) => timeFromName(x.l.path));
  if (flat.length && named.every((t) => t !== undefined)) return withTimes('file name', (x, n) => named[n]! + x.i);
  if (flat.length && flat.every((x) => x.l.mtime !== undefined)) return withTimes('file mtime', (x) => x.l.mtime! + x.i);
  return withTimes('input order', (_, n) => n * 60_000);
}
