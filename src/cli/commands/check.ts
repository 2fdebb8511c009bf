/**
 * `leakscope check INPUT… [--baseline FILE]`: the CI gate. Limits come from flags, else from the
 * config file's `gate:` keys. Exit 1 when the gate fails, 0 when it passes, 2 on unusable input.
 */
import { Command, Option } from 'commander';
import { emit } from '../emit.js';
import { EXIT_GATE_FAILED, EXIT_OK, UsageError } from '../exit-codes.js';
import { checkOutput, warn } from '../output.js';
import {
  addReadOptions, addReportOptions, addRulesOptions, checkSourceDir, size, count, probability, ratio, readOptionsOf, seconds, type GateFlags,
  type ReadFlags, type ReportFlags, type RulesFlags,
} from '../options.js';
import { lastSnapshot } from './diff.js';

/**
 * With a baseline (or two inputs), a group that gains more than this many goroutines and at least
 * doubles fails the gate: the one signal two snapshots give when the format hides wait states (debug=1).
 */
const DEFAULT_MAX_GROUP_GROWTH = 50;

interface Flags extends ReportFlags, RulesFlags, GateFlags, ReadFlags {
  baseline?: string;
  interval?: number;
  alpha?: number;
  source?: string;
  sourceMaxFileSize?: number;
}

export function checkCommand(): Command {
  const cmd = new Command('check')
    .description('gate CI on dumps: exit 1 when a limit is exceeded, a finding is at --fail-on or above, or goroutines grow steadily')
    .argument('<input...>', 'dump files, folders or globs (a series is ordered like trend orders it)')
    .option('--baseline <file>', 'an earlier dump to compare the latest input with (growth, new groups)')
    .option('--max-total <n>', 'most goroutines allowed in any input', count)
    .option('--max-group <n>', 'most goroutines allowed in one group', count)
    .option('--max-growth <ratio>', 'most growth of the total from the baseline (or first input) to the latest: 0.5 or 50%', ratio)
    .option('--max-group-growth <n>', `most goroutines one group may gain from the baseline (or first input) while at least doubling; 0 turns it off (default ${DEFAULT_MAX_GROUP_GROWTH})`, count)
    .option('--max-skipped <n>', 'most archive members allowed to be skipped or read part-way (corrupt data, a bad inner header)', count)
    .option('--fail-on-skipped', 'fail when any archive member was skipped or read part-way (same as --max-skipped 0)')
    .addOption(new Option('--fail-on <severity>', 'fail on findings at or above this severity (default error)').choices(['error', 'warning', 'info']))
    .option('--interval <seconds>', 'inputs were taken this many seconds apart, in the order given', seconds)
    .option('--alpha <p>', 'significance level of the steady-growth test (default 0.05)', probability)
    .option('--source <dir>', "a checkout of the program's Go source, to point at the line that causes each leak (paths in the report become relative to it)")
    .option('--source-max-file-size <bytes>', 'with --source: Go files larger than this are not parsed (default 2MiB)', size);
  addReportOptions(cmd, { stacks: true });
  addRulesOptions(cmd);
  addReadOptions(cmd);
  return cmd.action(async (args: string[], flags: Flags) => {
    const {
      buildSeries, diff, emitFleet, evaluateGate, expandInputs, isFleet, latestFindings, load, loadAll, racesOf, ruleIds, setup, sourcePaths, trend,
      trendFindings, withSource, withSourceModules,
    } = await import('../actions.js');
    const inputs = await expandInputs(args);
    checkOutput(flags.output, [...inputs.map((i) => i.path), ...(flags.baseline ? [flags.baseline] : [])]);
    checkSourceDir(flags.source);
    const s = setup(flags);
    const readOptions = readOptionsOf(flags);
    const baseline = flags.baseline ? lastSnapshot((await load({ path: flags.baseline, listed: false }, s, readOptions))!) : undefined;
    const loaded = await withSourceModules(await loadAll(inputs, s, readOptions), s, flags.source);
    const g = s.config.gate ?? {};
    const failOn = flags.failOn ?? g.failOn;
    const limits = {
      ...pick('maxTotal', flags.maxTotal ?? g.maxTotal),
      ...pick('maxGroup', flags.maxGroup ?? g.maxGroup),
      ...pick('maxGrowth', flags.maxGrowth ?? g.maxGrowth),
      ...pick('maxGroupGrowth', flags.maxGroupGrowth ?? g.maxGroupGrowth ?? DEFAULT_MAX_GROUP_GROWTH),
      ...pick('maxSkipped', flags.failOnSkipped ? 0 : flags.maxSkipped ?? g.maxSkipped),
      ...(failOn ? { failOn } : {}),
    };
    if (!baseline && isFleet(loaded)) {
      // Several processes (a support bundle): each is gated on its own series; the gate fails if any fails.
      const j = await emitFleet('check', loaded, s, flags, { ...(flags.interval ? { interval: flags.interval } : {}), ...(flags.alpha ? { alpha: flags.alpha } : {}), gate: limits });
      process.exitCode = j.gate!.passed ? EXIT_OK : EXIT_GATE_FAILED;
      return;
    }
    const { samples } = buildSeries(loaded, flags.interval);
    const analyses = samples.map((x) => x.analysis);
    const latest = analyses[analyses.length - 1];
    if (!latest) throw new UsageError(`${args.join(' ')}: no goroutine dump to check`);
    const first = baseline ?? (analyses.length > 1 ? analyses[0] : undefined);
    const d = first ? diff(first, latest) : undefined;
    // The baseline is older than every input: one typical interval before the first.
    const gap = samples.length > 1 ? (samples[samples.length - 1].time - samples[0].time) / (samples.length - 1) || 60_000 : 60_000;
    const series = baseline ? [{ analysis: baseline, time: samples[0].time - gap }, ...samples] : samples;
    const t = series.length >= 3 ? trend(series, flags.alpha !== undefined ? { alpha: flags.alpha } : {}) : undefined;
    // Rules judge the current state: the latest snapshot (with its dump's race reports).
    const findings = await withSource([...latestFindings(loaded, latest, s, analyses), ...(t ? trendFindings(t) : [])], analyses, flags.source, flags.sourceMaxFileSize);
    const paths = sourcePaths(findings, flags.source);
    if ((flags.maxGrowth ?? g.maxGrowth) !== undefined && !d) warn('max-growth needs --baseline or two or more inputs; not checked');
    const gate = evaluateGate({ analyses, findings, ...(d ? { diff: d } : {}), ...(t ? { trend: t } : {}), skipped: loaded.bundleSkipped ?? [] }, limits);
    const races = racesOf(loaded);
    await emit(
      {
        command: 'check', analyses, findings, gate, ...(d ? { diff: d } : {}), ...(t ? { trend: t } : {}), ...(races.length ? { races } : {}),
        ...(s.rules ? {} : { rulesSkipped: true }),
      },
      flags,
      { ruleIds: ruleIds(s), ...(paths.mappings.length ? { pathPrefixes: paths.mappings } : {}), ...(paths.srcRoot ? { srcRoot: paths.srcRoot } : {}) },
    );
    process.exitCode = gate.passed ? EXIT_OK : EXIT_GATE_FAILED;
  });
}

function pick<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
