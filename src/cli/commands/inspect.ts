/**
 * `leakscope inspect INPUT…`: read, analyze and diagnose each dump; findings first, then the groups.
 * Several inputs (or a file of several dumps) need not be one process: every snapshot is judged on
 * its own, and a finding repeated in several snapshots (same rule, same site) is shown once, from the
 * latest snapshot that has it. For a series of one process use `report` or `check`, which judge the
 * latest snapshot and add the trend.
 */
import { Command } from 'commander';
import { emit } from '../emit.js';
import { UsageError } from '../exit-codes.js';
import { checkOutput } from '../output.js';
import {
  addReadOptions, addReportOptions, addRulesOptions, checkSourceDir, size, readOptionsOf, type ReadFlags, type ReportFlags, type RulesFlags,
} from '../options.js';

interface Flags extends ReportFlags, RulesFlags, ReadFlags {
  source?: string;
  sourceMaxFileSize?: number;
}

export function inspectCommand(): Command {
  const cmd = new Command('inspect')
    .description('show what the goroutines of one or more dumps wait on, and diagnose leaks')
    .argument('<input...>', 'dump files (text, gzip or protobuf), folders or globs of them, - for stdin, or an http(s) URL of /debug/pprof/goroutine');
  addReportOptions(cmd, { stacks: true });
  addRulesOptions(cmd);
  cmd.option('--source <dir>', "a checkout of the program's Go source, to point at the line that causes each leak (paths in the report become relative to it)");
  cmd.option('--source-max-file-size <bytes>', 'with --source: Go files larger than this are not parsed (default 2MiB)', size);
  addReadOptions(cmd);
  return cmd.action(async (args: string[], flags: Flags) => {
    const { collapseRepeats, emitFleet, expandInputs, findingsFor, isFleet, loadAll, racesOf, ruleIds, setup, sourcePaths, withSource, withSourceModules } = await import('../actions.js');
    // Folders and globs expand as for trend and check; a file found that way that is not a dump is
    // skipped with a warning, a file named on the command line is an error.
    const inputs = await expandInputs(args);
    checkOutput(flags.output, inputs.map((i) => i.path));
    checkSourceDir(flags.source);
    const s = setup(flags);
    const loaded = await withSourceModules(await loadAll(inputs, s, readOptionsOf(flags)), s, flags.source);
    if (isFleet(loaded)) {
      // Several processes (a support bundle): each judged as a series, one finding per problem.
      await emitFleet('inspect', loaded, s, flags);
      return;
    }
    const analyses = loaded.flatMap((l) => l.analyses);
    const races = racesOf(loaded);
    if (analyses.length === 0 && races.length === 0) throw new UsageError(`${args.join(' ')}: no goroutine dump found`);
    const findings = await withSource(collapseRepeats(findingsFor(loaded, s)), analyses, flags.source, flags.sourceMaxFileSize);
    const paths = sourcePaths(findings, flags.source);
    await emit(
      { command: 'inspect', analyses, findings, ...(races.length ? { races } : {}), ...(s.rules ? {} : { rulesSkipped: true }) },
      flags,
      { ruleIds: ruleIds(s), ...(paths.mappings.length ? { pathPrefixes: paths.mappings } : {}), ...(paths.srcRoot ? { srcRoot: paths.srcRoot } : {}) },
    );
  });
}
