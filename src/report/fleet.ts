/**
 * The fleet summary: when the dumps come from several processes (the pods of a support
 * bundle), one row per process (snapshots, goroutines first → last, trend verdict, top finding), and
 * one finding per problem across processes ("the same leak in 3 of 3 rancher pods, growing ~1,200/h
 * in each") rather than one per file. Also the `check` gate over a fleet: each limit's worst process.
 * Pure: the CLI runs each process's series through trend and the rules, this combines them.
 */
import type { TrendResult } from '../analyze/trend.js';
import type { Finding, Severity } from '../rules/types.js';
import { fmtInt, plural, SEVERITY_RANK } from './text.js';
import { neededText } from './trend-words.js';
import type { Fleet, FleetEntries, FleetFinding, FleetProcess, FleetStatus, FleetSummary, GateLimit, GateResult, ProcessResult } from './types.js';

export type { Fleet, FleetEntries, FleetFinding, FleetProcess, FleetStatus, FleetSummary, ProcessResult };

const STATUS_RANK: Readonly<Record<FleetStatus, number>> = { leaking: 0, suspect: 1, healthy: 2 };
const VERDICT_RANK = { growing: 0, 'rising-inconclusive': 1, stable: 2, 'insufficient-data': 3 } as const;

export function buildFleet(results: readonly ProcessResult[], entries?: FleetEntries): Fleet {
  const processes = results.map(processRow);
  const families = new Map<string, number>();
  for (const r of results) families.set(r.family, (families.get(r.family) ?? 0) + 1);
  const groups = new Map<string, { r: ProcessResult; f: Finding }[]>();
  for (const r of results) {
    const seen = new Set<string>();
    for (const f of r.findings) {
      const key = findingKey(f);
      if (seen.has(key)) continue;
      seen.add(key);
      const list = groups.get(key);
      if (list) list.push({ r, f });
      else groups.set(key, [{ r, f }]);
    }
  }
  const fleetFindings: FleetFinding[] = [];
  const findings: Finding[] = [];
  for (const list of groups.values()) {
    // The process with the most goroutines in it speaks for all of them.
    const rep = list.reduce((a, b) => (b.f.evidence.goroutines > a.f.evidence.goroutines ? b : a));
    const family = rep.r.family;
    const of = list.every((x) => x.r.family === family) ? families.get(family) ?? list.length : results.length;
    const procs = list.map((x) => ({ name: x.r.name, perHour: growthAt(x.r.trend, x.f) }));
    const summary = describeSpread(rep.f, procs, of, list.every((x) => x.r.family === family) ? family : undefined);
    fleetFindings.push({
      ruleId: rep.f.ruleId, severity: worst(list.map((x) => x.f.severity)), title: rep.f.title,
      ...(rep.f.location ? { location: rep.f.location } : {}), processes: procs, of, family, summary,
    });
    findings.push({
      ...rep.f,
      severity: worst(list.map((x) => x.f.severity)),
      title: list.length > 1 || results.length > 1 ? `${rep.f.title} (${list.length} of ${plural(of, 'process', 'processes')})` : rep.f.title,
      evidence: { ...rep.f.evidence, facts: [...rep.f.evidence.facts, summary] },
    });
  }
  return { summary: { processes: sortProcesses(processes), findings: fleetFindings, ...(entries ? { entries } : {}) }, findings };
}

function processRow(r: ProcessResult): FleetProcess {
  const first = r.analyses[0];
  const last = r.analyses[r.analyses.length - 1];
  const top = [...r.findings].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || leakFirst(a) - leakFirst(b))[0];
  const perMinute = r.trend?.total.perMinute ?? null;
  const verdict = r.trend?.verdict ?? 'insufficient-data';
  return {
    name: r.name,
    family: r.family,
    snapshots: r.analyses.length,
    first: first?.total ?? 0,
    last: last?.total ?? 0,
    counts: r.analyses.map((a) => a.total),
    verdict,
    ...(r.trend?.needed !== undefined ? { needed: r.trend.needed } : {}),
    status: statusOf(verdict, r.findings),
    perHour: perMinute === null ? null : perMinute * 60,
    sparkline: r.trend?.total.sparkline ?? '',
    findings: r.findings.length,
    ...(top ? { topFinding: { ruleId: top.ruleId, severity: top.severity, title: top.title, ...(top.category ? { category: top.category } : {}) } } : {}),
    latest: last?.snapshot.source ?? '',
  };
}

/** Among findings of one severity, a leak speaks for the process first. */
function leakFirst(f: Finding): number {
  return f.category === 'leak' ? 0 : 1;
}

/**
 * leaking: the trend grows, or the top finding is a leak at error; suspect: the trend rises
 * inconclusively, or a finding is at warning or above; healthy otherwise.
 */
export function statusOf(verdict: FleetProcess['verdict'], findings: readonly Finding[]): FleetStatus {
  if (verdict === 'growing' || findings.some((f) => f.severity === 'error' && f.category === 'leak')) return 'leaking';
  if (verdict === 'rising-inconclusive' || findings.some((f) => SEVERITY_RANK[f.severity] <= SEVERITY_RANK.warning)) return 'suspect';
  return 'healthy';
}

function sortProcesses(ps: FleetProcess[]): FleetProcess[] {
  return [...ps].sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || VERDICT_RANK[a.verdict] - VERDICT_RANK[b.verdict] || (b.perHour ?? 0) - (a.perHour ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function findingKey(f: Finding): string {
  return f.location ? `${f.ruleId}\u0000${f.location.file}:${f.location.line}` : `${f.ruleId}\u0000${f.title}`;
}

/** Growth per hour of the group at the finding's site, from the process's trend. */
function growthAt(t: TrendResult | undefined, f: Finding): number | null {
  if (!t || !f.location) return null;
  const g = t.groups.find((x) => x.blockingSite && x.blockingSite.file === f.location!.file && x.blockingSite.line === f.location!.line);
  return g && g.perMinute !== null ? g.perMinute * 60 : null;
}

function worst(s: readonly Severity[]): Severity {
  return [...s].sort((a, b) => SEVERITY_RANK[a] - SEVERITY_RANK[b])[0] ?? 'info';
}

/** "the same leak in 3 of 3 rancher pods, growing ~1,200/h in each" / "…: a 1,200/h, b 900/h". */
function describeSpread(f: Finding, procs: readonly { name: string; perHour: number | null }[], of: number, family: string | undefined): string {
  const what = f.ruleId.startsWith('trend/') || (f.category === 'leak' && f.severity !== 'info') ? 'leak' : 'finding';
  const whose = family ? `${family} ${of === 1 ? 'process' : 'processes'}` : of === 1 ? 'process' : 'processes';
  const head = procs.length === 1 ? `only in ${procs[0].name} of ${of} ${whose}` : `the same ${what} in ${procs.length} of ${of} ${whose}`;
  const rates = procs.map((p) => p.perHour).filter((r): r is number => r !== null && r > 0);
  if (rates.length === 0) return procs.length === 1 ? head : `${head}: ${names(procs.map((p) => p.name))}`;
  const lo = Math.min(...rates);
  const hi = Math.max(...rates);
  if (procs.length > 1 && rates.length === procs.length && hi <= lo * 1.25) {
    return `${head}, growing ~${fmtInt((lo + hi) / 2)}/h in each`;
  }
  const each = procs.map((p) => `${p.name} ${p.perHour !== null && p.perHour > 0 ? `+${fmtInt(p.perHour)}/h` : 'not growing'}`);
  return procs.length === 1 ? `${head}, growing ${fmtInt(rates[0])}/h` : `${head}: ${names(each)}`;
}

function names(list: readonly string[]): string {
  return list.length > 6 ? `${list.slice(0, 6).join(', ')}, … (${list.length - 6} more)` : list.join(', ');
}

/**
 * The gate over a fleet: each limit is judged in every process; the combined limit fails when it fails
 * anywhere, and speaks for the worst process (the failing one with the highest value).
 */
export function combineGates(results: readonly ProcessResult[]): GateResult | undefined {
  const gated = results.filter((r) => r.gate);
  if (gated.length === 0) return undefined;
  const byName = new Map<string, { r: ProcessResult; l: GateLimit }[]>();
  for (const r of gated) {
    for (const l of r.gate!.limits) {
      const list = byName.get(l.name);
      if (list) list.push({ r, l });
      else byName.set(l.name, [{ r, l }]);
    }
  }
  const limits: GateLimit[] = [];
  for (const list of byName.values()) {
    const failing = list.filter((x) => !x.l.passed);
    const pool = failing.length ? failing : list;
    const w = pool.reduce((a, b) => (b.l.actual > a.l.actual ? b : a));
    const where = failing.length ? `fails in ${failing.length} of ${plural(list.length, 'process', 'processes')}` : `passes in ${plural(list.length, 'process', 'processes')}`;
    limits.push({ ...w.l, message: `${w.r.name}: ${w.l.message} (${where})` });
  }
  return { passed: limits.every((l) => l.passed), limits, failOn: gated[0].gate!.failOn };
}

/** "read 36 goroutine dumps from 212 entries; skipped 120 other profiles, 56 logs without a dump". */
export function describeEntries(c: FleetEntries): string {
  const n = (k: number, one: string, many = `${one}s`) => `${fmtInt(k)} ${k === 1 ? one : many}`;
  const skipped = [
    c.otherProfiles ? n(c.otherProfiles, 'other profile') : '',
    c.logsWithoutDump ? n(c.logsWithoutDump, 'log without a dump', 'logs without a dump') : '',
    c.otherFiles ? n(c.otherFiles, 'other file') : '',
    c.unreadable ? n(c.unreadable, 'unreadable file') : '',
    c.corrupt ? n(c.corrupt, 'corrupt member') : '',
  ].filter(Boolean);
  const lost = [
    c.cut ? `${n(c.cut, 'inner archive')} read part-way` : '',
    c.stopped ? `${c.stopped === 1 ? 'the archive' : n(c.stopped, 'archive')} broke part-way: nothing after the break was read` : '',
  ].filter(Boolean);
  return `read ${n(c.dumps, 'goroutine dump')} from ${n(c.entries, 'entry', 'entries')}${skipped.length ? `; skipped ${skipped.join(', ')}` : ''}${lost.length ? `; ${lost.join('; ')}` : ''}`;
}

/** The process rows as cells: shared by the table, Markdown and HTML renderers. */
export function fleetRows(f: FleetSummary): { head: string[]; rows: string[][]; right: boolean[] } {
  const head = ['Process', 'Status', 'Snapshots', 'Goroutines', 'Trend', 'Growth/h', 'Top finding'];
  const rows = f.processes.map((p) => [
    p.name,
    p.status,
    fmtInt(p.snapshots),
    `${fmtInt(p.first)} → ${fmtInt(p.last)}`,
    `${p.verdict}${p.sparkline ? ` ${p.sparkline}` : ''}`,
    p.perHour === null ? '—' : `${p.perHour > 0 ? '+' : ''}${fmtInt(p.perHour)}`,
    p.topFinding ? `${p.topFinding.severity}: ${p.topFinding.title}` : '—',
  ]);
  return { head, rows, right: [false, false, true, true, false, true, false] };
}

/** How many processes are leaking, suspect and healthy: the headline's counts. */
export function fleetCounts(f: FleetSummary): Record<FleetStatus, number> {
  const c: Record<FleetStatus, number> = { leaking: 0, suspect: 0, healthy: 0 };
  for (const p of f.processes) c[p.status]++;
  return c;
}

/** "Fleet: 4 processes: 1 leaking, 1 suspect, 2 healthy" */
export function fleetHeadline(f: FleetSummary): string {
  const c = fleetCounts(f);
  return `Fleet: ${plural(f.processes.length, 'process', 'processes')}: ${fmtInt(c.leaking)} leaking, ${fmtInt(c.suspect)} suspect, ${fmtInt(c.healthy)} healthy`;
}

/** "leaking: trend growing" / "suspect: trend rising-inconclusive (about 6 snapshots would confirm it)". */
export function processStatusText(p: FleetProcess): string {
  const why: string[] = [`trend ${p.verdict}${p.verdict === 'rising-inconclusive' ? ` (${neededText(p.needed)})` : ''}`];
  if (p.topFinding && p.topFinding.severity !== 'info') why.push(`${p.topFinding.severity}: ${p.topFinding.title}`);
  return `${p.status}: ${why.join('; ')}`;
}

/** The `fleet` object of `--format json` (schemaVersion 2), field by field in a fixed order. */
export function fleetJson(f: FleetSummary): unknown {
  return {
    counts: fleetCounts(f),
    processes: f.processes.map((p) => ({
      name: p.name, family: p.family, status: p.status, snapshots: p.snapshots, first: p.first, last: p.last, verdict: p.verdict,
      ...(p.needed !== undefined ? { needed: p.needed } : {}),
      perHour: p.perHour === null ? null : Math.round(p.perHour * 100) / 100, findings: p.findings,
      ...(p.topFinding ? { topFinding: { ruleId: p.topFinding.ruleId, severity: p.topFinding.severity, title: p.topFinding.title } } : {}),
      latest: p.latest,
    })),
    findings: f.findings.map((x) => ({
      ruleId: x.ruleId, severity: x.severity, title: x.title,
      ...(x.location ? { file: x.location.file, line: x.location.line } : {}),
      of: x.of, family: x.family, summary: x.summary,
      processes: x.processes.map((p) => ({ name: p.name, perHour: p.perHour === null ? null : Math.round(p.perHour * 100) / 100 })),
    })),
    ...(f.entries
      ? { entries: { entries: f.entries.entries, dumps: f.entries.dumps, otherProfiles: f.entries.otherProfiles, logsWithoutDump: f.entries.logsWithoutDump, otherFiles: f.entries.otherFiles, unreadable: f.entries.unreadable, corrupt: f.entries.corrupt, cut: f.entries.cut, stopped: f.entries.stopped } }
      : {}),
  };
}
