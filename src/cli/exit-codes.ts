/**
 * Exit codes of the `leakscope` CLI (documented in docs/cli.md).
 * - 0: the command ran; for `check`, the gate passed.
 * - 1: `check` only: the gate failed (a limit was exceeded or a finding at `--fail-on` or above).
 * - 2: unusable input, arguments or config: one line on stderr names the input and what is wrong.
 * - 70: an unexpected error, which is a bug in leakscope (EX_SOFTWARE).
 * - 130, 143: `watch` stopped by SIGINT or SIGTERM before it had anything to report (128 + the
 *   signal's number, as a shell reports a process the signal ended).
 */
export const EXIT_OK = 0;
export const EXIT_GATE_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_BUG = 70;

/** A bad argument noticed after parsing (an output path equal to an input, a bad regex…): exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly exitCode = EXIT_USAGE;
}

/** A command stopped by a signal with nothing to report: one line on stderr, exit 128 + the signal's number. */
export class StoppedBySignal extends Error {
  override readonly name = 'StoppedBySignal';
  readonly exitCode: number;

  constructor(message: string, signal: 'SIGINT' | 'SIGTERM') {
    super(message);
    this.exitCode = 128 + (signal === 'SIGINT' ? 2 : 15);
  }
}

export function isUsageError(e: unknown): e is UsageError {
  return e instanceof UsageError;
}
