/** A few numbered source lines around a cause, the cause's line marked with `>`. */

const MAX_ABOVE = 6;

/**
 * Lines `from`..`line`+1 (or `line`-2..`line`+1), at most MAX_ABOVE above the marked line; tabs as
 * four spaces, common indentation removed.
 */
export function excerpt(lines: readonly string[], line: number, from?: number): string {
  const first = Math.max(1, from !== undefined ? Math.max(from, line - MAX_ABOVE) : line - 2);
  const last = Math.min(lines.length, line + 1);
  const rows: { n: number; text: string }[] = [];
  for (let n = first; n <= last; n++) rows.push({ n, text: (lines[n - 1] ?? '').replace(/\t/g, '    ').trimEnd() });
  const indent = Math.min(...rows.filter((r) => r.text.trim() !== '').map((r) => r.text.length - r.text.trimStart().length));
  const width = String(last).length;
  return rows
    .map((r) => `${r.n === line ? '>' : ' '} ${String(r.n).padStart(width)} | ${Number.isFinite(indent) ? r.text.slice(indent) : r.text}`)
    .join('\n');
}
