/**
 * The error of an unusable config file, apart from the config code: the CLI tells it from other
 * errors before it has loaded that code (a usage error, --help and --version never do).
 */
import { formatIssue, type ValidationIssue } from './validate.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The CLI exits with this code (unusable input, arguments or config). */
  readonly exitCode = 2;
  constructor(
    /** The config file as shown in messages (relative to the working directory when shorter). */
    readonly file: string,
    readonly issues: ValidationIssue[],
  ) {
    super(issues.map(formatIssue).join('\n'));
  }
}

export function isConfigError(e: unknown): e is ConfigError {
  return e instanceof ConfigError;
}
