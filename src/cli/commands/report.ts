/**
 * `leakscope report INPUT… -o report.html`: the whole picture in one file (HTML by default). The
 * inputs are a series of one process (like `check`): the rules judge the latest snapshot, and with
 * two or more snapshots the trend and the first-to-last diff are added, trend findings included.
 */
import { Command } from 'commander';
import { emit } from '../emit.js';
import { UsageError } from '../exit-codes.js';
import { checkOutput } from '../output.js';
import {
  addReadOptions, addReportOptions, addRulesOptions, checkSourceDir, size, readOptionsOf, seconds, type ReadFlags, type ReportFlags, type RulesFlags,
} from '../options.js';
import { byGrowth } from './diff.js';

interface Flags extends ReportFlags, RulesFlags, ReadFlags {
  interval?: number;
  source?: string;
  sourceMaxFileSize?: number;
}

export function reportCommand(): Command {
  const cmd = new Command('report')
    .description('write one report of one or more dumps (HTML by default): findings, groups, and for a series the trend and diff')
    .argument('<input...>', 'dump files, folders or globs')
    .option('--interval <seconds>', 'a series taken this many seconds apart, in the order given', seconds)
    .option('--source <dir>', "a checkout of the program's Go source, to point at the line that causes each leak (paths in the report become relative to it)")
    .option('--source-max-file-size <bytes>', 'with --source: Go files larger than this are not parsed (default 2MiB)', size);
  addReportOptions(cmd, { stacks: true, format: 'html' });
  addRulesOptions(cmd);
  addReadOptions(cmd);
  return cmd.action(async (args: string[], flags: Flags) => {
    const {
      buildSeries, diff, emitFleet, expandInputs, isFleet, latestFindings, loadAll, racesOf, ruleIds, setup, sourcePaths, trend, trendFindings, withSource,
      withSourceModules,
    } = await import('../actions.js');
    const inputs = await expandInputs(args);
    checkOutput(flags.output, inputs.map((i) => i.path));
    checkSourceDir(flags.source);
    const s = setup(flags);
    const loaded = await withSourceModules(await loadAll(inputs, s, readOptionsOf(flags)), s, flags.source);
    if (isFleet(loaded)) {
      // Several processes (a support bundle): the fleet summary, then each process's latest snapshot.
      await emitFleet('report', loaded, s, flags, flags.interval ? { interval: flags.interval } : {});
      return;
    }
    const { samples } = buildSeries(loaded, flags.interval);
    const analyses = samples.map((x) => x.analysis);
    if (analyses.length === 0 && racesOf(loaded).length === 0) throw new UsageError(`${args.join(' ')}: no goroutine dump to report`);
    const races = racesOf(loaded);
    const series = analyses.length >= 2 ? { trend: trend(samples), diff: byGrowth(diff(analyses[0], analyses[analyses.length - 1])) } : {};
    // Like check: the rules judge the current state (the latest snapshot); the trend judges the series.
    const ruled = latestFindings(loaded, analyses[analyses.length - 1], s, analyses);
    const findings = await withSource([...ruled, ...(series.trend ? trendFindings(series.trend) : [])], analyses, flags.source, flags.sourceMaxFileSize);
    const paths = sourcePaths(findings, flags.source);
    await emit(
      { command: 'report', analyses, findings, ...series, ...(races.length ? { races } : {}), ...(s.rules ? {} : { rulesSkipped: true }) },
      flags,
      { ruleIds: ruleIds(s), ...(paths.mappings.length ? { pathPrefixes: paths.mappings } : {}), ...(paths.srcRoot ? { srcRoot: paths.srcRoot } : {}) },
    );
  });
}
