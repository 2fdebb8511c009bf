/**
 * The HTML report: one self-contained page for support engineers. It works offline and loads nothing:
 * a Content-Security-Policy allows only its own inline style and script, by hash. Every dump string is
 * escaped; the client script's data is a JSON block that cannot close its <script>. No clock and no host
 * facts: the same input gives byte-identical HTML.
 */
import { aggregateSentence } from './aggregates.js';
import { createHash } from 'node:crypto';
import { diff as diffAnalyses } from '../analyze/compare.js';
import type { Analysis } from '../analyze/types.js';
import { waitKindChart } from './html/charts.js';
import { CLIENT_JS } from './html/client.js';
import { esc, jsonForScript } from './html/escape.js';
import { renderFindings, sortFindings, findingKind } from './html/findings.js';
import { fmtInt, plural } from './html/format.js';
import { stackAnchor } from './html/frames.js';
import { renderGroupTable, renderStacks, stackedGroups } from './html/groups.js';
import { renderGate, renderNotes, renderRaces, renderSnapshots, renderVerdict, verdict } from './html/sections.js';
import { renderDiff, renderTrend } from './html/series.js';
import { renderFleet, renderFleetCards, renderProcesses, type FindingAnchors } from './html/fleet.js';
import { CSS } from './html/style.js';
import { renderTree } from './html/tree.js';
import { WAIT_KIND_INFO } from './html/waitkinds.js';
import { programNote } from './text.js';
import type { Finding, FleetSummary, RenderOptions, ReportInput } from './types.js';

export interface HtmlOptions extends RenderOptions {
  /** Page title; default `leakscope: <verdict>`. */
  readonly title?: string;
  /** Groups whose stacks are rendered (largest first); default 500. */
  readonly maxStacks?: number;
  /** Groups listed in the table (largest first); default 2,000. */
  readonly maxRows?: number;
}

export const HTML_DEFAULTS = { maxStacks: 500, maxRows: 2000 } as const;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The Content-Security-Policy of the page: nothing remote, only our own inline style and script. */
export function contentSecurityPolicy(css: string = CSS, js: string = CLIENT_JS): string {
  return [
    "default-src 'none'", `style-src ${sha256(css)}`, `script-src ${sha256(js)}`, 'img-src data:', "base-uri 'none'", "form-action 'none'",
  ].join('; ');
}

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${esc(title)}</h2>${body}</section>`;
}

/** `opts.match`: keep only groups with a frame whose function or file matches. */
function matching(a: Analysis, re: RegExp | undefined): Analysis {
  if (!re) return a;
  const test = (s: string): boolean => {
    re.lastIndex = 0;
    return re.test(s);
  };
  return { ...a, groups: a.groups.filter((g) => g.frames.some((f) => test(f.func) || test(f.file))) };
}

function waitKindLegend(a: Analysis): string {
  const kinds = Object.keys(a.byWaitKind).filter((k) => (a.byWaitKind[k as keyof typeof a.byWaitKind] ?? 0) > 0) as Array<keyof typeof WAIT_KIND_INFO>;
  kinds.sort((x, y) => (a.byWaitKind[y] ?? 0) - (a.byWaitKind[x] ?? 0) || (x < y ? -1 : 1));
  return `<dl class="meanings">${kinds.map((k) => `<dt><span class="wk wk-${k}">${esc(WAIT_KIND_INFO[k].label)}</span></dt><dd>${esc(WAIT_KIND_INFO[k].meaning)}</dd>`).join('')}</dl>`;
}

/** Each process's findings as the cards' anchors (`f-N`, numbered like renderFindings numbers them). */
function findingAnchors(findings: readonly Finding[], fleet: FleetSummary): FindingAnchors {
  const sorted = sortFindings(findings);
  const order = [...sorted.filter((f) => findingKind(f) !== 'note'), ...sorted.filter((f) => findingKind(f) === 'note')];
  const out = new Map<string, { id: string; title: string; severity: Finding['severity'] }[]>();
  const same = (a: Finding['location'], b: Finding['location']) => (!a && !b) || (!!a && !!b && a.file === b.file && a.line === b.line);
  for (const ff of fleet.findings) {
    const i = order.findIndex((f) => f.ruleId === ff.ruleId && f.title.startsWith(ff.title) && same(f.location, ff.location));
    if (i < 0) continue;
    for (const p of ff.processes) {
      const list = out.get(p.name) ?? [];
      list.push({ id: `f-${i + 1}`, title: ff.title, severity: order[i].severity });
      out.set(p.name, list);
    }
  }
  for (const list of out.values()) list.sort((a, b) => Number(a.id.slice(2)) - Number(b.id.slice(2)));
  return out;
}

export function renderHtml(input: ReportInput, opts: HtmlOptions = {}): string {
  const maxStacks = Math.max(0, opts.maxStacks ?? HTML_DEFAULTS.maxStacks);
  const maxRows = Math.max(0, opts.maxRows ?? HTML_DEFAULTS.maxRows);
  const analyses = input.analyses;
  const multi = analyses.length > 1;
  const last = analyses[analyses.length - 1];
  const primary = last ? matching(last, opts.match) : undefined;
  const stacks = new Set(primary ? stackedGroups(primary, maxStacks).map((g) => g.id) : []);
  const v = verdict(input.findings, analyses, input.races);
  const sources = [...new Set([...analyses.map((a) => a.snapshot.source), ...(input.races ?? []).map((r) => r.source)])];
  const headlines = [...new Set(analyses.flatMap((a) => (a.snapshot.headline ? [a.snapshot.headline.message] : [])))];

  const nav: Array<[string, string]> = [['findings', 'Findings']];
  const body: string[] = [];
  if (input.gate) {
    nav.unshift(['gate', 'Gate']);
    body.push(section('gate', 'Gate', renderGate(input.gate)));
  }
  if (input.fleet) {
    // Several processes (a support bundle): the fleet first, then one section per process.
    nav.unshift(['fleet', 'Processes']);
    const anchors = findingAnchors(input.findings, input.fleet);
    body.push(section('fleet', 'Processes', renderFleet(input.fleet, anchors) + renderProcesses(input.fleet, anchors)));
  }
  body.push(section('findings', `Findings (${fmtInt(input.findings.length)})`, renderFindings(input.findings, { stacks, multi, ...(input.rulesSkipped ? { rulesSkipped: true } : {}) })));
  if (primary) {
    nav.push(['wait-kinds', 'Wait kinds']);
    const where = multi ? `<p class="muted">In the last snapshot (${esc(primary.snapshot.source)}).</p>` : '';
    const chart = `<div class="chart-row">${waitKindChart(primary.byWaitKind, primary.total)}${waitKindLegend(primary)}</div>`;
    body.push(section('wait-kinds', 'What the goroutines wait on', where + chart));
  }
  // A fleet's analyses are each process's latest snapshot, not a series: its charts over time are in the fleet table.
  const series = multi && !input.fleet;
  const d = input.diff ?? (series && analyses[0]!.level === last!.level ? diffAnalyses(analyses[0]!, last!) : undefined);
  if (series || input.trend) {
    nav.push(['trend', 'Over time']);
    body.push(section('trend', 'Goroutines over time', renderTrend(analyses, input.trend)));
  }
  if (d) {
    nav.push(['diff', 'Diff']);
    body.push(section('diff', 'What changed', renderDiff(d, stacks, stackAnchor)));
  }
  const aggregates = aggregateSentence(input);
  if (aggregates) body.push(`<p class="muted">${esc(aggregates)}</p>`);
  if (multi) {
    nav.push(['snapshots', 'Snapshots']);
    body.push(section('snapshots', 'Snapshots', renderSnapshots(analyses)));
  }
  let rows: unknown[] = [];
  if (primary) {
    const table = renderGroupTable(primary, maxRows, stacks);
    rows = table.rows;
    nav.push(['groups', 'Groups'], ['stacks', 'Stacks'], ['tree', 'Who started whom']);
    const filtered = opts.match ? ` matching <code>${esc(String(opts.match))}</code>` : '';
    const intro = `<p class="muted">${plural(primary.total, 'goroutine')}; ${plural(primary.groups.length, 'group')} of identical stacks${filtered}. Click a column to sort; click a function to see its stack.</p>`;
    body.push(section('groups', 'Groups', intro + table.html));
    body.push(section('stacks', 'Stacks', renderStacks(primary, maxStacks)));
    body.push(section('tree', 'Who started whom', renderTree(primary, stacks)));
  }
  if (input.races?.length) {
    nav.push(['races', 'Data races']);
    body.push(section('races', `Data races (${fmtInt(input.races.length)})`, renderRaces(input.races)));
  }
  const notes = renderNotes(analyses);
  if (notes) {
    nav.push(['notes', 'Reader notes']);
    body.push(section('notes', 'Reader notes', notes));
  }

  const problems = sortFindings(input.findings).filter((f) => findingKind(f) !== 'note');
  const summary = problems.length
    ? `<ol class="summary">${problems.slice(0, 5).map((f, i) => `<li><a href="#f-${i + 1}">${esc(f.title)}</a></li>`).join('')}</ol>`
    : '';
  // A fleet's cards count processes; one snapshot's totals would speak for the latest process only.
  const stats = input.fleet
    ? renderFleetCards(input.fleet)
    : primary
    ? '<div class="stats">' +
      `<div class="stat"><b>${fmtInt(primary.total)}</b><span>goroutines</span></div>` +
      `<div class="stat"><b>${fmtInt(primary.groups.length)}</b><span>groups</span></div>` +
      `<div class="stat"><b>${fmtInt(input.findings.length)}</b><span>findings</span></div>` +
      (multi ? `<div class="stat"><b>${fmtInt(analyses.length)}</b><span>snapshots</span></div>` : '') +
      `<div class="stat"><b>${esc(primary.snapshot.format)}</b><span>format</span></div></div>`
    : '';
  const version = opts.toolVersion ? ` ${esc(opts.toolVersion)}` : '';
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n' +
    `<meta http-equiv="Content-Security-Policy" content="${esc(contentSecurityPolicy())}">\n` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="referrer" content="no-referrer">\n' +
    '<meta name="generator" content="leakscope">\n<link rel="icon" href="data:,">\n' +
    `<title>${esc(opts.title ?? `leakscope: ${v.text}`)}</title>\n<style>${CSS}</style>\n</head>\n<body>\n` +
    '<header class="top"><h1>leakscope report</h1>' +
    `<p class="sources">${sources.map((s) => esc(s)).join(' · ') || 'no input'}</p>` +
    renderVerdict(v) +
    summary +
    headlines.map((h) => `<div class="headline mono">${esc(h)}</div>`).join('') +
    contextNotes(analyses).map((n) => `<p class="muted">${esc(n)}</p>`).join('') +
    stats +
    '</header>\n' +
    `<nav class="toc">${nav.map(([id, t]) => `<a href="#${id}">${esc(t)}</a>`).join('')}</nav>\n<main>\n` +
    body.join('\n') +
    `\n</main>\n<footer>Made by leakscope${version} from the dump alone: every fact on this page comes from the input.</footer>\n` +
    `<script type="application/json" id="leakscope-data">${jsonForScript({ v: 1, rows })}</script>\n` +
    `<script>${CLIENT_JS}</script>\n</body></html>\n`
  );
}

/** What a reader of the page must know before the findings: an excerpt (what it does not show is unknown), and which code is the program's. */
function contextNotes(analyses: readonly Analysis[]): string[] {
  const notes = analyses.flatMap((a) => [
    ...(a.snapshot.context?.excerpt?.length ? [`${a.snapshot.source}: ${a.snapshot.context.summary}`] : []),
    ...[programNote(a)].filter((x): x is string => x !== undefined),
  ]);
  return [...new Set(notes)];
}
