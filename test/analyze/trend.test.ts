/**
 * trend(series): Mann-Kendall (checked against a brute-force permutation test), Sen's slope, Holm,
 * and the verdicts that separate a steady leak from noise and from a bounded pool.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { snapshotsNeeded, sparkline, trend, type TrendSample } from '../../src/analyze/trend.js';
import { holm, mannKendall, minimumP, normalCdf, senSlope } from '../../src/analyze/trend-stats.js';
import { snapshot } from './fixtures.js';

/** All permutations of xs (n ≤ 7). */
function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

function sScore(xs: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) s += Math.sign(xs[j] - xs[i]);
  return s;
}

/** Deterministic noise: a small linear congruential generator. */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe('Mann-Kendall', () => {
  it('gives the exact permutation p-value without ties', () => {
    for (const xs of [[3, 1, 4, 5, 9, 2, 6], [1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1], [2, 7, 1, 8, 3, 6, 4]]) {
      const s = sScore(xs);
      const perms = permutations(xs);
      const upper = perms.filter((p) => sScore(p) >= s).length / perms.length;
      const lower = perms.filter((p) => sScore(p) <= s).length / perms.length;
      const mk = mannKendall(xs);
      expect(mk.exact).toBe(true);
      expect(mk.s).toBe(s);
      expect(mk.pIncreasing).toBeCloseTo(upper, 12);
      expect(mk.pDecreasing).toBeCloseTo(lower, 12);
    }
    expect(mannKendall([1, 2, 3, 4, 5]).pIncreasing).toBeCloseTo(1 / 120, 12);
    expect(minimumP(5)).toBeCloseTo(1 / 120, 12);
  });

  it('approximates with ties close to the permutation test', () => {
    const xs = [1, 2, 2, 3, 5, 4, 4, 6];
    const mk = mannKendall(xs);
    expect(mk.exact).toBe(false);
    const s = sScore(xs);
    const perms = permutations(xs.slice(0, 7)).length; // sanity: enumeration is feasible for 7
    expect(perms).toBe(5040);
    // Permutation test over the 8 values by sampling every arrangement is 40,320: still cheap.
    const all = permutations(xs);
    const upper = all.filter((p) => sScore(p) >= s).length / all.length;
    expect(Math.abs(mk.pIncreasing - upper)).toBeLessThan(0.01);
  });

  it('normal CDF is accurate', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-2.326348)).toBeCloseTo(0.01, 6);
  });
});

describe("Sen's slope and Holm", () => {
  it('is the median pairwise slope, robust to one outlier', () => {
    expect(senSlope([0, 1, 2, 3, 4], [0, 2, 4, 6, 8])).toBe(2);
    expect(senSlope([0, 1, 2, 3, 4], [0, 2, 400, 6, 8])).toBe(2);
    expect(senSlope([5, 5, 5], [1, 2, 3])).toBeNull();
    expect(senSlope([5, 5, 5], [4, 4, 4])).toBeNull();
    expect(senSlope([0, 1, 2], [4, 4, 4])).toBe(0);
  });

  it('equals the median of the sorted pairwise slopes exactly (selection, not sorting)', () => {
    const bySorting = (ts: number[], xs: number[]): number | null => {
      const slopes: number[] = [];
      for (let i = 0; i < xs.length - 1; i++) {
        for (let j = i + 1; j < xs.length; j++) {
          const dt = ts[j] - ts[i];
          if (dt > 0) slopes.push((xs[j] - xs[i]) / dt);
          else if (dt < 0) slopes.push((xs[i] - xs[j]) / -dt);
        }
      }
      if (slopes.length === 0) return null;
      slopes.sort((a, b) => a - b);
      const m = slopes.length >> 1;
      return slopes.length % 2 ? slopes[m] : (slopes[m - 1] + slopes[m]) / 2;
    };
    let seed = 7;
    const rnd = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % k;
    };
    for (let run = 0; run < 300; run++) {
      const n = 1 + rnd(40);
      const ts = Array.from({ length: n }, (_, i) => (rnd(4) === 0 ? i - rnd(3) : i * 10_000 + rnd(5)));
      const xs = Array.from({ length: n }, () => rnd(run % 3 === 0 ? 3 : 500));
      expect(senSlope(ts, xs)).toBe(bySorting(ts, xs));
    }
  });

  it('adjusts p-values step-down', () => {
    expect(holm([0.01, 0.04, 0.03, 0.5])).toEqual([0.04, 0.09, 0.09, 0.5]);
  });
});

const LEAK = 'example.com/apiproxy/pkg/stores/proxy.returnErr /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:50';
const POOL = 'example.com/apiproxy/pkg/stores/proxy.(*Store).WatchNames.func1 /work/main/samples/apiproxy-leak/pkg/stores/proxy/proxy_store.go:137';
const CONN = 'example.com/apiproxy/pkg/server.(*Session).loop /work/main/samples/apiproxy-leak/pkg/server/session.go:57';
const FIXED = 'example.com/apiproxy/pkg/upstream.(*StreamWatcher).receive /work/main/samples/apiproxy-leak/pkg/upstream/client.go:85';

/** A series of analyses with the given counts per group, one minute apart. */
function series(counts: Record<string, number[]>): TrendSample[] {
  const n = Object.values(counts)[0].length;
  return Array.from({ length: n }, (_, i) => ({
    analysis: analyze(snapshot('debug2', Object.entries(counts)
      .filter(([, xs]) => xs[i] > 0)
      .map(([frames, xs]) => ({ frames, state: 'chan receive', count: xs[i] })))),
    time: Date.UTC(2024, 4, 1, 10, i),
  }));
}

const verdictOf = (t: ReturnType<typeof trend>, frames: string) => t.groups.find((g) => g.blockingSite?.file === frames.split(' ')[1].split(':')[0] && g.blockingSite?.line === Number(frames.split(':').pop()))!;

describe('trend verdicts', () => {
  it('flags a steady leak even when every snapshot is small', () => {
    const t = trend(series({ [LEAK]: [1, 2, 3, 4, 5, 6], [FIXED]: [4, 4, 4, 4, 4, 4], [CONN]: [7, 5, 8, 6, 7, 5] }));
    const leak = verdictOf(t, LEAK);
    expect(leak.verdict).toBe('growing');
    expect(leak.perMinute).toBeCloseTo(1);
    expect(leak.sparkline).toBe('▁▂▄▅▇█');
    expect(verdictOf(t, CONN).verdict).toBe('stable');
    expect(verdictOf(t, FIXED).verdict).toBe('stable');
    expect(t.verdict).toBe('growing');
    expect(t.groups[0]).toBe(leak);
    expect(t.durationMs).toBe(5 * 60_000);
  });

  it('calls a pool that filled up and stayed full bounded, not a leak', () => {
    const t = trend(series({ [POOL]: [4, 8, 12, 16, 16, 16, 16, 16, 16, 16], [FIXED]: [2, 2, 2, 2, 2, 2, 2, 2, 2, 2] }));
    expect(verdictOf(t, POOL).verdict).toBe('bounded');
    expect(t.verdict).toBe('stable');
  });

  it('keeps noisy healthy series quiet across many seeds', () => {
    let leaks = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      const noisy = (base: number) => Array.from({ length: 8 }, () => base + Math.floor(r() * 7) - 3);
      const t = trend(series({ [POOL]: noisy(16), [CONN]: noisy(40), [FIXED]: noisy(10), [LEAK]: noisy(5) }));
      if (t.verdict === 'growing') leaks++;
    }
    expect(leaks).toBeLessThanOrEqual(2);
  });

  it('finds a slow noisy leak among noisy groups with enough snapshots', () => {
    const r = rng(7);
    const n = 12;
    const leak = Array.from({ length: n }, (_, i) => 20 + 3 * i + Math.floor(r() * 5) - 2);
    const noise = Array.from({ length: n }, () => 40 + Math.floor(r() * 9) - 4);
    const t = trend(series({ [LEAK]: leak, [CONN]: noise }));
    expect(verdictOf(t, LEAK).verdict).toBe('growing');
    expect(verdictOf(t, CONN).verdict).toBe('stable');
  });

  it('says shrinking and insufficient-data where they apply', () => {
    expect(verdictOf(trend(series({ [CONN]: [9, 8, 7, 6, 5, 4] })), CONN).verdict).toBe('shrinking');
    const short = trend(series({ [LEAK]: [1, 2] }));
    expect(short.verdict).toBe('insufficient-data');
    expect(short.groups[0].verdict).toBe('insufficient-data');
  });

  it('orders the series by time, whatever the input order', () => {
    const s = series({ [LEAK]: [1, 2, 3, 4, 5, 6] });
    const t = trend([...s].reverse());
    expect(t.total.counts).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('draws sparklines between min and max', () => {
    expect(sparkline([0, 7])).toBe('▁█');
    expect(sparkline([3, 3, 3])).toBe('▁▁▁');
    expect(sparkline([])).toBe('');
  });
});

describe('three honest states', () => {
  /** `n` small groups that wobble by ±1 around 3, deterministic. */
  function wobble(n: number, len: number): Record<string, number[]> {
    const r = rng(11);
    return Object.fromEntries(Array.from({ length: n }, (_, k) => [
      `example.com/x.worker${k} /src/x/worker${k}.go:${10 + k}`,
      Array.from({ length: len }, () => 3 + Math.floor(r() * 3) - 1),
    ]));
  }

  it('a ramp among 25 wobbling small groups is growing: they are not in the correction', () => {
    const ramp = [40, 90, 85, 130, 170, 200];
    const t = trend(series({ [LEAK]: ramp, ...wobble(25, 6) }));
    const g = verdictOf(t, LEAK);
    // One inversion: p = 6/720. Multiplied by 26 (every varying series) it would be 0.22: "stable".
    expect(g.mannKendall.pIncreasing).toBeCloseTo(6 / 720, 10);
    expect(t.family).toBe(1);
    expect(g.pAdjusted).toBeCloseTo(6 / 720, 10);
    expect(g.verdict).toBe('growing');
    expect(t.groups.filter((x) => x !== g).every((x) => !x.material && x.verdict === 'stable')).toBe(true);
  });

  it('the total is one test: a perfect rise over 4 snapshots is growing whatever the groups do', () => {
    const t = trend(series({ [LEAK]: [10, 30, 50, 70], [CONN]: [20, 8, 25, 12], [POOL]: [5, 15, 4, 16] }));
    expect(t.total.mannKendall.pIncreasing).toBeCloseTo(1 / 24, 10);
    expect(t.total.pAdjusted).toBe(t.total.mannKendall.pIncreasing);
    expect(t.total.verdict).toBe('growing');
    expect(t.verdict).toBe('growing');
    // The group's own perfect rise is corrected over the 3 groups that moved: 3/24, not confirmed.
    const g = verdictOf(t, LEAK);
    expect(g.pAdjusted).toBeCloseTo(3 / 24, 10);
    expect(g.verdict).toBe('rising-inconclusive');
    expect(g.needed).toBe(5);
  });

  it('a clear rise over 3 snapshots is rising-inconclusive and says how many snapshots would confirm it', () => {
    const t = trend(series({ [LEAK]: [20, 45, 70], [FIXED]: [4, 4, 4] }));
    expect(t.verdict).toBe('rising-inconclusive');
    expect(verdictOf(t, LEAK).verdict).toBe('rising-inconclusive');
    // Total alone: 1/24 < 0.05 at 4 snapshots; the group, corrected over its family of 1, too.
    expect(t.total.needed).toBe(4);
    expect(verdictOf(t, LEAK).needed).toBe(4);
    expect(t.needed).toBe(4);
    // A stricter alpha needs more: 1/120 < 0.01 at 5.
    expect(trend(series({ [LEAK]: [20, 45, 70] }), { alpha: 0.01 }).needed).toBe(5);
  });

  it('stable never labels a clear rise, and a flat or wobbling series is stable', () => {
    for (const xs of [[10, 30, 20, 40], [5, 9, 14, 20, 26], [100, 100, 140, 150]]) {
      const g = verdictOf(trend(series({ [LEAK]: xs, [FIXED]: xs.map(() => 2) })), LEAK);
      expect(['growing', 'rising-inconclusive'], xs.join(',')).toContain(g.verdict);
    }
    for (const xs of [[4, 4, 4, 4], [6, 5, 6, 5, 6], [40, 42, 39, 41, 40, 41]]) {
      expect(verdictOf(trend(series({ [LEAK]: xs })), LEAK).verdict, xs.join(',')).toBe('stable');
    }
  });

  it('snapshotsNeeded: exact for a perfect rise, more for a less consistent one', () => {
    const perfect = mannKendall([1, 2, 3]);
    expect(snapshotsNeeded(perfect, 0.05)).toBe(4);
    expect(snapshotsNeeded(perfect, 0.05 / 4)).toBe(5);
    const loose = mannKendall([1, 3, 2, 4]);
    expect(snapshotsNeeded(loose, 0.05)!).toBeGreaterThan(5);
    expect(snapshotsNeeded(mannKendall([3, 2, 1]), 0.05)).toBeNull();
  });
});

