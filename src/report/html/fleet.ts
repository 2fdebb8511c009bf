/**
 * The fleet in the HTML report: cards (processes, leaking, suspect, goroutines now) in the page's
 * header, one row per process with its chart over time, status and trend state, and a link from each
 * row to its section, which lists the process's findings with links to their cards.
 */
import type { Finding } from '../../rules/types.js';
import { describeEntries, fleetCounts, fleetHeadline, type FleetProcess, type FleetSummary } from '../fleet.js';
import { neededText } from '../trend-words.js';
import { miniChart } from './charts.js';
import { esc, safeId } from './escape.js';
import { fmtInt, plural } from './format.js';
import { stateBadge } from './series.js';

/** Where a process's findings are on the page: the card's anchor and title. */
export type FindingAnchors = ReadonlyMap<string, readonly { readonly id: string; readonly title: string; readonly severity: Finding['severity'] }[]>;

/** The header's cards for a fleet, instead of one snapshot's totals. */
export function renderFleetCards(f: FleetSummary): string {
  const c = fleetCounts(f);
  const now = f.processes.reduce((n, p) => n + p.last, 0);
  const card = (n: string, what: string, cls = '') => `<div class="stat${cls ? ` ${cls}` : ''}"><b>${n}</b><span>${esc(what)}</span></div>`;
  return (
    '<div class="stats fleet-cards">' +
    card(fmtInt(f.processes.length), f.processes.length === 1 ? 'process' : 'processes') +
    card(fmtInt(c.leaking), 'leaking', c.leaking ? 'st-leaking' : '') +
    card(fmtInt(c.suspect), 'suspect', c.suspect ? 'st-suspect' : '') +
    card(fmtInt(c.healthy), 'healthy', 'st-healthy') +
    card(fmtInt(now), 'goroutines now') +
    '</div>'
  );
}

function statusBadge(p: FleetProcess): string {
  return `<span class="state status-${p.status}">${esc(p.status)}</span>`;
}

function growth(p: FleetProcess): string {
  return p.perHour === null ? '—' : `${p.perHour > 0 ? '+' : ''}${fmtInt(p.perHour)}/h`;
}

/** The fleet table: one row per process, its chart over time and its verdict. */
export function renderFleet(f: FleetSummary, anchors: FindingAnchors = new Map()): string {
  const rows = f.processes.map((p) => {
    const id = safeId('process', p.name);
    const own = anchors.get(p.name) ?? [];
    const top = own[0];
    const topCell = top ? `<a href="#${top.id}">${esc(`${top.severity}: ${top.title}`)}</a>` : p.topFinding ? esc(`${p.topFinding.severity}: ${p.topFinding.title}`) : '—';
    return (
      `<tr data-process="${esc(p.name)}" data-status="${p.status}" data-trend="${p.verdict}">` +
      `<td><a href="#${id}">${esc(p.name)}</a></td>` +
      `<td>${statusBadge(p)}</td>` +
      `<td>${stateBadge(p.verdict, p.needed)}</td>` +
      `<td>${miniChart(p.counts, `${p.name}, goroutines per snapshot`, `st-${p.status}`)}</td>` +
      `<td class="num">${fmtInt(p.first)} → ${fmtInt(p.last)}</td>` +
      `<td class="num">${esc(growth(p))}</td>` +
      `<td class="num">${fmtInt(p.snapshots)}</td>` +
      `<td>${topCell}${own.length > 1 ? ` <a class="muted" href="#${id}">(+${fmtInt(own.length - 1)} more)</a>` : ''}</td>` +
      '</tr>'
    );
  });
  const entries = f.entries ? `<p class="muted">${esc(describeEntries(f.entries))}</p>` : '';
  return (
    `<p><strong>${esc(fleetHeadline(f))}</strong></p>${entries}` +
    '<table class="fleet-table"><thead><tr><th>Process</th><th>Status</th><th>Trend</th><th>Goroutines over time</th>' +
    '<th class="num">First → latest</th><th class="num">Growth</th><th class="num">Snapshots</th><th>Top finding</th></tr></thead>' +
    `<tbody>\n${rows.join('\n')}\n</tbody></table>`
  );
}

/** One `<section>` per process: what it is counted as and why, and links to its findings. */
export function renderProcesses(f: FleetSummary, anchors: FindingAnchors = new Map()): string {
  return f.processes
    .map((p) => {
      const own = anchors.get(p.name) ?? [];
      const trend = p.verdict === 'rising-inconclusive' ? ` (${neededText(p.needed)})` : '';
      const facts =
        `<p>${plural(p.snapshots, 'snapshot')}; goroutines ${fmtInt(p.first)} → ${fmtInt(p.last)} (${esc(growth(p))}); ` +
        `trend ${stateBadge(p.verdict, p.needed)}${esc(trend)}. Latest snapshot: <span class="mono">${esc(p.latest)}</span>.</p>`;
      const list = own.length
        ? `<ul class="process-findings">${own.map((x) => `<li><a href="#${x.id}">${esc(`${x.severity}: ${x.title}`)}</a></li>`).join('')}</ul>`
        : '<p class="muted">No findings.</p>';
      return (
        `<section class="process" id="${safeId('process', p.name)}"><h3>${esc(p.name)}${statusBadge(p)}</h3>` +
        miniChart(p.counts, `${p.name}, goroutines per snapshot`, `st-${p.status}`) +
        facts +
        list +
        '</section>'
      );
    })
    .join('\n');
}
