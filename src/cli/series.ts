/**
 * Snapshots of several inputs → a time-ordered series for `trend` and `check`. Times come from one
 * source for the whole series, the best that every snapshot has: the capture time printed in the
 * dump (a time in an archive entry's name first), else a time in the file name (a date and time, or an
 * offset such as `t+30s` / `-0.9s`), else the file's mtime; `--interval` overrides them all and keeps
 * the input order. Several dumps in one file without capture times are spaced 1 ms apart.
 *
 * Times that are not credible — two inputs within the source's resolution of each other (mtimes of
 * files copied together), or an order that contradicts the capture times some snapshots do print —
 * are not used: the series keeps the order the user gave, says so once, and gives no rate per minute.
 */
import type { TrendSample } from '../analyze/trend.js';
import { timeFromName } from './inputs.js';
import { warn } from './output.js';
import type { LoadedInput } from './types.js';

export type TimeSource = 'capture time' | 'file name' | 'file mtime' | 'interval' | 'input order';

export interface Series {
  readonly samples: TrendSample[];
  readonly timeSource: TimeSource;
  /** Why the times found were not used (the series is in input order); said once on stderr. */
  readonly note?: string;
}

/** Wall-clock sources print whole seconds at best (mtimes of copied files, names without fractions). */
const RESOLUTION_MS = 1000;

/** `…-t+30s`, `…_t+1.5m`, `…-1-0.9s`: an offset from the start of the series, in ms. */
export function offsetFromName(name: string): { ms: number; resolutionMs: number } | undefined {
  const m = /(?:^|[-_.])(?:t\+)?(\d+(?:\.(\d+))?)(ms|s|m|h)(?=\.[A-Za-z]|$)/.exec(name.replace(/\.(txt|pb|gz|pprof|out|log)(\.gz)?$/i, ''));
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[3] as 'ms' | 's' | 'm' | 'h'];
  return { ms: Number(m[1]) * unit, resolutionMs: unit / 10 ** (m[2]?.length ?? 0) };
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

export function buildSeries(loaded: readonly LoadedInput[], intervalMs?: number): Series {
  const flat = loaded.flatMap((l) => l.analyses.map((analysis, i) => ({ l, analysis, i })));
  const inOrder = (note?: string): Series => {
    if (note) warn(note);
    return { timeSource: 'input order', samples: flat.map((x, n) => ({ analysis: x.analysis, time: n * 60_000, untimed: true })), ...(note ? { note } : {}) };
  };
  const withTimes = (source: TimeSource, time: (x: (typeof flat)[number], n: number) => number, resolutionMs = 0): Series => {
    const times = flat.map((x, n) => time(x, n));
    if (resolutionMs > 0 && !credible(times, resolutionMs)) {
      return inOrder(`the ${source}s of the inputs are not credible (two inputs within ${resolutionMs >= 1000 ? `${resolutionMs / 1000} s` : `${resolutionMs} ms`} of each other): kept in the order given, no rate per minute`);
    }
    return {
      timeSource: source,
      samples: flat
        .map((x, n) => ({ analysis: x.analysis, time: times[n], order: n }))
        .sort((a, b) => a.time - b.time || a.order - b.order)
        .map(({ analysis, time }) => ({ analysis, time })),
    };
  };
  if (intervalMs !== undefined) return withTimes('interval', (_, n) => n * intervalMs);
  // Archive entries and folder files named with their time (a support bundle's `<pod>-goroutine-<time>`)
  // are ordered by that name: the collector's clock, the same for every pod.
  const entry = flat.map((x) => x.l.entryTime);
  if (flat.length && entry.every((t) => t !== undefined)) return withTimes('file name', (x, n) => entry[n]! + x.i);
  const captured = flat.map((x) => (x.analysis.snapshot.capturedAt ? Date.parse(x.analysis.snapshot.capturedAt) : NaN));
  if (flat.length && captured.every((t) => Number.isFinite(t))) return withTimes('capture time', (_, n) => captured[n]);
  // Some snapshots print a capture time and others do not: a fallback that orders them otherwise
  // than their own capture times is wrong for some of them, whatever it says about the rest.
  const fallbackAgrees = (times: number[]): boolean => {
    const known = flat.map((_, n) => n).filter((n) => Number.isFinite(captured[n]));
    for (let j = 1; j < known.length; j++) {
      const [p, q] = [known[j - 1], known[j]];
      if (Math.sign(captured[q] - captured[p]) !== Math.sign(times[q] - times[p])) return false;
    }
    return true;
  };
  const named = flat.map((x) => timeFromName(x.l.path));
  if (flat.length && named.every((t) => t !== undefined)) {
    const times = flat.map((x, n) => named[n]! + x.i);
    if (!fallbackAgrees(times)) return inOrder('the times in the file names contradict the capture times some dumps print: kept in the order given, no rate per minute');
    return withTimes('file name', (_, n) => times[n], printedResolution(named as number[]));
  }
  const offsets = flat.map((x) => offsetFromName(baseName(x.l.path)));
  if (flat.length > 1 && offsets.every((o) => o !== undefined)) {
    const res = Math.max(...offsets.map((o) => o!.resolutionMs));
    return withTimes('file name', (x, n) => offsets[n]!.ms + x.i, res);
  }
  // Some inputs carry a time (printed in the dump, or in the name) and others do not: file times are
  // another clock (a copy, a download) and must not be mixed with them.
  const timed = flat.filter((x, n) => Number.isFinite(captured[n]) || named[n] !== undefined || offsets[n] !== undefined || entry[n] !== undefined).length;
  if (timed > 0 && timed < flat.length) {
    return inOrder(`only ${timed} of ${flat.length} snapshots carry a capture time (in the dump or its name): not mixed with file times; kept in the order given, no rate per minute`);
  }
  if (flat.length && flat.every((x) => x.l.mtime !== undefined)) {
    const times = flat.map((x) => x.l.mtime! + x.i);
    if (!fallbackAgrees(times)) return inOrder('the file mtimes contradict the capture times some dumps print: kept in the order given, no rate per minute');
    return withTimes('file mtime', (_, n) => times[n], RESOLUTION_MS);
  }
  return inOrder();
}

/** The finest unit the names print: 1 s for whole seconds, 100 ms, 10 ms or 1 ms for fractions. */
function printedResolution(times: readonly number[]): number {
  for (const unit of [RESOLUTION_MS, 100, 10]) if (times.every((t) => t % unit === 0)) return unit;
  return 1;
}

/** Distinct inputs at least one resolution apart (snapshots of one file are 1 ms apart by construction). */
function credible(times: readonly number[], resolutionMs: number): boolean {
  const sorted = [...times].sort((a, b) => a - b);
  for (let j = 1; j < sorted.length; j++) {
    const gap = sorted[j] - sorted[j - 1];
    if (gap < resolutionMs && gap > 1) return false;
    if (gap === 0) return false;
  }
  return true;
}
