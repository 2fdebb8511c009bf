/** `leakscope trend INPUT…`: growth per group over a series of dumps, with a test of steady growth. */
import { Command } from 'commander';
import { emit } from '../emit.js';
import { UsageError } from '../exit-codes.js';
import { checkOutput, warn } from '../output.js';
import { addReadOptions, addReportOptions, probability, readOptionsOf, seconds, type ReadFlags, type ReportFlags } from '../options.js';

interface Flags extends ReportFlags, ReadFlags {
  interval?: number;
  alpha?: number;
}

export function trendCommand(): Command {
  const cmd = new Command('trend')
    .description('test a series of dumps for steady growth per group (Mann-Kendall), with rates and sparklines')
    .argument('<input...>', 'dump files, folders or globs; ordered by capture time, else a time in the name, else mtime')
    .option('--interval <seconds>', 'snapshots were taken this many seconds apart, in the order given', seconds)
    .option('--alpha <p>', 'significance level of the growth test (default 0.05)', probability);
  addReportOptions(cmd);
  addReadOptions(cmd);
  return cmd.action(async (args: string[], flags: Flags) => {
    const { buildSeries, emitFleet, expandInputs, isFleet, loadAll, setup, trend, trendFindings } = await import('../actions.js');
    const inputs = await expandInputs(args);
    checkOutput(flags.output, inputs.map((i) => i.path));
    const s = setup({ rules: false, level: flags.level });
    const loaded = await loadAll(inputs, s, readOptionsOf(flags));
    if (isFleet(loaded)) {
      // Several processes: a trend per process, shown as the fleet summary with the trend findings.
      await emitFleet('trend', loaded, s, flags, { ...(flags.interval ? { interval: flags.interval } : {}), ...(flags.alpha ? { alpha: flags.alpha } : {}) });
      return;
    }
    const { samples, timeSource, note } = buildSeries(loaded, flags.interval);
    if (samples.length < 2) throw new UsageError(`trend needs at least 2 snapshots; ${args.join(' ')} hold${args.length === 1 ? 's' : ''} ${samples.length}`);
    if (!note && (timeSource === 'file mtime' || timeSource === 'input order')) {
      warn(`no capture times in the dumps or their names; ordered by ${timeSource} (use --interval SECONDS if the files were taken at a fixed interval)`);
    }
    const t = trend(samples, flags.alpha !== undefined ? { alpha: flags.alpha } : {});
    await emit({ command: 'trend', analyses: samples.map((x) => x.analysis), findings: trendFindings(t), trend: t }, flags);
  });
}
