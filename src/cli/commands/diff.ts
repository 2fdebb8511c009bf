/** `leakscope diff BEFORE AFTER`: groups matched by normalized signature across any two formats. */
import { Command } from 'commander';
import type { DiffResult } from '../../analyze/compare.js';
import type { Analysis } from '../../analyze/types.js';
import { emit } from '../emit.js';
import { checkOutput, warn } from '../output.js';
import { addReadOptions, addReportOptions, readOptionsOf, type ReadFlags, type ReportFlags } from '../options.js';
import { UsageError } from '../exit-codes.js';
import type { LoadedInput } from '../types.js';

export function diffCommand(): Command {
  const cmd = new Command('diff')
    .description('compare two dumps of one process: per group before, after, delta and growth; new and vanished groups')
    .argument('<before>', 'the earlier dump')
    .argument('<after>', 'the later dump');
  addReportOptions(cmd);
  addReadOptions(cmd);
  return cmd.action(async (beforePath: string, afterPath: string, flags: ReportFlags & ReadFlags) => {
    const { diff, load, setup } = await import('../actions.js');
    checkOutput(flags.output, [beforePath, afterPath]);
    const s = setup({ rules: false, level: flags.level });
    const readOptions = readOptionsOf(flags);
    const before = lastSnapshot((await load({ path: beforePath, listed: false }, s, readOptions))!);
    const after = lastSnapshot((await load({ path: afterPath, listed: false }, s, readOptions))!);
    await emit({ command: 'diff', analyses: [before, after], findings: [], diff: byGrowth(diff(before, after)) }, flags);
  });
}

/**
 * Groups sorted by growth: most goroutines gained first (delta, descending); on equal delta the
 * larger growth ratio first, a new group (ratio ∞) before a grown one; then the larger count after,
 * then the group key. Unchanged groups follow the grown ones and vanished groups (delta < 0) end the list.
 */
export function byGrowth(d: DiffResult): DiffResult {
  const ratio = (g: DiffResult['groups'][number]) => (g.growth === null ? Infinity : g.growth);
  const groups = [...d.groups].sort(
    (x, y) =>
      y.delta - x.delta ||
      (ratio(x) === ratio(y) ? 0 : ratio(y) > ratio(x) ? 1 : -1) ||
      y.after - x.after ||
      (x.key < y.key ? -1 : x.key > y.key ? 1 : 0),
  );
  return { ...d, groups };
}

/** The latest snapshot of an input (a file may hold several dumps; the last one is compared). */
export function lastSnapshot(l: LoadedInput): Analysis {
  const last = l.analyses[l.analyses.length - 1];
  if (!last) throw new UsageError(`${l.path}: holds no goroutine dump to compare (only race reports)`);
  if (l.analyses.length > 1) warn(`${l.path}: holds ${l.analyses.length} dumps; comparing the last one`);
  return last;
}
