/**
 * What every renderer takes and returns. A renderer is a pure function `(input, opts) => string`: no
 * clock, no environment, no file system; the same input gives byte-identical output. The CLI builds a
 * `ReportInput` from the pipeline (read → analyze → rules, plus compare/trend/gate) and writes the
 * string once.
 */
import type { Analysis, AnalyzedGroup } from '../analyze/types.js';
import type { DiffResult } from '../analyze/compare.js';
import type { TrendResult } from '../analyze/trend.js';
import type { RaceReport } from '../model/dump.js';
import type { Finding, Severity } from '../rules/types.js';

/** The command a report answers; renderers lay out their sections by it. */
export type ReportCommand = 'inspect' | 'diff' | 'trend' | 'check' | 'watch' | 'report';

export interface ReportInput {
  readonly command: ReportCommand;
  /** One per snapshot, in input order (for `trend`/`watch`, in time order). */
  readonly analyses: Analysis[];
  /** Rule findings over all analyses (and trend/growth findings for `check`). */
  readonly findings: Finding[];
  readonly races?: RaceReport[];
  /** `diff`, and `check --baseline`: the baseline compared with the latest snapshot. */
  readonly diff?: DiffResult;
  /** `trend`, `watch`, and `check` over a series. */
  readonly trend?: TrendResult;
  /** `check`: the verdict of every limit. */
  readonly gate?: GateResult;
  /** `--no-rules`: the rules did not run, so "no findings" would say too much. */
  readonly rulesSkipped?: boolean;
  /**
   * Dumps of several processes (a support bundle): one row per process, shown first. Then
   * `analyses` holds each process's latest snapshot and `findings` one finding per problem across them.
   */
  readonly fleet?: FleetSummary;
}

/** One limit of the `check` gate. */
export interface GateLimit {
  /** Stable name: `max-total`, `max-group`, `max-growth`, `steady-growth`, `findings`. */
  readonly name: GateLimitName;
  /** What the limit allows, as given (`1000`, `0.5`, `error`). */
  readonly limit: number | string;
  /** The worst value seen. */
  readonly actual: number;
  readonly passed: boolean;
  /** One sentence a person reads: `total 1,530 goroutines > max-total 1,000 (after.txt)`. */
  readonly message: string;
  /** The group that decided the limit, when one did (largest group, fastest growing…). */
  readonly subject?: GateSubject;
}

export type GateLimitName = 'max-total' | 'max-group' | 'max-growth' | 'max-group-growth' | 'max-skipped' | 'steady-growth' | 'findings';

export interface GateSubject {
  readonly groupId: string;
  readonly func?: string;
  readonly file?: string;
  readonly line?: number;
  /** The snapshot the value was measured on. */
  readonly source?: string;
}

export interface GateResult {
  readonly passed: boolean;
  readonly limits: GateLimit[];
  /** Findings at or above this severity fail the gate. */
  readonly failOn: Severity;
}

/** Color functions; the zero palette returns its input. Only `table` uses one. */
export interface Palette {
  readonly error: (s: string) => string;
  readonly warning: (s: string) => string;
  readonly info: (s: string) => string;
  readonly ok: (s: string) => string;
  readonly bold: (s: string) => string;
  readonly dim: (s: string) => string;
}

/** `--path-prefix OLD=NEW`: a file path starting with `from` is rewritten to start with `to`. */
export interface PathMapping {
  readonly from: string;
  readonly to: string;
}

export interface RenderOptions {
  /** Groups shown per snapshot in human formats (table, markdown); default 10. JSON shows all. */
  readonly top?: number;
  /** Print each top group's stack (table, markdown). */
  readonly stacks?: boolean;
  /** Show only groups with a frame whose function or file matches. */
  readonly match?: RegExp;
  /** Table colors; default none. */
  readonly palette?: Palette;
  /** Applied to file paths in locations (sarif, github, junit), first match wins. */
  readonly pathPrefixes?: readonly PathMapping[];
  /** leakscope's version, stated in json/sarif/junit; default '0.0.0'. */
  readonly toolVersion?: string;
  /** Rule ids that ran (junit shows a passing test case for each rule that found nothing). */
  readonly ruleIds?: readonly string[];
  /**
   * `--source DIR` as an absolute `file:` URI ending in `/`: SARIF gives relative paths this base
   * (`uriBaseId: %SRCROOT%`, declared in `originalUriBaseIds`).
   */
  readonly srcRoot?: string;
}

export type Renderer = (input: ReportInput, opts?: RenderOptions) => string;

export type { Analysis, AnalyzedGroup, Finding, Severity };

// Support bundles: several processes judged one by one, summarized (report/fleet.ts).

/** One process's series as the CLI judged it. */
export interface ProcessResult {
  readonly name: string;
  /** Pods of one workload share a family (`rancher-7d9f8b6c4-x2x9z` → `rancher`). */
  readonly family: string;
  /** Its snapshots, in time order. */
  readonly analyses: readonly Analysis[];
  readonly trend?: TrendResult;
  /** Rule findings of its latest snapshot and its trend findings. */
  readonly findings: readonly Finding[];
  readonly gate?: GateResult;
}

/**
 * A process in the fleet headline: `leaking` when its trend is `growing` or its top finding is a leak
 * at error; `suspect` when its trend is `rising-inconclusive` or it has a finding at warning or above
 * (that is not a leak at error); `healthy` otherwise.
 */
export type FleetStatus = 'leaking' | 'suspect' | 'healthy';

export interface FleetProcess {
  readonly name: string;
  readonly family: string;
  readonly snapshots: number;
  /** Goroutines in the first and the latest snapshot. */
  readonly first: number;
  readonly last: number;
  /** Goroutines in every snapshot, oldest first (the chart over time). */
  readonly counts: readonly number[];
  /** The trend's state for the process (TrendResult.verdict); `insufficient-data` under 3 snapshots. */
  readonly verdict: TrendResult['verdict'];
  /** `rising-inconclusive`: snapshots that would confirm the rise (null: none up to 1,000). */
  readonly needed?: number | null;
  /** What the fleet headline counts the process as (see FleetStatus). */
  readonly status: FleetStatus;
  /** Growth of the total, goroutines per hour (Sen's slope); null without a trend or times. */
  readonly perHour: number | null;
  readonly sparkline: string;
  readonly findings: number;
  readonly topFinding?: { readonly ruleId: string; readonly severity: Severity; readonly title: string; readonly category?: Finding['category'] };
  /** The latest snapshot's source. */
  readonly latest: string;
}

/** A finding seen in several processes, shown once. */
export interface FleetFinding {
  readonly ruleId: string;
  readonly severity: Severity;
  /** The title as the rule wrote it (without the fleet suffix). */
  readonly title: string;
  readonly location?: Finding['location'];
  /** Processes with it, in fleet order, and each one's growth at the site (per hour; null if unknown). */
  readonly processes: readonly { readonly name: string; readonly perHour: number | null }[];
  /** Processes of the same family (the "of N"). */
  readonly of: number;
  readonly family: string;
  /** "the same leak in 3 of 3 rancher pods, growing ~1,200/h in each". */
  readonly summary: string;
}

/** How the files of the inputs were used (archives), when any input was one. */
export interface FleetEntries {
  readonly entries: number;
  readonly dumps: number;
  readonly otherProfiles: number;
  readonly logsWithoutDump: number;
  readonly otherFiles: number;
  readonly unreadable: number;
  /** Archive members skipped whole (corrupt xz/gzip/zip data, a bad inner tar header). */
  readonly corrupt: number;
  /** Inner archives read part-way. */
  readonly cut: number;
  /** Inputs whose own stream broke: nothing after the break was read. */
  readonly stopped: number;
}

export interface FleetSummary {
  readonly processes: FleetProcess[];
  readonly findings: FleetFinding[];
  readonly entries?: FleetEntries;
}

export interface Fleet {
  readonly summary: FleetSummary;
  /** One finding per problem: the representative of each, its title and facts saying where else it is. */
  readonly findings: Finding[];
}
