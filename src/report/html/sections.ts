/** Smaller sections of the page: verdict, snapshots, races and reader notes. */
import type { Analysis } from '../../analyze/types.js';
import type { RaceReport } from '../../model/dump.js';
import type { Finding } from '../../rules/types.js';
import type { GateResult } from '../types.js';
import { esc } from './escape.js';
import { findingKind, isProven, type FindingKind } from './findings.js';
import { fmtInt, fmtShare, plural } from './format.js';
import { renderFrames } from './frames.js';
import { snapshotLabel } from './series.js';
import { snapshotKind } from '../text.js';

const MAX_NOTES = 50;
const MAX_RACES = 20;

export interface Verdict {
  readonly text: string;
  readonly bad: boolean;
  readonly sub: string;
}

const NOUN: Record<Exclude<FindingKind, 'note'>, [string, string]> = {
  leak: ['leak', 'leaks'],
  deadlock: ['deadlock', 'deadlocks'],
  crash: ['crash', 'crashes'],
  race: ['data race', 'data races'],
  contention: ['contention problem', 'contention problems'],
  resource: ['resource problem', 'resource problems'],
};
const ORDER = ['leak', 'deadlock', 'crash', 'race', 'contention', 'resource'] as const;

export function verdict(findings: readonly Finding[], analyses: readonly Analysis[], races: readonly RaceReport[] = []): Verdict {
  const counts: Record<FindingKind, number> = { leak: 0, deadlock: 0, crash: 0, race: 0, contention: 0, resource: 0, note: 0 };
  // A trend finding on the site of a rule finding of the same kind is one problem seen two ways: counted once.
  const site = (f: Finding) => (f.location ? `${findingKind(f)}\u0000${f.location.file}\u0000${f.location.line}` : '');
  const ruled = new Set(findings.filter((f) => f.pack !== 'trend' && f.location).map(site));
  for (const f of findings) {
    if (f.pack === 'trend' && f.location && ruled.has(site(f))) continue;
    counts[findingKind(f)]++;
  }
  // Race reports no rule turned into findings still are data races found (rules merge repeats).
  if (counts.race === 0) counts.race = races.length;
  const parts = ORDER.filter((k) => counts[k] > 0).map((k) => `${fmtInt(counts[k])} ${counts[k] === 1 ? NOUN[k][0] : NOUN[k][1]}`);
  if (analyses.length === 0) return { text: parts.length ? `${parts.join(', ')} found` : 'No leak found', bad: parts.length > 0, sub: 'The input holds no goroutine dump.' };
  const last = analyses[analyses.length - 1]!;
  const total = last.total;
  // Goroutine totals are never summed over snapshots. When every finding is about the latest snapshot
  // (a series: rules on the latest, trend findings dated to it), say how many of its goroutines are
  // involved; otherwise (inspect of independent dumps) count each (snapshot, group) once.
  const latest = findings.every((f) => f.snapshot.source === last.snapshot.source && f.snapshot.index === last.snapshot.index);
  const involved = new Map<string, number>();
  for (const f of findings) {
    if (findingKind(f) === 'note') continue;
    for (const g of f.evidence.groups) {
      const key = latest ? g.id : `${f.snapshot.source}\u0000${f.snapshot.index}\u0000${g.id}`;
      involved.set(key, Math.max(involved.get(key) ?? 0, g.count));
    }
  }
  const n = [...involved.values()].reduce((a, b) => a + b, 0);
  if (parts.length === 0) {
    const notes = counts.note ? ` (${plural(counts.note, 'note')})` : '';
    const checked = analyses.length === 1 ? plural(total, 'goroutine') : `${plural(total, 'goroutine')} in the latest of ${plural(analyses.length, 'snapshot')}`;
    return { text: 'No leak found', bad: false, sub: `${checked} checked${notes}.` };
  }
  const share = latest && total > 0 ? ` (${fmtShare(n / total)})` : '';
  const of = analyses.length === 1 ? ` of ${fmtInt(total)} goroutines` : latest ? ` of ${fmtInt(total)} goroutines in the latest snapshot` : ` goroutines in ${plural(analyses.length, 'snapshot')}`;
  const proven = findings.filter(isProven).length;
  const proof = proven ? ` ${proven === findings.filter((f) => findingKind(f) !== 'note').length ? (proven === 1 ? 'The finding is' : 'Every finding is') : `${fmtInt(proven)} of the findings ${proven === 1 ? 'is' : 'are'}`} proven by the runtime's leak-detecting GC.` : '';
  return { text: `${parts.join(', ')} found`, bad: true, sub: `${fmtInt(n)}${of}${share} ${n === 1 ? 'is' : 'are'} involved.${proof}` };
}

export function renderVerdict(v: Verdict): string {
  return (
    `<div class="verdict ${v.bad ? 'bad' : 'good'}" id="verdict"><span class="big">${esc(v.text)}</span>` +
    `<span class="sub">${esc(v.sub)}</span>${v.bad ? ' <a href="#findings">See the findings ↓</a>' : ''}</div>`
  );
}

export function renderSnapshots(analyses: readonly Analysis[]): string {
  const rows = analyses.map((a, i) => {
    const s = a.snapshot;
    return (
      `<tr><td>${esc(snapshotLabel(a, i))}</td><td class="mono">${esc(s.source)}${s.index ? ` #${s.index + 1}` : ''}</td>` +
      `<td>${esc(snapshotKind(s))}</td><td class="mono">${esc(s.capturedAt ?? '')}</td>` +
      `<td class="num">${fmtInt(a.total)}${s.truncated ? ' (truncated)' : ''}</td><td class="num">${fmtInt(a.groups.length)}</td></tr>`
    );
  });
  return (
    '<table><thead><tr><th>Snapshot</th><th>Source</th><th>Format</th><th>Captured</th><th class="num">Goroutines</th><th class="num">Groups</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

export function renderRaces(races: readonly RaceReport[]): string {
  const items = races.slice(0, MAX_RACES).map((r, i) => {
    const acc = r.accesses
      .map((a) => {
        const who = a.goroutineId === 0 ? 'the main goroutine' : `goroutine ${a.goroutineId}`;
        const what = `${a.previous ? 'Previous ' : ''}${a.op} at ${a.address} by ${who}`;
        return `<h4>${esc(what)}</h4>${renderFrames(a.frames)}`;
      })
      .join('');
    const created = r.goroutines
      .map((g) => `<h4>${esc(`Goroutine ${g.id} (${g.status}) created at`)}</h4>${renderFrames(g.createdAt)}`)
      .join('');
    const where = r.line ? ` (line ${r.line})` : '';
    return `<details class="stack"><summary>${esc(`Data race ${i + 1} in ${r.source}${where}`)}</summary><div class="meta">${acc}${created}</div></details>`;
  });
  const more = races.length > MAX_RACES ? `<p class="muted">${plural(races.length - MAX_RACES, 'more race report')} not shown.</p>` : '';
  return items.join('') + more;
}

/** What the readers noticed: truncated input, partial stacks, skipped lines. */
export function renderNotes(analyses: readonly Analysis[]): string {
  const notes: string[] = [];
  for (const a of analyses) {
    const s = a.snapshot;
    const where = analyses.length > 1 ? `${s.source} #${s.index + 1}: ` : '';
    if (s.truncated) notes.push(`${where}the input ended inside this dump; counts are lower bounds.`);
    if (s.declaredTotal !== undefined && s.declaredTotal !== s.total) {
      notes.push(`${where}the dump states ${fmtInt(s.declaredTotal)} goroutines; ${fmtInt(s.total)} were read.`);
    }
    for (const w of s.warnings) notes.push(`${where}${w.line ? `line ${w.line}: ` : ''}${w.message}`);
  }
  if (notes.length === 0) return '';
  const shown = notes.slice(0, MAX_NOTES).map((n) => `<li>${esc(n)}</li>`).join('');
  const more = notes.length > MAX_NOTES ? `<li>${plural(notes.length - MAX_NOTES, 'more note')}…</li>` : '';
  return `<ul class="notes">${shown}${more}</ul>`;
}

/** `check`: each limit of the gate, passed or failed. */
export function renderGate(gate: GateResult): string {
  const rows = gate.limits.map(
    (l) =>
      `<tr><td>${l.passed ? '<span class="badge sev-ok">pass</span>' : '<span class="badge sev-error">fail</span>'}</td>` +
      `<td class="mono">${esc(l.name)}</td><td class="num">${esc(String(l.limit))}</td><td class="num">${esc(fmtInt(l.actual))}</td><td>${esc(l.message)}</td></tr>`,
  );
  return (
    `<p>The gate <b>${gate.passed ? 'passed' : 'failed'}</b> (findings of severity ${esc(gate.failOn)} or worse fail it).</p>` +
    '<table><thead><tr><th></th><th>Limit</th><th class="num">Allowed</th><th class="num">Actual</th><th>Why</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}
