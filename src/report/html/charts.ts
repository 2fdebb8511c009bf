/**
 * Inline SVG charts built at render time, no chart library. Colours come from CSS classes (`wk-*`,
 * `s0`…`s7`) whose variables change for dark mode and print; coordinates are rounded so the output is
 * byte-identical for the same input.
 */
import { WAIT_KINDS, type WaitKind } from '../../model/dump.js';
import { esc } from './escape.js';
import { fmtInt, fmtShare } from './format.js';
import { WAIT_KIND_INFO, waitLabel } from './waitkinds.js';

const r = (n: number): string => String(Math.round(n * 10) / 10);

/** Horizontal bars: goroutines per wait kind, largest first (ties in WAIT_KINDS order). */
export function waitKindChart(byWaitKind: Readonly<Partial<Record<WaitKind, number>>>, total: number): string {
  const rows = WAIT_KINDS.map((k, order) => ({ k, n: byWaitKind[k] ?? 0, order }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n || a.order - b.order);
  if (rows.length === 0) return '<p class="muted">No goroutines.</p>';
  const W = 640, rowH = 26, labelW = 130, valueW = 130, top = 6;
  const barMax = W - labelW - valueW;
  const max = rows[0]!.n;
  const H = top * 2 + rows.length * rowH;
  const parts = rows.map((x, i) => {
    const y = top + i * rowH;
    const w = Math.max(1, (x.n / max) * barMax);
    const share = total > 0 ? x.n / total : 0;
    const label = waitLabel(x.k);
    return (
      `<g class="bar wk-${x.k}"><title>${esc(`${label}: ${fmtInt(x.n)} goroutines (${fmtShare(share)}). ${WAIT_KIND_INFO[x.k].meaning}`)}</title>` +
      `<text class="lbl" x="${labelW - 8}" y="${r(y + rowH / 2 + 4.5)}" text-anchor="end">${esc(label)}</text>` +
      `<rect x="${labelW}" y="${r(y + 4)}" width="${r(w)}" height="${rowH - 8}" rx="3"/>` +
      `<text class="val" x="${r(labelW + w + 6)}" y="${r(y + rowH / 2 + 4.5)}">${esc(`${fmtInt(x.n)} · ${fmtShare(share)}`)}</text></g>`
    );
  });
  return (
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Goroutines per wait kind">` +
    parts.join('') +
    '</svg>'
  );
}

export interface Series {
  readonly name: string;
  readonly values: readonly number[];
}

/** A step for axis ticks: 1, 2 or 5 times a power of ten, giving about `ticks` intervals up to max. */
function niceStep(max: number, ticks: number): number {
  if (max <= 0) return 1;
  const raw = max / ticks;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const m = raw / pow;
  const step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * pow;
  return Math.max(1, step);
}

/** Lines of goroutine counts over snapshots, one per series (at most 8 colours `s0`…`s7`). */
export function lineChart(series: readonly Series[], xLabels: readonly string[], aria: string, xs?: readonly number[]): string {
  const W = 1000, H = 300, left = 60, right = 20, top = 12, bottom = 40;
  const n = xLabels.length;
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const step = niceStep(max, 4);
  const yMax = Math.ceil(max / step) * step;
  // x by time when times are given (and differ), else evenly spaced.
  const t0 = xs?.[0] ?? 0;
  const span = xs && xs.length === n ? (xs[n - 1] ?? 0) - t0 : 0;
  const px = (i: number): number =>
    n <= 1 ? left + (W - left - right) / 2
      : span > 0 ? left + (((xs![i] ?? t0) - t0) * (W - left - right)) / span
        : left + (i * (W - left - right)) / (n - 1);
  const py = (v: number): number => top + (H - top - bottom) * (1 - v / yMax);
  const out: string[] = [];
  for (let v = 0; v <= yMax; v += step) {
    out.push(`<line class="grid" x1="${left}" x2="${W - right}" y1="${r(py(v))}" y2="${r(py(v))}"/>`);
    out.push(`<text class="tick" x="${left - 6}" y="${r(py(v) + 4)}" text-anchor="end">${fmtInt(v)}</text>`);
  }
  // Label at most ~8 x positions so they never overlap.
  const every = Math.max(1, Math.ceil(n / 12));
  xLabels.forEach((label, i) => {
    if (i % every !== 0 && i !== n - 1) return;
    out.push(`<text class="tick" x="${r(px(i))}" y="${H - bottom + 18}" text-anchor="middle">${esc(label)}</text>`);
  });
  out.push(`<line class="axis" x1="${left}" x2="${W - right}" y1="${r(py(0))}" y2="${r(py(0))}"/>`);
  series.forEach((s, si) => {
    const pts = s.values.map((v, i) => `${r(px(i))},${r(py(v))}`).join(' ');
    out.push(`<g class="series s${si % 8}"><title>${esc(s.name)}</title>`);
    if (n > 1) out.push(`<polyline points="${pts}"/>`);
    s.values.forEach((v, i) => {
      out.push(`<circle cx="${r(px(i))}" cy="${r(py(v))}" r="3.5"><title>${esc(`${s.name}: ${fmtInt(v)} at ${xLabels[i] ?? ''}`)}</title></circle>`);
    });
    out.push('</g>');
  });
  return `<svg class="chart wide" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(aria)}">${out.join('')}</svg>`;
}

/**
 * A small chart of one series for a table row: its line over the snapshots, the latest point marked,
 * the values in the title (the row's chart over time).
 */
export function miniChart(values: readonly number[], aria: string, cls = ''): string {
  const W = 160, H = 36, pad = 4;
  const n = values.length;
  if (n === 0) return '';
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const px = (i: number) => (n <= 1 ? W / 2 : pad + (i * (W - 2 * pad)) / (n - 1));
  const py = (v: number) => (hi === lo ? H / 2 : H - pad - ((v - lo) * (H - 2 * pad)) / (hi - lo));
  const pts = values.map((v, i) => `${r(px(i))},${r(py(v))}`).join(' ');
  const title = `${aria}: ${values.map(fmtInt).join(' → ')}`;
  return (
    `<svg class="mini${cls ? ` ${cls}` : ''}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title>` +
    (n > 1 ? `<polyline points="${pts}"/>` : '') +
    `<circle cx="${r(px(n - 1))}" cy="${r(py(values[n - 1]!))}" r="3"/></svg>`
  );
}

/** A small coloured square for legends, matching series `i` of a line chart. */
export function swatch(i: number): string {
  return `<svg class="swatch s${i % 8}" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true"><rect width="10" height="10" rx="2"/></svg>`;
}

/** A share bar for table cells (0..1), as SVG so no inline style is needed under the CSP. */
export function shareBar(share: number): string {
  const w = Math.max(0, Math.min(1, share)) * 60;
  return `<svg class="sharebar" viewBox="0 0 60 8" aria-hidden="true"><rect class="track" width="60"/><rect width="${r(w)}"/></svg>`;
}
