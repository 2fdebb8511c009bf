/** Rules are data: they match analyzed groups and emit findings with evidence. */
import type { AnalyzedGroup, SiteFrame } from '../analyze/types.js';
import type { WaitKind } from '../model/dump.js';

export type Severity = 'error' | 'warning' | 'info';

/** A group named in a finding's evidence. */
export interface EvidenceGroup {
  readonly id: string;
  readonly count: number;
  readonly share: number;
  readonly waitKind: WaitKind;
  readonly state: string;
  /** `file:line` of the blocking site, with its function. */
  readonly site?: { readonly func: string; readonly file: string; readonly line: number };
  readonly wait?: { readonly min: number; readonly max: number };
  /** What this group is in the finding: the root cause or a consequence of it. */
  readonly role: 'root' | 'consequence' | 'related';
}

export interface Evidence {
  readonly groups: EvidenceGroup[];
  /** Goroutines involved in all. */
  readonly goroutines: number;
  /** One representative stack of the root group, innermost first. */
  readonly stack: SiteFrame[];
  /** Free-form facts: "112,277 of 244,377 goroutines (46%) wait here". */
  readonly facts: string[];
}

/** A location in source believed to cause the finding (filled by source analysis). */
export interface CauseLocation {
  readonly file: string;
  readonly line: number;
  readonly excerpt?: string;
  readonly message: string;
  readonly confidence: 'high' | 'medium' | 'low';
  /** The pattern found (source analysis): `consumer-exit`, `no-cancel-case`, `lock-order`… */
  readonly kind?: string;
  /** The Go function the line is in, as written in source: `(*Hub).Subscribe func literal (line 42)`. */
  readonly function?: string;
}

export interface Finding {
  readonly ruleId: string;
  readonly severity: Severity;
  readonly title: string;
  readonly explanation: string;
  readonly evidence: Evidence;
  readonly cause: string;
  readonly fix: string;
  /** Where the finding points: the root group's blocking site. */
  readonly location?: { readonly file: string; readonly line: number; readonly func: string };
  readonly causeLocations?: CauseLocation[];
  /** The snapshot the finding was made on (source + index). */
  readonly snapshot: { readonly source: string; readonly index: number };
  /** What kind of problem this is (leak, crash, race…); gates and reports may filter by it. */
  readonly category?: FindingCategory;
  /** How sure the engine is: a `goroutineleak` profile or `(leaked)` flag is `certain`. */
  readonly confidence?: 'certain' | 'high' | 'medium' | 'low';
  /** The pack of the rule (`core`, `kubernetes`, `user`). */
  readonly pack?: string;
}

export type { AnalyzedGroup };

// ---------------------------------------------------------------------------------------------
// Added by the rule engine. Finding/Evidence above keep their names; new fields are
// additive. Rules below are the shape of `rules/*.yaml` packs and of user config rules, checked by
// the JSON Schema in `schema.ts` (mirrored to `rules/leakscope.schema.json`).
// ---------------------------------------------------------------------------------------------

/** What kind of problem a finding is about; gates (`check --failOn`) and reports can filter by it. */
export type FindingCategory = 'leak' | 'contention' | 'deadlock' | 'crash' | 'race' | 'resource' | 'info';

/** Conditions on one analyzed group. Every condition given must hold (AND); regexes are JS syntax. */
export interface GroupMatch {
  /** One of these wait kinds. */
  readonly waitKind?: WaitKind | WaitKind[];
  readonly notWaitKind?: WaitKind[];
  /** Regex on the printed state(s). */
  readonly state?: string;
  /** Regex: some frame's function matches. */
  readonly func?: string;
  /** Regexes that must each match some frame's function. */
  readonly allFuncs?: string[];
  /** Regex: no frame's function matches. */
  readonly notFunc?: string;
  /** Regex: some frame's file matches. */
  readonly file?: string;
  /** Regex on the blocking site's function (the first frame in the program's own code). */
  readonly site?: string;
  /** Regex on the blocking site's file. */
  readonly siteFile?: string;
  /** The group's blocking site is (true) or is not (false) in the program's own code (origin `user`). */
  readonly userSite?: boolean;
  /**
   * The blocking site is the goroutine's own entry function (its outermost user frame, or the frame
   * just above a closure entry such as `Run.func1`): a loop goroutine (worker, event loop, ticker),
   * as opposed to a wait deep inside a call (a request waiting for one result).
   */
  readonly siteAtEntry?: boolean;
  /** Regex on the innermost frame's function. */
  readonly leaf?: string;
  /** Regex on the `created by` function. */
  readonly creator?: string;
  /** Label name → regex on its value (the label must be present). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly minCount?: number;
  readonly maxCount?: number;
  /** 0..1 of the snapshot total. */
  readonly minShare?: number;
  readonly maxShare?: number;
  /** On the longest printed wait (`, N minutes`). */
  readonly minWaitMinutes?: number;
  readonly maxWaitMinutes?: number;
  /** `(leaked)` flag or a `goroutineleak` profile. */
  readonly leaked?: boolean;
  /** The group holds the goroutine that crashed. */
  readonly crashed?: boolean;
  /** Snapshot-level: the snapshot total is at least this. */
  readonly minTotal?: number;
  /** Snapshot-level: the snapshot has a crash headline of one of these kinds (`test-timeout`, `panic`…). */
  readonly headlineKind?: string[];
}

/** Conditions for a severity level or a variant: group conditions plus what detectors found. */
export interface LevelWhen extends GroupMatch {
  /** Goroutines in consequence groups (cascade) at least. */
  readonly minConsequences?: number;
  /** Goroutines of the matched groups (all of them for an aggregate rule; not `with` companions) at least. */
  readonly minGoroutines?: number;
  /** The detector classified the finding as this variant (e.g. `pool`). */
  readonly variant?: string;
}

export interface RuleLevel {
  readonly severity: Severity;
  readonly when: LevelWhen;
}

/** Text and severity that replace the rule's own when a detector reports a variant. */
export interface RuleVariant {
  readonly severity?: Severity;
  /** Report nothing for this variant (another finding, e.g. `core/proportional`, covers it). */
  readonly omit?: boolean;
  readonly title?: string;
  readonly explanation?: string;
  readonly cause?: string;
  readonly fix?: string;
}

export interface Rule {
  /** `pack/name`, e.g. `core/blocked-send`. */
  readonly id: string;
  readonly description?: string;
  readonly category: FindingCategory;
  /** Severity when no `levels` entry applies. */
  readonly severity: Severity;
  /** First entry whose `when` holds gives the severity. */
  readonly levels?: RuleLevel[];
  /** Group conditions; a rule without `match` is driven by its detector alone. */
  readonly match?: GroupMatch;
  /** Emit a finding only when this holds (on the finding: e.g. `minGoroutines` of an aggregate). */
  readonly require?: LevelWhen;
  /** Only for groups no other rule explains: considered after every other finding has claimed its groups. */
  readonly fallback?: boolean;
  /** Companion groups folded into each finding as `related` (e.g. the writeLoop of each readLoop). */
  readonly with?: GroupMatch;
  /** Fold every matching group into one finding (e.g. one gRPC ClientConn = four groups). */
  readonly aggregate?: boolean;
  /** Attach the goroutines waiting for the matched group (WaitGroup/errgroup parents) as consequences. */
  readonly cascade?: boolean;
  /** Named detector(s) in code (`detectors/`) that find or classify what matching alone cannot. */
  readonly detector?: string | string[];
  /** Detector parameters (thresholds stay data). */
  readonly params?: Readonly<Record<string, number | string | boolean>>;
  readonly variants?: Readonly<Record<string, RuleVariant>>;
  /** Templates: `{count}`, `{share}`, `{site}`, `{func}`, `{file}`, `{line}`, `{state}`, `{wait}`, … */
  readonly title: string;
  readonly explanation: string;
  readonly cause: string;
  readonly fix: string;
  readonly enabled?: boolean;
}

export interface RulePack {
  readonly pack: string;
  readonly description?: string;
  readonly rules: Rule[];
}

/** Changes to a rule by id (user config `overrides:`); `match` and `params` merge key by key. */
export interface RuleOverride {
  readonly enabled?: boolean;
  readonly severity?: Severity;
  readonly levels?: RuleLevel[];
  readonly match?: GroupMatch;
  readonly require?: LevelWhen;
  readonly params?: Readonly<Record<string, number | string | boolean>>;
  readonly title?: string;
  readonly explanation?: string;
  readonly cause?: string;
  readonly fix?: string;
}

/** A known-benign group: matched by function/file/site regex or group id; `reason` is required. */
export interface Suppression {
  readonly func?: string;
  readonly file?: string;
  readonly site?: string;
  readonly group?: string;
  /** Only findings of this rule id (default: all). */
  readonly rule?: string;
  readonly reason: string;
}

/** Limits for the `check` command. */
export interface GateConfig {
  readonly maxTotal?: number;
  readonly maxGroup?: number;
  /** Growth between two snapshots as a ratio (0.5 = +50%). */
  readonly maxGrowth?: number;
  /** Most goroutines one group may gain from the baseline (it fails only when it also doubles); 0 = off. */
  readonly maxGroupGrowth?: number;
  /** Archive members skipped or read part-way allowed (0 = fail on any). */
  readonly maxSkipped?: number;
  readonly failOn?: Severity;
}

/** The validated content of `.leakscope.yaml` / `.leakscope.json` / `--rules FILE`. */
export interface LeakscopeConfig {
  readonly packs?: Array<'core' | 'kubernetes'>;
  readonly rules?: Rule[];
  readonly overrides?: Readonly<Record<string, RuleOverride>>;
  readonly disable?: string[];
  readonly suppress?: Suppression[];
  readonly gate?: GateConfig;
  readonly analyze?: { readonly helperPackages?: string[]; readonly userModules?: string[] };
}
