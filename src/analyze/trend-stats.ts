/**
 * The statistics behind `trend`: the Mann-Kendall test of monotonic trend (exact distribution when
 * there are no ties, the tie-corrected normal approximation otherwise), Sen's slope, and Holm's
 * step-down correction for testing many groups at once. Plain functions on number arrays.
 */

export interface MannKendall {
  readonly n: number;
  /** Σ sign(x_j − x_i) over i < j: positive when later values tend to be larger. */
  readonly s: number;
  /** Kendall's tau-a: s / (n(n−1)/2), in −1..1. */
  readonly tau: number;
  /** One-sided p-value of an increasing trend: P(S ≥ s) under "no trend". */
  readonly pIncreasing: number;
  /** One-sided p-value of a decreasing trend: P(S ≤ s). */
  readonly pDecreasing: number;
  /** The p-values come from the exact null distribution (no ties, n ≤ 60), not the normal approximation. */
  readonly exact: boolean;
}

export function mannKendall(xs: readonly number[]): MannKendall {
  const n = xs.length;
  const pairs = (n * (n - 1)) / 2;
  if (n < 2) return { n, s: 0, tau: 0, pIncreasing: 1, pDecreasing: 1, exact: true };
  let s = 0;
  for (let i = 0; i < n - 1; i++) {
    for (let j = i + 1; j < n; j++) s += Math.sign(xs[j] - xs[i]);
  }
  const tau = s / pairs;
  const ties = tieSizes(xs);
  if (ties.length === 0 && n <= 60) {
    // S = pairs − 2·inversions; inversions of a random permutation follow the Mahonian distribution.
    const cdf = inversionCdf(n);
    const invAtMost = (k: number) => (k < 0 ? 0 : k >= cdf.length ? 1 : cdf[k]);
    const inv = (pairs - s) / 2;
    return { n, s, tau, pIncreasing: clamp01(invAtMost(inv)), pDecreasing: clamp01(1 - invAtMost(inv - 1)), exact: true };
  }
  let variance = n * (n - 1) * (2 * n + 5);
  for (const t of ties) variance -= t * (t - 1) * (2 * t + 5);
  variance /= 18;
  if (variance <= 0) return { n, s, tau, pIncreasing: 1, pDecreasing: 1, exact: false };
  const sd = Math.sqrt(variance);
  return {
    n,
    s,
    tau,
    pIncreasing: clamp01(1 - normalCdf((s - 1) / sd)),
    pDecreasing: clamp01(normalCdf((s + 1) / sd)),
    exact: false,
  };
}

/** Sizes (> 1) of the groups of equal values. */
function tieSizes(xs: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts.values()].filter((c) => c > 1);
}

const cdfCache = new Map<number, number[]>();

/** P(inversions ≤ k) for a uniformly random permutation of n items, k = 0..n(n−1)/2. */
function inversionCdf(n: number): number[] {
  const cached = cdfCache.get(n);
  if (cached) return cached;
  let p = [1];
  for (let i = 2; i <= n; i++) {
    // Inserting the i-th item adds 0..i−1 inversions, uniformly.
    const next = new Array<number>(p.length + i - 1).fill(0);
    let window = 0;
    for (let k = 0; k < next.length; k++) {
      if (k < p.length) window += p[k];
      if (k - i >= 0 && k - i < p.length) window -= p[k - i];
      next[k] = window / i;
    }
    p = next;
  }
  const cdf = new Array<number>(p.length);
  let acc = 0;
  for (let k = 0; k < p.length; k++) {
    acc += p[k];
    cdf[k] = acc;
  }
  cdfCache.set(n, cdf);
  return cdf;
}

/** The smallest one-sided p-value Mann-Kendall can give for n untied values: 1/n!. */
export function minimumP(n: number): number {
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  return 1 / f;
}

/** Standard normal CDF (Abramowitz & Stegun 26.2.17, |error| < 7.5e-8). */
export function normalCdf(z: number): number {
  if (!Number.isFinite(z)) return z > 0 ? 1 : 0;
  const t = 1 / (1 + 0.2316419 * Math.abs(z));
  const d = 0.3989422804014327 * Math.exp((-z * z) / 2);
  const tail = d * t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return z >= 0 ? 1 - tail : tail;
}

/**
 * Sen's slope: the median of (x_j − x_i) / (t_j − t_i) over all pairs with t_j > t_i. Robust to
 * outliers; null when no two points differ in time. The median is found by selection (O(pairs)), not
 * by sorting; a constant series has slope 0 without looking at the pairs.
 */
export function senSlope(ts: readonly number[], xs: readonly number[]): number | null {
  const n = xs.length;
  let constant = true;
  for (let i = 1; i < n && constant; i++) constant = xs[i] === xs[0];
  if (constant) {
    for (let i = 1; i < n; i++) if (ts[i] !== ts[0]) return 0;
    return null;
  }
  const slopes = new Float64Array((n * (n - 1)) / 2);
  let m = 0;
  for (let i = 0; i < n - 1; i++) {
    const ti = ts[i];
    const xi = xs[i];
    for (let j = i + 1; j < n; j++) {
      const dt = ts[j] - ti;
      if (dt > 0) slopes[m++] = (xs[j] - xi) / dt;
      else if (dt < 0) slopes[m++] = (xi - xs[j]) / -dt;
    }
  }
  if (m === 0) return null;
  const a = slopes.subarray(0, m);
  const mid = m >> 1;
  const hi = select(a, mid);
  if (m % 2) return hi;
  // Everything left of `mid` is ≤ a[mid] after the selection: the lower middle is their maximum.
  let lo = a[0];
  for (let i = 1; i < mid; i++) if (a[i] > lo) lo = a[i];
  return (lo + hi) / 2;
}

/** The k-th smallest value of `a` (Hoare's quickselect, median-of-three); partially reorders `a`. */
function select(a: Float64Array, k: number): number {
  let left = 0;
  let right = a.length - 1;
  while (right > left) {
    const mid = (left + right) >> 1;
    // Median of three as the pivot.
    let x = a[left];
    let y = a[mid];
    let z = a[right];
    if (x > y) [x, y] = [y, x];
    if (y > z) y = z;
    const pivot = x > y ? x : y;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return a[k];
  }
  return a[k];
}

/** Holm's step-down adjusted p-values (family-wise error control), in input order. */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
