/**
 * runRules(analysis, opts) → findings, most severe first, then by goroutines.
 * Rules are data (`rules/core.yaml`, `rules/kubernetes.yaml`, user config); detectors are code
 * (`detectors/`) that rules switch on by name.
 */
import type { Analysis } from '../analyze/types.js';
import type { RaceReport } from '../model/dump.js';
import type { ResolvedRule } from './candidate.js';
import { DETECTORS } from './detectors/index.js';
import { runEngine, SEVERITY_RANK } from './engine.js';
import { textOrder } from './collate.js';
import { resolveRules } from './packs.js';
import type { Finding, LeakscopeConfig, RulePack } from './types.js';

export interface RunRulesOptions {
  /** A validated user config (see `loadConfig` in `config.ts`). */
  config?: LeakscopeConfig;
  /** Extra rule packs (already validated, e.g. with `parsePack`). */
  packs?: RulePack[];
  /**
   * Race reports of the dump (`Dump.races`). Pass them with ONE snapshot of a dump (they are not
   * per snapshot), or use `diagnoseRaces` for a dump without snapshots.
   */
  races?: readonly RaceReport[];
  /** Only rules of these categories (e.g. `['crash']`). */
  categories?: readonly NonNullable<Finding['category']>[];
  /** Rules to run instead of the resolved built-ins + config (tests, tools). */
  rules?: readonly ResolvedRule[];
}

export function runRules(analysis: Analysis, opts: RunRulesOptions = {}): Finding[] {
  let rules = opts.rules ?? resolveRules(opts.config, opts.packs);
  if (opts.categories) rules = rules.filter((r) => opts.categories!.includes(r.category));
  const findings = runEngine({
    analysis,
    rules,
    detectors: DETECTORS,
    suppress: opts.config?.suppress,
    races: opts.races,
  });
  return sortFindings(findings);
}

/** Most severe first, then most goroutines, then rule id and location: a stable order. */
export function sortFindings(findings: Finding[]): Finding[] {
  return findings.slice().sort(
    (a, b) =>
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      b.evidence.goroutines - a.evidence.goroutines ||
      textOrder(a.ruleId, b.ruleId) ||
      textOrder(a.location?.file ?? '', b.location?.file ?? '') ||
      (a.location?.line ?? 0) - (b.location?.line ?? 0),
  );
}

/** Crash findings only (headline + crashed goroutine): `concurrent map writes`, panics, deadlocks. */
export function diagnoseCrash(analysis: Analysis, opts: Omit<RunRulesOptions, 'categories'> = {}): Finding[] {
  return runRules(analysis, { ...opts, categories: ['crash', 'deadlock'] });
}

/** Race findings for a dump that may have no goroutine snapshot at all (a `go test -race` log). */
export function diagnoseRaces(
  races: readonly RaceReport[],
  opts: Omit<RunRulesOptions, 'categories' | 'races'> & { source?: string } = {},
): Finding[] {
  if (!races.length) return [];
  const source = opts.source ?? races[0].source;
  const empty: Analysis = {
    snapshot: { source, index: 0, format: 'debug2', profile: 'goroutine', total: 0, truncated: false, groups: [], links: [], warnings: [] },
    level: 'exact',
    total: 0,
    groups: [],
    byWaitKind: {},
    links: [],
  };
  return runRules(empty, { ...opts, races, categories: ['race'] });
}

export { resolveRules, builtinRules, builtinPack, parsePack, knownRuleIds, BUILTIN_PACKS, RULES_DIR } from './packs.js';
export { DETECTORS } from './detectors/index.js';
export { configSchema, packSchema, schemaDocument } from './schema.js';
export { parseText, validateParsed, formatIssue, type ValidationIssue } from './validate.js';
export type { ResolvedRule, Detector, Candidate, RuleContext } from './candidate.js';
export type * from './types.js';
