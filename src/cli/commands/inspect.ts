/** `leakscope inspect INPUT…`: read, analyze and diagnose each dump; findings first, then the groups. */
import { Command } from 'commander';
import { emit } from '../emit.js';
import { checkOutput } from '../output.js';
import { addReportOptions, addRulesOptions, type ReportFlags, type RulesFlags } from '../options.js';
import { findingsFor, loadAll, racesOf, ruleIds, setup, withSource } from '../pipeline.js';

interface Flags extends ReportFlags, RulesFlags {
  source?: string;
}

export function inspectCommand(): Command {
  const cmd = new Command('inspect')
    .description('show what the goroutines of one or more dumps wait on, and diagnose leaks')
    .argument('<input...>', 'dump files (text, gzip or protobuf), - for stdin, or an http(s) URL of /debug/pprof/goroutine');
  addReportOptions(cmd, { stacks: true });
  addRulesOptions(cmd);
  cmd.option('--source <dir>', "a checkout of the program's Go source, to point at the line that causes each leak");
  return cmd.action(async (inputs: string[], flags: Flags) => {
    checkOutput(flags.output, inputs);
    const s = setup(flags);
    const loaded = await loadAll(inputs.map((path) => ({ path, listed: false })), s);
    const analyses = loaded.flatMap((l) => l.analyses);
    const races = racesOf(loaded);
    const findings = await withSource(findingsFor(loaded, s), analyses, flags.source);
    await emit({ command: 'inspect', analyses, findings, ...(races.length ? { races } : {}) }, flags, { ruleIds: ruleIds(s) });
  });
}
