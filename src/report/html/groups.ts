/**
 * The group table (sortable and filterable by the client script) and the expandable stacks. The page
 * renders groups, never goroutines, and caps both lists so a dump of any size gives a page of bounded size.
 */
import type { Analysis, AnalyzedGroup } from '../../analyze/types.js';
import { shareBar } from './charts.js';
import { esc, safeId } from './escape.js';
import { fileLine, fmtInt, fmtLabels, fmtShare, fmtWait, plural, shortFunc } from './format.js';
import { groupName, locHtml, renderFrames, stackAnchor } from './frames.js';
import { waitLabel } from './waitkinds.js';
import { waitWithState } from './findings.js';

/** One table row's sort keys and search text, embedded as JSON for the client script. */
export interface RowData {
  /** count */ readonly c: number;
  /** wait kind label */ readonly k: string;
  /** blocking site (short function) */ readonly f: string;
  /** longest wait in minutes, -1 when none printed */ readonly w: number;
  /** labels */ readonly l: string;
  /** lower-case search text: functions, files, state, labels, creator */ readonly t: string;
}

const MAX_SEARCH_CHARS = 2000;

/**
 * What the filter box searches, kept compact (it is embedded for up to 2,000 rows): the blocking site
 * in full, then each frame as short function and `file.go:line`, the packages, creator, labels and state.
 */
function searchText(g: AnalyzedGroup): string {
  const parts = new Set<string>();
  parts.add(waitLabel(g.waitKind));
  for (const s of g.states) parts.add(s);
  for (const [k, v] of Object.entries(g.labels)) parts.add(`${k}=${v}`);
  const site = g.blockingSite ?? g.frames[0];
  if (site) {
    parts.add(site.func);
    if (site.file) parts.add(fileLine(site));
  }
  if (g.creator) parts.add(g.creator.func);
  for (const f of g.frames) {
    parts.add(shortFunc(f.func));
    if (f.file) parts.add(`${f.file.slice(Math.max(f.file.lastIndexOf('/'), f.file.lastIndexOf('\\')) + 1)}:${f.line}`);
  }
  for (const f of g.frames) if (f.pkg) parts.add(f.pkg);
  parts.add(g.id);
  return [...parts].join(' ').toLowerCase().slice(0, MAX_SEARCH_CHARS);
}

export function rowData(g: AnalyzedGroup): RowData {
  return { c: g.count, k: waitLabel(g.waitKind), f: groupName(g), w: g.wait ? g.wait.max : -1, l: fmtLabels(g.labels), t: searchText(g) };
}

function row(g: AnalyzedGroup, i: number, hasStack: boolean): string {
  const site = g.blockingSite ?? g.frames[0];
  const name = groupName(g);
  const nameHtml = hasStack ? `<a href="#${stackAnchor(g.id)}">${esc(name)}</a>` : esc(name);
  return (
    `<tr id="${safeId('g-', g.id)}" data-i="${i}">` +
    `<td class="num">${fmtInt(g.count)}</td>` +
    `<td class="num">${fmtShare(g.share)}${shareBar(g.share)}</td>` +
    `<td><span class="wk wk-${g.waitKind}">${esc(waitWithState(g.waitKind, g.states.find((s) => s !== '')))}</span></td>` +
    `<td><span class="site mono">${nameHtml}</span>${site ? locHtml(site) : ''}</td>` +
    `<td class="num">${esc(fmtWait(g.wait))}</td>` +
    `<td class="labels">${esc(fmtLabels(g.labels))}</td></tr>`
  );
}

const COLUMNS: ReadonlyArray<[key: string, title: string, num: boolean]> = [
  ['c', 'Goroutines', true],
  ['s', 'Share', true],
  ['k', 'Waiting on', false],
  ['f', 'Stuck at', false],
  ['w', 'Waiting for', true],
  ['l', 'Labels', false],
];

export interface TableResult {
  readonly html: string;
  readonly rows: RowData[];
}

/** The first `maxRows` groups as a table; the rest summarized in one line. */
export function renderGroupTable(a: Analysis, maxRows: number, stacks: ReadonlySet<string>): TableResult {
  const shown = a.groups.slice(0, maxRows);
  const rest = a.groups.slice(maxRows);
  const kinds = [...new Set(shown.map((g) => waitLabel(g.waitKind)))].sort();
  const head = COLUMNS.map(
    ([key, title, num]) =>
      `<th class="${num ? 'num' : ''}"${key === 'c' ? ' aria-sort="descending"' : ''}><button type="button" data-sort="${key}">${title}</button></th>`,
  ).join('');
  const controls =
    '<div class="controls">' +
    '<input id="filter" type="search" placeholder="Filter groups: function, file, label, state…" aria-label="Filter groups">' +
    '<select id="filter-kind" aria-label="Wait kind"><option value="">All wait kinds</option>' +
    kinds.map((k) => `<option value="${esc(k)}">${esc(k)}</option>`).join('') +
    '</select>' +
    `<span id="shown" class="muted" aria-live="polite">${plural(shown.length, 'group')}</span></div>`;
  const more = rest.length
    ? `<p class="muted">${plural(rest.length, 'smaller group')} with ${plural(rest.reduce((n, g) => n + g.count, 0), 'goroutine')} not listed.</p>`
    : '';
  const html =
    controls +
    `<table class="groups" id="groups"><thead><tr>${head}</tr></thead><tbody id="groups-body">` +
    shown.map((g, i) => row(g, i, stacks.has(g.id))).join('') +
    `</tbody></table>${more}`;
  return { html, rows: shown.map(rowData) };
}

function stackMeta(g: AnalyzedGroup): string {
  const out: string[] = [];
  if (g.states.length && g.states[0]) out.push(`<div>State: ${esc(g.states.join(', '))}</div>`);
  const w = fmtWait(g.wait);
  if (w && g.wait) out.push(`<div>Waiting for ${esc(w)} (${fmtInt(g.wait.stamped)} of ${fmtInt(g.count)} goroutines printed a wait time)</div>`);
  if (g.creator) {
    const loc = fileLine(g.creator);
    out.push(`<div>Started by <span class="mono">${esc(g.creator.func)}</span>${loc ? ` at <span class="mono">${esc(loc)}</span>` : ''}</div>`);
  }
  const labels = fmtLabels(g.labels);
  if (labels) out.push(`<div>Labels: <span class="mono">${esc(labels)}</span>${g.labelSets > 1 ? ` (${fmtInt(g.labelSets)} label sets; shared ones shown)` : ''}</div>`);
  const flags = Object.entries(g.flags).filter(([, v]) => v !== undefined && v !== false).map(([k, v]) => (v === true ? k : `${k} ${v}`));
  if (flags.length) out.push(`<div>Flags: ${esc(flags.join(', '))}</div>`);
  if (g.partial) out.push('<div>The stack was cut short in the dump.</div>');
  if (g.goroutineIds.length) out.push(`<div class="muted">Goroutine ids: ${esc(g.goroutineIds.join(', '))}${g.goroutineIds.length < g.count ? ', …' : ''}</div>`);
  return `<div class="meta">${out.join('')}</div>`;
}

function stackDetails(g: AnalyzedGroup): string {
  const site = g.blockingSite ?? g.frames[0];
  const wait = fmtWait(g.wait);
  return (
    `<details class="stack" id="${stackAnchor(g.id)}"><summary><span class="cnt">${fmtInt(g.count)}</span> ` +
    `<span class="wk wk-${g.waitKind}">${esc(waitLabel(g.waitKind))}</span> · <span class="site mono">${esc(groupName(g))}</span>` +
    (site ? ' ' + locHtml(site, 'span') : '') +
    (wait ? ` <span class="muted">· ${esc(wait)}</span>` : '') +
    '</summary>' +
    stackMeta(g) +
    renderFrames(g.frames, g.blockingSite?.index, g.elidedFrames) +
    '</details>'
  );
}

/** The groups whose stacks the page shows: the `max` largest. */
export function stackedGroups(a: Analysis, max: number): AnalyzedGroup[] {
  return a.groups.slice(0, max);
}

export function renderStacks(a: Analysis, max: number): string {
  const shown = stackedGroups(a, max);
  const rest = a.groups.length - shown.length;
  const restCount = a.groups.slice(max).reduce((n, g) => n + g.count, 0);
  const tools =
    '<div class="controls no-print"><button type="button" id="expand-all">Expand all</button><button type="button" id="collapse-all">Collapse all</button></div>';
  return (
    tools +
    shown.map(stackDetails).join('') +
    (rest > 0 ? `<p class="muted">Stacks of ${plural(rest, 'smaller group')} (${plural(restCount, 'goroutine')}) are not shown; the JSON report has them all.</p>` : '')
  );
}

