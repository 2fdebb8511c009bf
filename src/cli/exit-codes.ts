/**
 * Exit codes of the `leakscope` CLI (documented in docs/cli.md).
 * - 0: the command ran; for `check`, the gate passed.
 * - 1: `check` only: the gate failed (a limit was exceeded or a finding at `--fail-on` or above).
 * - 2: unusable input, arguments or config: one line on stderr names the input and what is wrong.
 * - 70: an unexpected error, which is a bug in leakscope (EX_SOFTWARE).
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

export function isUsageError(e: unknown): e is UsageError {
  return e instanceof UsageError;
}
