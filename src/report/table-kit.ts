/** cli-table3 with leakscope's look (no row rules, no built-in colors), and the palettes. */
import Table from 'cli-table3';
import type { Palette } from './types.js';

const id = (s: string) => s;

/** The zero palette: no color. */
export const PLAIN: Palette = { error: id, warning: id, info: id, ok: id, bold: id, dim: id };

const sgr = (open: number, close: number) => (s: string) => (s === '' ? s : `\u001b[${open}m${s}\u001b[${close}m`);

/** ANSI colors; the CLI picks it only for a TTY without NO_COLOR. */
export const ANSI: Palette = {
  error: sgr(31, 39),
  warning: sgr(33, 39),
  info: sgr(36, 39),
  ok: sgr(32, 39),
  bold: sgr(1, 22),
  dim: sgr(2, 22),
};

export type Align = 'left' | 'right';

/**
 * A bordered table: a header, a rule, then the rows without rules between them. cli-table3 draws a
 * rule after every row, so single-line rows are stacked into one row of multi-line cells (each line
 * keeps its column's alignment); cells must not hold newlines.
 */
export function table(head: string[], rows: string[][], aligns: Align[], p: Palette): string {
  const t = new Table({
    head: head.map((h) => p.bold(h)),
    colAligns: aligns,
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
  });
  if (rows.length) t.push(head.map((_, c) => rows.map((r) => (r[c] ?? '').replace(/\r?\n/g, ' ')).join('\n')));
  return t.toString();
}

/** Indent every line of a block. */
export function indent(text: string, pad: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? l : pad + l))
    .join('\n');
}

/** Cut a string to `max` characters with an ellipsis. */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max - 1) + '…';
}
