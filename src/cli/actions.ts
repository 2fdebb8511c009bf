/**
 * What the commands' actions run (reading, analysis, rules, series, fleets, source), imported by an
 * action when it runs: `--version`, `--help` and usage errors need only the commands' definitions,
 * and the bundle (scripts/bundle-cli.mjs) puts what is here in a chunk that they do not parse.
 */
export { diff } from '../analyze/compare.js';
export { analyze } from '../analyze/index.js';
export { trend } from '../analyze/trend.js';
export { readDump } from '../read/index.js';
export { evaluateGate, trendFindings } from '../report/gate.js';
export { escalateGrowth } from '../rules/growth.js';
export { emitFleet, isFleet } from './fleet.js';
export { expandInputs } from './inputs.js';
export { collapseRepeats, latestFindings, sourcePaths } from './judge.js';
export { findingsFor, load, loadAll, racesOf, reportWarnings, ruleIds, setup, withSource, withSourceModules } from './pipeline.js';
export { buildSeries } from './series.js';
