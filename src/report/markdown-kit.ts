/**
 * Markdown escaping. Go names carry Markdown syntax (`(*Store).watch` has emphasis stars, generics
 * have brackets) and labels and panic messages can hold anything, so every string from a dump goes
 * through `md` (prose and cells) or `code` (a code span).
 */

/** Text that renders literally in a paragraph or a table cell: no emphasis, links, HTML or pipes. */
export function md(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]{}()#+!|~]/g, (c) => '\\' + c)
    .replace(/^([-=])/, '\\$1')
    .replace(/\r\n|\r|\n/g, '<br>');
}

/**
 * Rule prose (explanations, causes, fixes) may mark code with backticks: those spans stay code spans
 * (via `code`), everything else is escaped like `md`.
 */
export function mdProse(s: string): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(/`([^`\n]+)`/g)) {
    out += md(s.slice(last, m.index!)) + code(m[1]);
    last = m.index! + m[0].length;
  }
  return out + md(s.slice(last));
}

/** A code span that is safe in a table cell: pipes escaped (GFM), no newlines, backticks fenced. */
export function code(s: string): string {
  if (s === '') return '';
  const flat = s.replace(/\r\n|\r|\n/g, ' ').replace(/\|/g, '\\|');
  let fence = '`';
  while (flat.includes(fence)) fence += '`';
  const pad = flat.startsWith('`') || flat.endsWith('`') || fence.length > 1 ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A GFM table. Cells must already be escaped. */
export function mdTable(head: string[], rows: string[][], right: boolean[]): string {
  const sep = head.map((_, i) => (right[i] ? '---:' : '---'));
  return [head, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** A fenced block whose fence is longer than any backtick run in the text. */
export function fenced(text: string): string {
  let fence = '```';
  while (text.includes(fence)) fence += '`';
  return `${fence}text\n${text}\n${fence}`;
}
