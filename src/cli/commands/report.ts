/**
 * `leakscope report INPUT… -o report.html`: the whole picture in one file (HTML by default): findings
 * and groups of every snapshot and, for a series of one process, the trend and the first-to-last diff.
 */
import { Command } from 'commander';
import { diff } from '../../analyze/compare.js';
import { trend } from '../../analyze/trend.js';
import { emit } from '../emit.js';
import { UsageError } from '../exit-codes.js';
import { expandInputs } from '../inputs.js';
import { checkOutput } from '../output.js';
import { addReportOptions, addRulesOptions, seconds, type ReportFlags, type RulesFlags } from '../options.js';
import { findingsFor, loadAll, racesOf, ruleIds, setup, withSource } from '../pipeline.js';
import { buildSeries } from '../series.js';

interface Flags extends ReportFlags, RulesFlags {
  interval?: number;
  source?: string;
}

export function reportCommand(): Command {
  const cmd = new Command('report')
    .description('write one report of one or more dumps (HTML by default): findings, groups, and for a series the trend and diff')
    .argument('<input...>', 'dump files, folders or globs')
    .option('--interval <seconds>', 'a series taken this many seconds apart, in the order given', seconds)
    .option('--source <dir>', "a checkout of the program's Go source, to point at the line that causes each leak");
  addReportOptions(cmd, { stacks: true, format: 'html' });
  addRulesOptions(cmd);
  return cmd.action(async (args: string[], flags: Flags) => {
    const inputs = expandInputs(args);
    checkOutput(flags.output, inputs.map((i) => i.path));
    const s = setup(flags);
    const loaded = await loadAll(inputs, s);
    const { samples } = buildSeries(loaded, flags.interval);
    const analyses = samples.map((x) => x.analysis);
    if (analyses.length === 0 && racesOf(loaded).length === 0) throw new UsageError(`${args.join(' ')}: no goroutine dump to report`);
    const races = racesOf(loaded);
    const findings = await withSource(findingsFor(loaded, s), analyses, flags.source);
    const series = analyses.length >= 2 ? { trend: trend(samples), diff: diff(analyses[0], analyses[analyses.length - 1]) } : {};
    await emit({ command: 'report', analyses, findings, ...series, ...(races.length ? { races } : {}) }, flags, { ruleIds: ruleIds(s) });
  });
}
