/** `leakscope diff BEFORE AFTER`: groups matched by normalized signature across any two formats. */
import { Command } from 'commander';
import { diff } from '../../analyze/compare.js';
import type { Analysis } from '../../analyze/types.js';
import { emit } from '../emit.js';
import { checkOutput, warn } from '../output.js';
import { addReportOptions, type ReportFlags } from '../options.js';
import { load, setup, type LoadedInput } from '../pipeline.js';
import { UsageError } from '../exit-codes.js';

export function diffCommand(): Command {
  const cmd = new Command('diff')
    .description('compare two dumps of one process: per group before, after, delta and growth; new and vanished groups')
    .argument('<before>', 'the earlier dump')
    .argument('<after>', 'the later dump');
  addReportOptions(cmd);
  return cmd.action(async (beforePath: string, afterPath: string, flags: ReportFlags) => {
    checkOutput(flags.output, [beforePath, afterPath]);
    const s = setup({ rules: false, level: flags.level });
    const before = lastSnapshot((await load({ path: beforePath, listed: false }, s))!);
    const after = lastSnapshot((await load({ path: afterPath, listed: false }, s))!);
    await emit({ command: 'diff', analyses: [before, after], findings: [], diff: diff(before, after) }, flags);
  });
}

/** The latest snapshot of an input (a file may hold several dumps; the last one is compared). */
export function lastSnapshot(l: LoadedInput): Analysis {
  const last = l.analyses[l.analyses.length - 1];
  if (!last) throw new UsageError(`${l.path}: holds no goroutine dump to compare (only race reports)`);
  if (l.analyses.length > 1) warn(`${l.path}: holds ${l.analyses.length} dumps; comparing the last one`);
  return last;
}
