/** Number and name formatting for the HTML report: locale-free, so the output never depends on the host. */
import { fmtInt } from '../text.js';

// The same locale-free number and name formatting as the text renderers; only path shortening and
// wait wording differ, for a page that has room to say more.
export { shortFunc } from '../../model/func-name.js';
export { fileLine, fmtInt, fmtShare, plural } from '../text.js';

/** The last three path elements: `/go/pkg/mod/x/y/z/proxy_store.go` → `…/y/z/proxy_store.go`. */
export function shortFile(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts.length <= 4 ? file : '…/' + parts.slice(-3).join('/');
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
