/**
 * The fleet summary in the HTML report (issue 14): a table of the processes, then one section per
 * process (its snapshots, goroutines first → last, trend, growth, findings, latest source).
 */
import { describeEntries, fleetHeadline, fleetRows, type FleetSummary } from '../fleet.js';
import { esc, safeId } from './escape.js';

export function renderFleet(f: FleetSummary): string {
  const { head, rows, right } = fleetRows(f);
  const th = head.map((h, i) => `<th${right[i] ? ' class="num"' : ''}>${esc(h)}</th>`).join('');
  const tr = rows
    .map((r, n) => `<tr>${r.map((c, i) => `<td${right[i] ? ' class="num"' : ''}>${i === 0 ? `<a href="#${safeId('process', f.processes[n].name)}">${esc(c)}</a>` : esc(c)}</td>`).join('')}</tr>`)
    .join('\n');
  const entries = f.entries ? `<p>${esc(describeEntries(f.entries))}</p>` : '';
  return `<p><strong>${esc(fleetHeadline(f))}</strong></p>${entries}<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

/** One `<section>` per process. */
export function renderProcesses(f: FleetSummary): string {
  return f.processes
    .map((p) => {
      const facts = [
        ['Snapshots', String(p.snapshots)],
        ['Goroutines', `${p.first} → ${p.last}`],
        ['Trend', `${p.verdict} ${p.sparkline}`.trim()],
        ['Growth', p.perHour === null ? '—' : `${Math.round(p.perHour)}/h`],
        ['Findings', String(p.findings)],
        ['Top finding', p.topFinding ? `${p.topFinding.severity}: ${p.topFinding.title}` : '—'],
        ['Latest snapshot', p.latest],
      ];
      const dl = facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('');
      return `<section class="process" id="${safeId('process', p.name)}"><h3>${esc(p.name)}</h3><dl>${dl}</dl></section>`;
    })
    .join('\n');
}
