/**
 * The text dispatcher: takes every line of a text input (any log prefix, go test -json, markdown
 * escaping undone by unwrap.ts), finds where dumps start, and routes lines to the reader of that
 * format: debug1.ts (`<name> profile: total N`), traceback.ts (debug=2 / crash / SIGQUIT) and race.ts
 * (`WARNING: DATA RACE`). Text that belongs to no dump is skipped and counted, never fatal.
 *
 * STUB: owned by the traceback/text reader work.
 */
import type { Dump } from '../model/dump.js';
import { InputError } from './errors.js';

export interface TextReadOptions {
  /** Snapshots at most per input (default 10,000). */
  maxSnapshots?: number;
}

export class TextDumpReader {
  constructor(
    readonly source: string,
    readonly opts: TextReadOptions = {},
  ) {}

  line(_text: string, _no: number): void {}

  end(_o: { inputTruncated: boolean }): Dump {
    throw new InputError(this.source, 'not-a-dump', 'not implemented');
  }
}
