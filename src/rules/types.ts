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

/** A location in source believed to cause the finding (filled by source analysis, issue 5). */
export interface CauseLocation {
  readonly file: string;
  readonly line: number;
  readonly excerpt?: string;
  readonly message: string;
  readonly confidence: 'high' | 'medium' | 'low';
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
}

export type { AnalyzedGroup };
