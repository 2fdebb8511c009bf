/**
 * The table drawer draws the common case itself: it must be byte-identical to cli-table3 (with
 * leakscope's options), and anything it cannot measure must still come out exactly as cli-table3 draws it.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANSI, PLAIN, table, type Align } from '../../src/report/table-kit.js';
import type { Palette } from '../../src/report/types.js';

type TableCtor = new (opts: object) => { push(...rows: string[][]): number; toString(): string };
const Table = createRequire(import.meta.url)('cli-table3') as TableCtor;

function reference(head: string[], rows: string[][], aligns: Align[], p: Palette): string {
  const t = new Table({ head: head.map((h) => p.bold(h)), colAligns: aligns, style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 } });
  if (rows.length) t.push(head.map((_, c) => rows.map((r) => (r[c] ?? '').replace(/\r?\n/g, ' ')).join('\n')));
  return t.toString();
}

const chars = ['a', 'Z', '0', ' ', '.', '/', '(', '*', '▁', '▅', '█', '…', '→', '←', '·', '×', '中', 'é', '\u0301', '😀', '\t', '\u001b', '\u2194'];
const text = fc.array(fc.constantFrom(...chars), { maxLength: 12 }).map((xs) => xs.join(''));
const colored = (p: Palette) =>
  fc.tuple(text, fc.constantFrom<keyof Palette | 'none'>('none', 'error', 'warning', 'info', 'ok', 'bold', 'dim')).map(([s, k]) => (k === 'none' ? s : p[k](s)));

describe('table', () => {
  for (const [name, p] of [['plain', PLAIN], ['ansi', ANSI]] as const) {
    it(`matches cli-table3 byte for byte (${name})`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 5 }).chain((cols) =>
            fc.record({
              head: fc.array(text, { minLength: cols, maxLength: cols }),
              rows: fc.array(fc.array(colored(p), { minLength: cols, maxLength: cols }), { maxLength: 4 }),
              aligns: fc.array(fc.constantFrom<Align>('left', 'right'), { minLength: cols, maxLength: cols }),
            }),
          ),
          ({ head, rows, aligns }) => {
            expect(table(head, rows, aligns, p)).toBe(reference(head, rows, aligns, p));
          },
        ),
        { numRuns: 400 },
      );
    });
  }

  it('matches cli-table3 on a wide sparkline table and on ragged rows', () => {
    const spark = '▁▂▃▄▅▆▇█'.repeat(45);
    const head = ['Verdict', 'First', 'Trend', 'Function'];
    const rows = [
      [ANSI.error('leak'), '25', spark, 'dispatch.(*Pipeline).park'],
      ['stable', '1,000', spark.slice(3), ''],
      ['n/a', '7'],
    ];
    for (const p of [PLAIN, ANSI]) {
      expect(table(head, rows, ['left', 'right', 'left', 'left'], p)).toBe(reference(head, rows, ['left', 'right', 'left', 'left'], p));
      expect(table(head, [], ['left', 'right'], p)).toBe(reference(head, [], ['left', 'right'], p));
    }
  });
});
