/**
 * A progress bar on stderr while a large input is read: shown only once reading has taken more than
 * a second, only when stderr is a terminal, never for JSON output or output piped elsewhere. Fed by
 * `ReadOptions.onProgress` (bytes consumed) against the input's size; `done()` erases it.
 *
 *   reading g250000.debug2.txt  [##########··········]  48%  303/633 MB  0.9 s
 */
import { statSync } from 'node:fs';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(s: string): boolean;
}

export interface ProgressOptions {
  /** Where the bar goes (default process.stderr). */
  stream?: ProgressStream;
  /** Milliseconds of reading before the bar appears (default 1000). */
  delayMs?: number;
  /** Milliseconds between redraws (default 100). */
  intervalMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export interface Progress {
  /** Bytes consumed so far (ReadOptions.onProgress). */
  readonly onProgress: (bytes: number) => void;
  /** Reading is over: erase the bar if it was drawn. */
  done(): void;
}

/** A bar that never draws. */
export const NO_PROGRESS: Progress = { onProgress: () => {}, done: () => {} };

/**
 * Whether a bar may be shown: stderr is a terminal, the output is not JSON, and the report does not
 * go to a pipe (it goes to a file with --output, or to a terminal). `TERM=dumb`, `CI` and
 * `LEAKSCOPE_NO_PROGRESS` turn it off.
 */
export function progressAllowed(o: {
  format?: string;
  output?: string;
  stdout?: { isTTY?: boolean };
  stderr?: { isTTY?: boolean };
  env?: NodeJS.ProcessEnv;
}): boolean {
  const env = o.env ?? process.env;
  const stderr = o.stderr ?? process.stderr;
  const stdout = o.stdout ?? process.stdout;
  if (stderr.isTTY !== true) return false;
  if (o.format === 'json') return false;
  if (o.output === undefined && stdout.isTTY !== true) return false;
  if (env.TERM === 'dumb' || env.CI || env.LEAKSCOPE_NO_PROGRESS) return false;
  return true;
}

/** Size of a file input, undefined for stdin, URLs and unreadable paths. */
export function inputSize(path: string): number | undefined {
  if (path === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return undefined;
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A progress bar for reading `label` of `total` bytes (undefined: unknown, a byte counter is shown).
 * Draws nothing unless the stream is a TTY; call `progressAllowed` for the rest of the policy.
 */
export function progressBar(label: string, total: number | undefined, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stderr;
  if (stream.isTTY !== true) return NO_PROGRESS;
  const now = opts.now ?? Date.now;
  const delay = opts.delayMs ?? 1000;
  const interval = opts.intervalMs ?? 100;
  const start = now();
  let lastDraw = -Infinity;
  let drawn = false;
  let finished = false;
  const draw = (bytes: number): void => {
    const t = now();
    if (finished || t - start < delay || t - lastDraw < interval) return;
    lastDraw = t;
    drawn = true;
    stream.write(`\r${render(label, bytes, total, (t - start) / 1000, stream.columns || 80)}\x1b[K`);
  };
  return {
    onProgress: draw,
    done(): void {
      if (finished) return;
      finished = true;
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}

/** One line of the bar, at most `columns - 1` wide. */
export function render(label: string, bytes: number, total: number | undefined, seconds: number, columns: number): string {
  const mb = (b: number): string => (b / 1e6).toFixed(b < 10e6 ? 1 : 0);
  const time = `${seconds.toFixed(1)} s`;
  let tail: string;
  let bar = '';
  if (total !== undefined && total > 0) {
    const f = Math.min(1, bytes / total);
    tail = `${String(Math.floor(f * 100)).padStart(3)}%  ${mb(bytes)}/${mb(total)} MB  ${time}`;
    const width = 20;
    const full = Math.round(f * width);
    bar = `[${'#'.repeat(full)}${'·'.repeat(width - full)}]  `;
  } else {
    tail = `${mb(bytes)} MB  ${time}`;
  }
  const room = Math.max(10, columns - 1 - 'reading '.length - 2 - bar.length - tail.length);
  const name = label.length > room ? `…${label.slice(label.length - room + 1)}` : label;
  return `reading ${name}  ${bar}${tail}`;
}
