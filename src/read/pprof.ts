/**
 * pprof protobuf goroutine / goroutineleak profiles (debug=0), through pprof-format.
 * STUB: owned by the pprof reader work.
 */
import type { Snapshot } from '../model/dump.js';
import { InputError } from './errors.js';

export function readPprof(source: string, _bytes: Uint8Array, _o: { truncated: boolean }): Snapshot {
  throw new InputError(source, 'bad-protobuf', 'not implemented');
}
