/**
 * Locale-free formatting shared by the text renderers (table, markdown, junit, github), and the
 * selection of groups a report shows. Nothing here reads the host: output depends on the input only.
 */
import type { AnalyzedGroup, SiteFrame } from '../analyze/types.js';
import type { DumpContext } from '../model/dump.js';
import { textOrder } from '../rules/collate.js';
import type { EvidenceGroup, Finding, Severity } from '../rules/types.js';
import type { PathMapping, RenderOptions } from './types.js';

/** 1234567 → "1,234,567" on every host. */
export function fmtInt(n: number): string {
  const s = String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 && Math.round(Math.abs(n)) !== 0 ? '-' + s : s;
}

/** +12 / -3 / 0. */
export function fmtDelta(n: number): string {
  return n > 0 ? '+' + fmtInt(n) : fmtInt(n);
}

/** 0.4623 → "46.2%"; (0, 0.001) → "<0.1%". */
export function fmtShare(share: number): string {
  if (share > 0 && share < 0.001) return '<0.1%';
  return (share * 100).toFixed(1) + '%';
}

/** Growth ratio → "+50.0%"; null (new) → "new". */
export function fmtGrowth(g: number | null): string {
  if (g === null) return 'new';
  const s = (g * 100).toFixed(1) + '%';
  return g > 0 ? '+' + s : s;
}

/** A rate with 2 significant decimals at most: 12 → "12", 0.456 → "0.46", -3.1 → "-3.1". */
export function fmtRate(x: number | null): string {
  if (x === null) return '—';
  const r = Math.round(x * 100) / 100;
  const s = Object.is(r, -0) ? '0' : String(r);
  return r > 0 ? '+' + s : s;
}

/** p-values: "<0.001", "0.012", "1". */
export function fmtP(p: number): string {
  if (p < 0.001) return '<0.001';
  if (p >= 0.9995) return '1';
  return p.toFixed(3);
}

/** 330000 ms → "5m30s"; 0 → "0s". */
export function fmtDuration(ms: number): string {
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return (h ? `${h}h` : '') + (m ? `${m}m` : '') + (s || (!h && !m) ? `${s}s` : '');
}

/** `/go/pkg/mod/x/y/proxy_store.go` → `y/proxy_store.go`. */
export function shortFile(file: string): string {
  const parts = file.split(/[\\/]/).filter((p) => p !== '');
  return parts.length <= 2 ? file : parts.slice(-2).join('/');
}

/** `proxy/proxy_store.go:50`, or '' without a file. */
export function shortSite(f: { file: string; line: number } | undefined): string {
  if (!f || !f.file) return '';
  return f.line > 0 ? `${shortFile(f.file)}:${f.line}` : shortFile(f.file);
}

export function fileLine(f: { file: string; line: number }): string {
  if (!f.file) return '';
  return f.line > 0 ? `${f.file}:${f.line}` : f.file;
}

/** "12 min", "3–12 min", or '' when no goroutine printed a wait. */
export function fmtWait(w: AnalyzedGroup['wait']): string {
  if (!w) return '';
  return w.min === w.max ? `${fmtInt(w.min)} min` : `${fmtInt(w.min)}–${fmtInt(w.max)} min`;
}

/** The state as printed when there is one (`chan send`), else the classified kind. */
export function waitLabel(g: Pick<AnalyzedGroup, 'states' | 'waitKind'>): string {
  return g.states.find((s) => s !== '') ?? g.waitKind;
}

/** The frame a report points at: the blocking site, else the innermost frame with a file. */
export function siteOf(g: Pick<AnalyzedGroup, 'blockingSite' | 'frames'>): SiteFrame | undefined {
  return g.blockingSite ?? g.frames.find((f) => f.file !== '');
}

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { error: 0, warning: 1, info: 2 };

/** An evidence group a report lists under its finding, and how many of its groups are alike (`listedEvidence`). */
export interface ListedEvidence {
  readonly group: EvidenceGroup;
  readonly alike: number;
}

/**
 * The evidence groups a report lists under a finding: all but its roots (which its facts say), in
 * order, those alike (role, goroutines, wait, state and site) once with their number. A finding over
 * 200 groups of 834 goroutines parked at one line listed 200 identical lines.
 */
export function listedEvidence(f: Finding): ListedEvidence[] {
  const byText = new Map<string, { group: EvidenceGroup; alike: number }>();
  for (const g of f.evidence.groups) {
    if (g.role === 'root') continue;
    const s = g.site;
    const key = `${g.role}\0${g.count}\0${g.waitKind}\0${g.state}\0${s ? `${s.func}\0${s.file}\0${s.line}` : ''}`;
    const e = byText.get(key);
    if (e === undefined) byText.set(key, { group: g, alike: 1 });
    else e.alike++;
  }
  return [...byText.values()];
}

/** `11 groups, each ` before what one of `alike` groups is, or nothing for one. */
export function alikePrefix(alike: number): string {
  return alike > 1 ? `${fmtInt(alike)} groups, each ` : '';
}

/** Most severe first, then most goroutines, then rule id and location: a total order. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      b.evidence.goroutines - a.evidence.goroutines ||
      textOrder(a.ruleId, b.ruleId) ||
      textOrder(a.location?.file ?? '', b.location?.file ?? '') ||
      (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
      textOrder(a.snapshot.source, b.snapshot.source) ||
      a.snapshot.index - b.snapshot.index ||
      textOrder(a.title, b.title),
  );
}

/** Groups passing `--match` (a frame's function or file matches), in the analysis' order. */
export function selectGroups(groups: readonly AnalyzedGroup[], opts: RenderOptions): AnalyzedGroup[] {
  const re = opts.match;
  if (!re) return [...groups];
  return groups.filter((g) => g.frames.some((f) => test(re, f.func) || test(re, f.file)) || (g.creator ? test(re, g.creator.func) : false));
}

/** RegExp.test without the `lastIndex` state of global regexes. */
export function test(re: RegExp, s: string): boolean {
  re.lastIndex = 0;
  return re.test(s);
}

export function topN(opts: RenderOptions): number {
  return opts.top ?? 10;
}

/** Apply `--path-prefix` mappings: the first mapping whose `from` starts the path wins. */
export function mapPath(file: string, mappings: readonly PathMapping[] | undefined): string {
  for (const m of mappings ?? []) {
    if (file.startsWith(m.from)) return m.to + file.slice(m.from.length);
  }
  return file;
}

/** "1 goroutine", "2 goroutines". */
export function plural(n: number, one: string, many = one + 's'): string {
  return `${fmtInt(n)} ${n === 1 ? one : many}`;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/**
 * Terminal-safe text from a dump: control characters (ESC sequences could recolor or clear the
 * screen) shown as `\xNN`, and line breaks as `\n`, so one value stays on one line.
 */
export function oneLine(s: string): string {
  // Most text has none: one scan instead of two replaces (a report may print 20,000 facts).
  if (!CONTROL.test(s)) return s;
  // eslint-disable-next-line no-control-regex
  return s.replace(/\r\n|\n|\r/g, '\\n').replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Terminal-safe prose: line breaks kept, every other control character shown as `\xNN`. */
export function prose(s: string): string {
  if (!CONTROL_BUT_LF.test(s)) return s;
  // eslint-disable-next-line no-control-regex
  return s.replace(/\r\n|\r/g, '\n').replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, (c) => (c === '\t' ? '  ' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/**
 * What a snapshot is, for headers: a crash traceback, a test timeout, a SIGQUIT dump, or a goroutine
 * dump/profile by format (`goroutine dump (debug=2)`, `goroutine profile (debug=1)`,
 * `goroutine profile (debug=0)`, `goroutineleak profile (debug=0)`).
 */
export function snapshotKind(s: {
  readonly format: string;
  readonly profile: string;
  readonly headline?: { readonly kind: string; readonly message: string };
  readonly listing?: { readonly kind: string; readonly groups: string };
}): string {
  if (s.listing) return listingKind(s.profile, s.listing);
  switch (s.headline?.kind) {
    case 'test-timeout':
      return 'go test timeout traceback';
    case 'sigquit':
      return 'SIGQUIT dump';
    case 'panic':
      return 'crash traceback (panic)';
    case 'fatal-error':
      return 'crash traceback (fatal error)';
    case 'signal':
      return 'crash traceback (signal)';
    case 'exception':
      return 'crash traceback (exception)';
    case 'deadlock':
      return 'crash traceback (all goroutines are asleep)';
    case 'log-fatal':
      return 'crash traceback (log.Fatal)';
    default:
      break;
  }
  const profile = s.profile === 'goroutineleak' ? 'goroutineleak' : 'goroutine';
  if (s.format === 'pprof') return `${profile} profile (debug=0)`;
  if (s.format === 'debug1') return `${profile} profile (debug=1)`;
  return profile === 'goroutineleak' ? 'goroutineleak dump (debug=2)' : 'goroutine dump (debug=2)';
}

/**
 * A `go tool pprof` text listing, saying what its groups are: `goroutine profile (go tool pprof -top
 * listing: groups inferred from aggregates)`.
 */
function listingKind(profile: string, l: { readonly kind: string; readonly groups: string }): string {
  const flag = l.kind === 'tree' ? '-tree/-peek' : `-${l.kind}`;
  const how = l.groups === 'inferred' ? 'groups inferred from aggregates' : l.groups === 'edges' ? 'chains rebuilt from caller/callee counts' : 'exact stacks';
  return `${profile === 'goroutineleak' ? 'goroutineleak' : 'goroutine'} profile (go tool pprof ${flag} listing: ${how})`;
}

/**
 * The context summary of a snapshot where it says more than `snapshotKind` and the headline: what a
 * test timeout was running, which leak checker reported, in which test a deadlock happened. undefined
 * for profiles, crashes and signal dumps (the headline tells those) and a deadlock outside any test.
 */
export function contextNote(s: { readonly context?: DumpContext }): string | undefined {
  const c = s.context;
  if (!c || c.kind === 'profile' || c.kind === 'crash' || c.kind === 'signal') return undefined;
  if (c.kind === 'deadlock' && !c.tests?.length) return undefined;
  return c.summary;
}

/** Which modules were taken as the program's own code (analyze/modules.ts), for a line of output; undefined when none. */
export function programNote(a: { readonly programModules?: readonly { readonly module: string; readonly why: string }[] }): string | undefined {
  const m = a.programModules;
  if (!m?.length) return undefined;
  return `Program code: ${m.map((x) => `${x.module} (${x.why})`).join(', ')}`;
}

/** What a snapshot is, for section headers: its context summary where it says more, else its kind. */
export function snapshotTitle(s: Parameters<typeof snapshotKind>[0] & { readonly context?: DumpContext }, escape = (t: string) => t): string {
  const note = contextNote(s);
  return note === undefined ? snapshotKind(s) : escape(note);
}

/**
 * The wait column of group tables: the classified kind (as in the `Wait kinds:` summary), with the
 * printed state in parentheses when it says more: `waitgroup (semacquire)`, `chan-send` (not
 * `chan-send (chan send)`), `blocked-forever (chan receive (nil chan))`.
 */
export function waitColumn(g: Pick<AnalyzedGroup, 'states' | 'waitKind'>): string {
  const state = g.states.find((s) => s !== '');
  if (!state) return g.waitKind;
  const norm = (x: string) => x.toLowerCase().replace(/[\s_-]+/g, '');
  return norm(state) === norm(g.waitKind) ? g.waitKind : `${g.waitKind} (${state})`;
}
