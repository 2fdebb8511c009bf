/**
 * The fleet summary (src/report/fleet.ts) as the terminal table and as Markdown: the headline, how
 * the archives' files were used, and one row per process. Shown before everything else.
 */
import { code, md, mdTable } from './markdown-kit.js';
import { clip, table } from './table-kit.js';
import { describeEntries, fleetHeadline, fleetRows, type FleetSummary } from './fleet.js';
import type { Palette } from './types.js';

export function fleetTableSection(f: FleetSummary, p: Palette): string {
  const { head, rows, right } = fleetRows(f);
  const lines = [p.bold(fleetHeadline(f))];
  if (f.entries) lines.push(p.dim(describeEntries(f.entries)));
  const clipped = rows.map((r) => [clip(r[0], 48), r[1], r[2], r[3], r[4], r[5], clip(r[6], 70)]);
  lines.push(table(head, clipped, right.map((x) => (x ? 'right' : 'left')), p));
  return lines.join('\n');
}

export function fleetMarkdownSection(f: FleetSummary): string {
  const { head, rows, right } = fleetRows(f);
  const out = [`### ${md(fleetHeadline(f))}`];
  if (f.entries) out.push(md(describeEntries(f.entries)));
  out.push(mdTable(head, rows.map((r) => [code(r[0]), r[1], r[2], md(r[3]), md(r[4]), r[5], md(r[6])]), right));
  return out.join('\n\n');
}
