/** cli-table3 with leakscope's look (no row rules, no built-in colors), and the palettes. */
import { createRequire } from 'node:module';
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
 *
 * The common case (printable ASCII, the sparkline blocks and a few symbols, colors only from the
 * palettes above) is drawn here, byte for byte as cli-table3 draws it, without string-width: a trend
 * table's sparkline cells are hundreds of characters wide and cli-table3 measures every line of a
 * cell many times over. Anything else (wide or combining characters, foreign escape codes) is drawn by
 * cli-table3 itself, which is loaded only then.
 */
export function table(head: string[], rows: string[][], aligns: Align[], p: Palette): string {
  const h = head.map((x) => p.bold(x));
  const cells = rows.length ? head.map((_, c) => rows.map((r) => (r[c] ?? '').replace(/\r?\n/g, ' ')).join('\n')) : undefined;
  return drawSimple(h, cells, aligns) ?? drawCliTable3(h, cells, aligns);
}

type TableCtor = new (opts: object) => { push(...rows: string[][]): number; toString(): string };
let cliTable3: TableCtor | undefined;

function drawCliTable3(head: string[], cells: string[] | undefined, aligns: Align[]): string {
  cliTable3 ??= createRequire(import.meta.url)('cli-table3') as TableCtor;
  const t = new cliTable3({ head, colAligns: aligns, style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 } });
  if (cells) t.push(cells);
  return t.toString();
}

const SGR = /\u001b\[((?:\d*;){0,5}\d*)m/g;
/** Characters string-width (cli-table3's measure) counts as one column; the rest go to cli-table3. */
const NARROW = /^[\x20-\x7e\u2581-\u2588\u2026\u2190\u2192\u00b7\u00d7]*$/;

/**
 * A line's width when it is simple: narrow characters only, and escape codes only the palettes'
 * (bold, dim, red, green, yellow, cyan) with every color and bold closed by the end of the line, so
 * cli-table3 would neither re-open nor close anything across lines. Else undefined.
 */
function simpleWidth(line: string): number | undefined {
  if (!line.includes('\u001b')) return NARROW.test(line) ? line.length : undefined;
  let fg = 39;
  let bold = 22;
  for (const m of line.matchAll(SGR)) {
    const code = m[1];
    if (code === '31' || code === '32' || code === '33' || code === '36' || code === '39') fg = Number(code);
    else if (code === '1' || code === '22') bold = Number(code);
    else if (code !== '2') return undefined;
  }
  if (fg !== 39 || bold !== 22) return undefined;
  const text = line.replace(SGR, '');
  return NARROW.test(text) ? text.length : undefined;
}

function drawSimple(head: string[], cells: string[] | undefined, aligns: Align[]): string | undefined {
  const cols = head.length;
  const body = cells?.map((c) => c.split('\n'));
  const widths: number[] = [];
  const headWidths: number[] = [];
  const bodyWidths: number[][] = [];
  for (let c = 0; c < cols; c++) {
    if (head[c].includes('\n')) return undefined;
    const hw = simpleWidth(head[c]);
    if (hw === undefined) return undefined;
    headWidths.push(hw);
    let w = hw;
    if (body) {
      const ws: number[] = [];
      for (const line of body[c]) {
        const lw = simpleWidth(line);
        if (lw === undefined) return undefined;
        ws.push(lw);
        if (lw > w) w = lw;
      }
      bodyWidths.push(ws);
    }
    widths.push(w + 2);
  }
  const rule = (l: string, m: string, r: string) => l + widths.map((w) => '─'.repeat(w)).join(m) + r;
  const line = (texts: string[], lens: number[]) => {
    let s = '│';
    for (let c = 0; c < cols; c++) {
      const gap = ' '.repeat(widths[c] - 2 - lens[c]);
      s += ' ' + (aligns[c] === 'right' ? gap + texts[c] : texts[c] + gap) + ' │';
    }
    return s;
  };
  const out = [rule('┌', '┬', '┐'), line(head, headWidths)];
  if (body) {
    out.push(rule('├', '┼', '┤'));
    const height = Math.max(...body.map((b) => b.length));
    for (let i = 0; i < height; i++) {
      out.push(line(body.map((b) => b[i] ?? ''), bodyWidths.map((ws) => ws[i] ?? 0)));
    }
  }
  out.push(rule('└', '┴', '┘'));
  return out.join('\n');
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
