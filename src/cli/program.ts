/**
 * The `leakscope` command line: commander → typed flags → library → one write → exit code. Usage errors
 * (commander, with `exitOverride`), unusable input and bad config print ONE line on stderr and exit
 * 2; a failed `check` gate exits 1; anything unexpected prints one line marked as a bug and exits
 * 70. `process.exitCode` is set, never `process.exit()`, so output is flushed.
 */
import { Command, CommanderError } from 'commander';
import { isInputError } from '../read/errors.js';
import { checkCommand } from './commands/check.js';
import { diffCommand } from './commands/diff.js';
import { inspectCommand } from './commands/inspect.js';
import { reportCommand } from './commands/report.js';
import { trendCommand } from './commands/trend.js';
import { watchCommand } from './commands/watch.js';
import { isConfigError } from '../rules/config-error.js';
import { toolVersion } from './emit.js';
import { EXIT_BUG, EXIT_OK, EXIT_USAGE, isUsageError, StoppedBySignal } from './exit-codes.js';
import { takeStdoutFailure, watchStdio } from './output.js';

/** Messages may carry a file name with a newline in it: keep every error to one line. */
function oneLine(s: string): string {
  return s.replace(/\s*\r?\n\s*/g, ' ').trim();
}

function configure(cmd: Command, name: string): Command {
  return cmd
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      outputError: (s, write) => write(`${name}: ${oneLine(s.replace(/^error:\s*/, ''))}\n`),
    });
}

export function program(): Command {
  const root = configure(new Command('leakscope'), 'leakscope')
    .description('Find goroutine leaks in Go goroutine dumps')
    .version(toolVersion(), '-V, --version')
    .helpCommand(true);
  for (const make of [inspectCommand, diffCommand, trendCommand, checkCommand, watchCommand, reportCommand]) {
    const cmd = make();
    root.addCommand(configure(cmd, `leakscope ${cmd.name()}`));
  }
  return root;
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT_OK;
      return EXIT_USAGE;
    }
    if (isInputError(e) || isUsageError(e)) {
      process.stderr.write(`leakscope: ${oneLine(e.message)}\n`);
      return EXIT_USAGE;
    }
    if (e instanceof StoppedBySignal) {
      process.stderr.write(`leakscope: ${oneLine(e.message)}\n`);
      return e.exitCode;
    }
    if (isConfigError(e)) {
      for (const line of e.message.split('\n')) process.stderr.write(`leakscope: ${line}\n`);
      return EXIT_USAGE;
    }
    const msg = e instanceof Error ? e.message : String(e);
    process.stderr.write(`leakscope: internal error: ${oneLine(msg)} (this is a bug)\n`);
    if (process.env.LEAKSCOPE_DEBUG && e instanceof Error && e.stack) process.stderr.write(e.stack + '\n');
    return EXIT_BUG;
  }
}

/** Runs the command `argv` names, as the binary does: its exit code goes to `process.exitCode`. */
export async function runCli(argv: readonly string[]): Promise<void> {
  watchStdio();
  process.exitCode = await main(argv);
  // Output written outside a report (help, version) that could not be written; a report's failure
  // was said already (exit 2), and a write after it may fail again.
  const failure = await takeStdoutFailure('the output');
  if (failure && process.exitCode !== EXIT_USAGE) {
    process.stderr.write(`leakscope: ${failure.message}\n`);
    process.exitCode = EXIT_USAGE;
  }
}
