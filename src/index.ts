/**
 * leakscope as a library: the same stages as the CLI, in pipeline order.
 * read → analyze (→ compare / trend) → rules (→ source) → report.
 */

// Model: what every reader produces.
export type * from './model/dump.js';
export { WAIT_KINDS, MAX_ID_SAMPLE, MAX_DETAILED } from './model/dump.js';

// Read: files, stdin, URLs, buffers → Dump.
export { readDump, readDumpFrom, InputError, isInputError } from './read/index.js';
export type { ReadOptions, InputErrorCode } from './read/index.js';
// Several inputs on worker threads, or one large debug=2 file in parts (merged exactly).
export { readDumps, readDumpsSettled } from './read/parallel.js';
export type { ParallelOptions, ReadOutcome } from './read/parallel.js';

// Analyze: groups by normalized signature, blocking sites, links; comparisons over snapshots.
export { analyze } from './analyze/index.js';
export type { Analysis, AnalyzedGroup, AnalyzeOptions, FrameOrigin, GroupLink, SiteFrame, SimilarityLevel } from './analyze/types.js';
// Who waits for whom (debug=2 and crash dumps): objects from frame arguments, `Analysis.waits`.
export { waitGraph, argWords } from './analyze/index.js';
export type { Identity, WaitFrame, WaitGraph, WaitObject, WaitOn, Waiter } from './analyze/types.js';
export { diff } from './analyze/compare.js';
// Goroutines blocked writing to stalled peers, and gRPC connections per side (what core/backpressure and core/grpc-client-conns count).
export { grpcConnections, peerWrites } from './analyze/peers.js';
export type { GrpcConnections, PeerWriteGroup, PeerWriteKind, PeerWrites } from './analyze/peers.js';
export type { DiffResult, GroupChange, GroupDiff, SnapshotRef } from './analyze/compare.js';
export { trend, sparkline } from './analyze/trend.js';
export type { GroupTrend, SeriesTrend, TrendOptions, TrendPoint, TrendResult, TrendSample, TrendState } from './analyze/trend.js';
export { MIN_TREND_SNAPSHOTS, snapshotsNeeded } from './analyze/trend.js';
export { mannKendall, senSlope, holm } from './analyze/trend-stats.js';
export type { MannKendall } from './analyze/trend-stats.js';

// Rules: findings with evidence, cause and fix; the user config.
export { runRules, diagnoseCrash, diagnoseRaces, builtinRules, resolveRules } from './rules/index.js';
export type { RunRulesOptions } from './rules/index.js';
// The deadlock patterns of a wait-for graph (double locks, lock cycles, locks held while blocked, stuck waits).
export { waitPatterns } from './rules/waits/index.js';
export type { HeldLock, LockCycle, SelfLock, StuckWait, WaitPatterns } from './rules/waits/index.js';
export type {
  CauseLocation, Evidence, EvidenceGroup, Finding, FindingCategory, GateConfig, LeakscopeConfig, Rule, RulePack, Severity,
} from './rules/types.js';
export { loadConfig, parseConfig, findConfig, ConfigError, isConfigError, CONFIG_NAMES } from './rules/config.js';
export type { LoadConfigOptions, LoadedConfig } from './rules/config.js';

// Source: the line that causes a leak, from the program's Go source.
export { explainWithSource } from './source/index.js';
export type { ExplainOptions, ExplainResult } from './source/index.js';

// Report: pure renderers `(input, opts) => string`, registered by format name (and JSON's in pieces,
// `writeJson`); the check gate.
export {
  FORMATS, isFormat, getRenderer, getPieceRenderer, render, renderTable, renderJson, writeJson, renderMarkdown, renderSarif, renderJunit, renderGithub,
  evaluateGate, trendFindings, reportJsonSchema, JSON_SCHEMA_VERSION, ANSI, PLAIN,
} from './report/index.js';
export type { FormatName, GateFacts, GateLimits, PieceRenderer } from './report/index.js';
export type {
  GateLimit, GateLimitName, GateResult, GateSubject, Palette, PathMapping, Renderer, RenderOptions, ReportCommand, ReportInput,
} from './report/types.js';
