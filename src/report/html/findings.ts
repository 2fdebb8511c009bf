/** Findings: what leaks, where, why and the fix, with the evidence and source excerpts behind each. */
import type { CauseLocation, EvidenceGroup, Finding, FindingCategory } from '../../rules/types.js';
import { SEVERITY_RANK } from '../text.js';
import { esc, prose } from './escape.js';
import { fmtInt, fmtShare, fmtWait, plural, shortFile, shortFunc } from './format.js';
import { locHtml, renderFrames, stackAnchor } from './frames.js';
import { waitLabel } from './waitkinds.js';

/** What kind of problem a finding reports, for the verdict line and its badge. */
export type FindingKind = Exclude<FindingCategory, 'info'> | 'note';

export function findingKind(f: Finding): FindingKind {
  if (f.severity === 'info' || f.category === 'info') return 'note';
  if (f.category) return f.category;
  // Findings without a category: guess from the rule id.
  const id = f.ruleId.toLowerCase();
  if (/race/.test(id)) return 'race';
  if (/deadlock/.test(id)) return 'deadlock';
  if (/crash|panic|fatal|concurrent-map|map-write/.test(id)) return 'crash';
  return 'leak';
}

const KIND_BADGE: Record<FindingKind, string> = {
  leak: 'leak', contention: 'contention', deadlock: 'deadlock', crash: 'crash', race: 'data race', resource: 'resource', note: 'note',
};
const ROLE: Record<EvidenceGroup['role'], string> = { root: 'root cause', consequence: 'consequence', related: 'related' };

export interface FindingContext {
  /** Group ids whose stacks are on the page. */
  readonly stacks: ReadonlySet<string>;
  /** Several snapshots: say which one each finding is about. */
  readonly multi: boolean;
  /** `--no-rules`: say so rather than "no rule matched". */
  readonly rulesSkipped?: boolean;
}

function groupLink(id: string, text: string, ctx: FindingContext): string {
  return ctx.stacks.has(id) ? `<a href="#${stackAnchor(id)}">${esc(text)}</a>` : esc(text);
}

function evidenceTable(groups: readonly EvidenceGroup[], ctx: FindingContext): string {
  if (groups.length === 0) return '';
  const waits = groups.some((g) => g.wait);
  const rows = groups.map((g) => {
    const site = g.site ? shortFunc(g.site.func) : g.id;
    return (
      `<tr><td>${esc(ROLE[g.role])}</td><td class="num">${fmtInt(g.count)}</td><td class="num">${fmtShare(g.share)}</td>` +
      `<td><span class="wk wk-${esc(g.waitKind)}">${esc(waitWithState(g.waitKind, g.state))}</span></td>` +
      `<td><span class="site mono">${groupLink(g.id, site, ctx)}</span>${g.site ? locHtml(g.site) : ''}</td>` +
      (waits ? `<td>${esc(fmtWait(g.wait))}</td>` : '') +
      '</tr>'
    );
  });
  return (
    '<table class="evidence"><thead><tr><th>Role</th><th class="num">Goroutines</th><th class="num">Share</th>' +
    `<th>Waiting on</th><th>Stuck at</th>${waits ? '<th>Waiting for</th>' : ''}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

/** A source excerpt; the line the excerpt marks with `>` is highlighted. */
function excerptHtml(text: string): string {
  const lines = text.split('\n').map((l) => (l.startsWith('>') ? `<span class="hl">${esc(l)}</span>` : esc(l)));
  return `<pre><code>${lines.join('\n')}</code></pre>`;
}

function causeLocation(c: CauseLocation): string {
  const where = `<span class="mono" title="${esc(`${c.file}:${c.line}`)}">${esc(`${shortFile(c.file)}:${c.line}`)}</span>`;
  return (
    `<figure class="excerpt"><figcaption>${where} <span class="badge conf-${esc(c.confidence)}">${esc(c.confidence)} confidence</span></figcaption>` +
    (c.excerpt ? excerptHtml(c.excerpt) : '') +
    `<p>${prose(c.message)}</p></figure>`
  );
}

function renderFinding(f: Finding, i: number, ctx: FindingContext): string {
  const kind = findingKind(f);
  const where = f.location
    ? `<span class="mono">${esc(shortFunc(f.location.func))}</span> at <span class="mono">${esc(`${f.location.file}:${f.location.line}`)}</span>`
    : '';
  const facts = f.evidence.facts.length ? `<ul class="facts">${f.evidence.facts.map((x) => `<li>${prose(x)}</li>`).join('')}</ul>` : '';
  const causes = f.causeLocations?.length
    ? `<h4>In the source: why it happens</h4>${f.causeLocations.map(causeLocation).join('')}`
    : '';
  const snap = ctx.multi ? `<div class="rule">in ${esc(f.snapshot.source)} #${f.snapshot.index + 1}</div>` : '';
  const stack = f.evidence.stack.length
    ? `<details class="stack"><summary>Representative stack of the root cause (${plural(f.evidence.stack.length, 'frame')})</summary>` +
      renderFrames(f.evidence.stack, f.evidence.stack.find((x) => x.origin === 'user')?.index) +
      '</details>'
    : '';
  return (
    `<article class="finding sev-${esc(f.severity)}" id="f-${i + 1}">` +
    `<header><span class="badge sev-${esc(f.severity)}">${esc(KIND_BADGE[kind])}</span>${provenBadge(f)}<h3>${esc(f.title)}</h3>` +
    `<span class="rule">${esc(f.ruleId)} · ${plural(f.evidence.goroutines, 'goroutine')}</span></header>${snap}` +
    '<dl class="www">' +
    `<dt>What</dt><dd>${prose(f.explanation)}</dd>` +
    (where ? `<dt>Where</dt><dd>${where}</dd>` : '') +
    `<dt>Why</dt><dd>${prose(f.cause)}</dd>` +
    `<dt>Fix</dt><dd class="fix">${prose(f.fix)}</dd>` +
    '</dl>' +
    facts +
    evidenceTable(f.evidence.groups, ctx) +
    causes +
    stack +
    '</article>'
  );
}

/** The runtime's leak-detecting GC proved these goroutines leaked (goroutineleak profile, `(leaked)`). */
export function isProven(f: Finding): boolean {
  return f.confidence === 'certain' && f.evidence.facts.some((x) => x.startsWith(PROOF));
}

const PROOF = "proven by the runtime's leak-detecting GC";

function provenBadge(f: Finding): string {
  if (!isProven(f)) return '';
  const why = f.evidence.facts.find((x) => x.startsWith(PROOF))!;
  return `<span class="badge proven" title="${esc(why)}">proven by the runtime</span>`;
}

/** Findings, most severe first, then by goroutines involved; input order breaks ties. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_RANK[a.f.severity] - SEVERITY_RANK[b.f.severity] || b.f.evidence.goroutines - a.f.evidence.goroutines || a.i - b.i)
    .map((x) => x.f);
}

/** The wait kind as every table shows it, with the printed state when it says more: `waitgroup (semacquire)`. */
export function waitWithState(kind: EvidenceGroup['waitKind'], state: string | undefined): string {
  const norm = (x: string) => x.toLowerCase().replace(/[\s_/-]+/g, '');
  return state && norm(state) !== norm(kind) && norm(state) !== norm(waitLabel(kind)) ? `${waitLabel(kind)} (${state})` : waitLabel(kind);
}

export function renderFindings(findings: readonly Finding[], ctx: FindingContext): string {
  if (findings.length === 0 && ctx.rulesSkipped) return '<p>Rules not run (--no-rules).</p>';
  if (findings.length === 0) {
    return '<p>No rule matched: no goroutine group looks stuck in a way leakscope knows. The groups below show what every goroutine was doing.</p>';
  }
  const sorted = sortFindings(findings);
  const problems = sorted.filter((f) => findingKind(f) !== 'note');
  const notes = sorted.filter((f) => findingKind(f) === 'note');
  const cards = problems.map((f, i) => renderFinding(f, i, ctx)).join('');
  const noteCards = notes.map((f, i) => renderFinding(f, problems.length + i, ctx)).join('');
  return (
    cards +
    (notes.length
      ? `<details class="stack notes-findings"><summary>${plural(notes.length, 'informational note')} (not problems)</summary><div class="meta">${noteCards}</div></details>`
      : '')
  );
}
