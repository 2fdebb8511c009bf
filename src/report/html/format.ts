/** Number and name formatting for the HTML report: locale-free, so the output never depends on the host. */
import type { Frame } from '../../model/dump.js';

/** 1234567 → "1,234,567", whatever the locale of the machine rendering the report. */
export function fmtInt(n: number): string {
  const neg = n < 0;
  const s = String(Math.round(Math.abs(n)));
  const out = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return neg ? '-' + out : out;
}

/** 0.4623 → "46.2%"; shares below 0.1% but above 0 read "<0.1%". */
export function fmtShare(share: number): string {
  if (share > 0 && share < 0.001) return '<0.1%';
  return (share * 100).toFixed(1) + '%';
}

export function plural(n: number, one: string, many = one + 's'): string {
  return `${fmtInt(n)} ${n === 1 ? one : many}`;
}

/** `k8s.io/client-go/tools/cache.(*Reflector).watch.func1` → `cache.(*Reflector).watch.func1`. */
export function shortFunc(func: string): string {
  const bracket = func.indexOf('[');
  const head = bracket === -1 ? func : func.slice(0, bracket);
  return func.slice(head.lastIndexOf('/') + 1);
}

/** The last three path elements: `/go/pkg/mod/x/y/z/proxy_store.go` → `…/y/z/proxy_store.go`. */
export function shortFile(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts.length <= 4 ? file : '…/' + parts.slice(-3).join('/');
}

/** `file:line` as printed, or '' when the dump gave no file. */
export function fileLine(f: Pick<Frame, 'file' | 'line'>): string {
  if (!f.file) return '';
  return f.line > 0 ? `${f.file}:${f.line}` : f.file;
}

/** `min–max min` wait range in minutes, '' when no goroutine printed one. */
export function fmtWait(w: { min: number; max: number } | undefined): string {
  if (!w) return '';
  const unit = w.max === 1 ? 'minute' : 'minutes';
  return w.min === w.max ? `${fmtInt(w.max)} ${unit}` : `${fmtInt(w.min)}–${fmtInt(w.max)} ${unit}`;
}

/** Labels as `k=v, k2=v2`, keys sorted. */
export function fmtLabels(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(', ');
}
