/**
 * The one error type readers throw for unusable input. The CLI prints `message` as one line (it already
 * names the input) and exits 2; anything else escaping a reader is a bug.
 */
export type InputErrorCode =
  | 'not-found'
  | 'unreadable'
  | 'empty'
  | 'not-a-dump'
  | 'wrong-profile'
  | 'bad-protobuf'
  | 'bad-gzip'
  | 'too-large'
  | 'line-too-long'
  | 'too-many-snapshots'
  | 'network'
  | 'http-status';

export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly source: string,
    readonly code: InputErrorCode,
    detail: string,
  ) {
    super(`${source}: ${detail}`);
  }
}

export function isInputError(e: unknown): e is InputError {
  return e instanceof InputError;
}
