/**
 * Several processes among the inputs (the pods of a support bundle): each process's
 * snapshots form a series of their own, judged like `check` judges one (the rules on its latest
 * snapshot, the trend over the series, the gate's limits), and the results are combined into the
 * fleet summary (src/report/fleet.ts). Inputs of one process keep the single-series path.
 */
import { diff } from '../analyze/compare.js';
import { trend } from '../analyze/trend.js';
import type { Analysis } from '../analyze/types.js';
import { buildFleet, combineGates, type Fleet, type ProcessResult } from '../report/fleet.js';
import { evaluateGate, trendFindings, type GateLimits } from '../report/gate.js';
import type { GateResult } from '../report/types.js';
import type { ReportCommand } from '../report/types.js';
import { emit } from './emit.js';
import { latestFindings, sourcePaths } from './judge.js';
import type { ReportFlags } from './options.js';
import { racesOf, ruleIds, withSource, type Loaded, type LoadedInput, type Setup } from './pipeline.js';
import { familyOf } from './processes.js';
import { buildSeries } from './series.js';

/** Name of the inputs named on the command line one by one (no process of their own). */
const UNNAMED = 'inputs';

export interface ProcessInputs {
  readonly name: string;
  readonly loaded: LoadedInput[];
}

/** Inputs by process, in the order each process first appears. */
export function processesOf(loaded: readonly LoadedInput[]): ProcessInputs[] {
  const out = new Map<string, LoadedInput[]>();
  for (const l of loaded) {
    if (l.analyses.length === 0) continue;
    const name = l.process ?? UNNAMED;
    const list = out.get(name);
    if (list) list.push(l);
    else out.set(name, [l]);
  }
  return [...out].map(([name, list]) => ({ name, loaded: list }));
}

/** True when the dumps come from more than one process: the fleet summary applies. */
export function isFleet(loaded: readonly LoadedInput[]): boolean {
  return processesOf(loaded).length > 1;
}

export interface FleetOptions {
  readonly interval?: number;
  readonly alpha?: number;
  /** `check`: the limits each process is held to. */
  readonly gate?: GateLimits;
}

export interface JudgedFleet {
  readonly fleet: Fleet;
  /** Each process's latest snapshot, in fleet order. */
  readonly latest: Analysis[];
  readonly gate?: GateResult;
}

export function judgeFleet(loaded: Loaded, s: Setup, o: FleetOptions = {}): JudgedFleet {
  const results: ProcessResult[] = processesOf(loaded).map((p) => judgeProcess(p, s, o));
  const c = loaded.bundleCounts;
  const fleet = buildFleet(results, c && c.entries > 0 ? c : undefined);
  const order = new Map(fleet.summary.processes.map((p, i) => [p.name, i]));
  const sorted = [...results].sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  const gate = withSkipped(combineGates(sorted), loaded, o.gate);
  return { fleet, latest: sorted.map((r) => r.analyses[r.analyses.length - 1]), ...(gate ? { gate } : {}) };
}

/** `--fail-on-skipped` / `--max-skipped` judge the archives as a whole, not each process. */
function withSkipped(gate: GateResult | undefined, loaded: Loaded, limits: GateLimits | undefined): GateResult | undefined {
  if (!gate || limits?.maxSkipped === undefined) return gate;
  const l = evaluateGate({ analyses: [], findings: [], skipped: loaded.bundleSkipped ?? [] }, { maxSkipped: limits.maxSkipped }).limits.find((x) => x.name === 'max-skipped')!;
  const all = [l, ...gate.limits];
  return { ...gate, limits: all, passed: all.every((x) => x.passed) };
}

function judgeProcess(p: ProcessInputs, s: Setup, o: FleetOptions): ProcessResult {
  const { samples } = buildSeries(p.loaded, o.interval);
  const analyses = samples.map((x) => x.analysis);
  const latest = analyses[analyses.length - 1];
  const t = samples.length >= 3 ? trend(samples, o.alpha !== undefined ? { alpha: o.alpha } : {}) : undefined;
  const findings = [...latestFindings(p.loaded, latest, s, analyses), ...(t ? trendFindings(t) : [])];
  const d = analyses.length > 1 ? diff(analyses[0], latest) : undefined;
  const perProcess = o.gate ? { ...o.gate } : undefined;
  if (perProcess) delete (perProcess as { maxSkipped?: number }).maxSkipped;
  const gate = perProcess ? evaluateGate({ analyses, findings, ...(d ? { diff: d } : {}), ...(t ? { trend: t } : {}) }, perProcess) : undefined;
  return { name: p.name, family: familyOf(p.name), analyses, findings, ...(t ? { trend: t } : {}), ...(gate ? { gate } : {}) };
}

/** Judge the fleet and write its report: what the commands do when the inputs are several processes. */
export async function emitFleet(
  command: ReportCommand,
  loaded: Loaded,
  s: Setup,
  flags: ReportFlags & { source?: string },
  o: FleetOptions = {},
): Promise<JudgedFleet> {
  const j = judgeFleet(loaded, s, o);
  const findings = await withSource(j.fleet.findings, j.latest, flags.source);
  const paths = sourcePaths(findings, flags.source);
  const races = racesOf(loaded);
  await emit(
    {
      command, analyses: j.latest, findings, fleet: j.fleet.summary, ...(j.gate ? { gate: j.gate } : {}), ...(races.length ? { races } : {}),
      ...(s.rules ? {} : { rulesSkipped: true }),
    },
    flags,
    { ruleIds: ruleIds(s), ...(paths.mappings.length ? { pathPrefixes: paths.mappings } : {}), ...(paths.srcRoot ? { srcRoot: paths.srcRoot } : {}) },
  );
  return j;
}
