/**
 * The protobuf branch of the path (pipeline.ts): a pprof profile is decoded whole (pprof.ts), so its
 * bytes are collected up to a limit. While they come, their top-level fields are walked: bytes that
 * stop being a Profile (noise that happened to start like one) end the read there, not at the limit.
 */
import type { Dump } from '../model/dump.js';
import { InputError } from './errors.js';
import type { ReadOptions } from './options.js';
import { readPprof } from './pprof.js';

const DEFAULT_MAX_PROTOBUF = 512 * 1024 * 1024;

/** Read a protobuf profile: `first` is its first (gunzipped) chunk, `rest` the others. */
export async function readProtobuf(
  source: string,
  first: Uint8Array,
  rest: AsyncIterable<Uint8Array>,
  inputCut: () => boolean,
  opts: ReadOptions,
): Promise<Dump> {
  const max = opts.maxProtobufBytes ?? DEFAULT_MAX_PROTOBUF;
  const parts: Uint8Array[] = [];
  const walk = new TopLevelFields(max);
  let size = 0;
  const take = (c: Uint8Array): boolean => {
    size += c.byteLength;
    if (size > max) throw new InputError(source, 'too-large', `protobuf profile larger than ${max} bytes (raise with --max-protobuf)`);
    parts.push(c);
    return walk.push(c);
  };
  let fine = take(first);
  if (fine) {
    for await (const c of rest) {
      if (!take(c)) {
        fine = false;
        break;
      }
    }
  }
  const bytes = Buffer.concat(parts);
  if (!fine && walk.declared !== undefined) {
    throw new InputError(source, 'bad-protobuf', `is not a readable pprof protobuf: field ${walk.declared.field} at byte ${walk.declared.at} declares ${walk.declared.length} bytes, more than the largest profile read (${max} bytes); stopped reading there`);
  }
  // Refused by the walk: what was read holds the offending field whole, and pprof.ts names it.
  const snapshot = readPprof(source, bytes, { truncated: fine && inputCut() });
  return { source, snapshots: [snapshot], races: [], warnings: [] };
}

/** profile.proto's top-level fields that hold a message or a string (never a varint). */
const LENGTH_DELIMITED = new Set([1, 2, 3, 4, 5, 6, 11]);

/**
 * The top-level fields of a Profile, walked byte by byte across chunks: `push` is false from the
 * first byte pprof.ts's wire check would refuse at the top level (field 0, a varint where a message
 * belongs, wire type 3, 4, 6 or 7, a varint over 10 bytes) or a field longer than `max`.
 */
class TopLevelFields {
  private state: 'tag' | 'varint' | 'length' | 'skip' = 'tag';
  private value = 0;
  private shift = 0;
  private field = 0;
  private start = 0;
  private skip = 0;
  private offset = 0;
  private broken = false;
  declared: { field: number; at: number; length: number } | undefined;

  constructor(private readonly max: number) {}

  push(c: Uint8Array): boolean {
    let i = 0;
    const n = c.byteLength;
    while (i < n && !this.broken) {
      if (this.state === 'skip') {
        const k = Math.min(this.skip, n - i);
        this.skip -= k;
        i += k;
        if (this.skip === 0) this.state = 'tag';
        continue;
      }
      if (this.state === 'tag' && this.shift === 0) this.start = this.offset + i;
      const b = c[i++];
      if (this.shift < 49) this.value += (b & 0x7f) * 2 ** this.shift;
      this.shift += 7;
      if (b & 0x80) {
        if (this.shift >= 70) this.broken = true;
        continue;
      }
      const v = this.value;
      this.value = 0;
      this.shift = 0;
      this.step(v);
    }
    this.offset += n;
    return !this.broken;
  }

  private step(v: number): void {
    if (this.state === 'varint') {
      this.state = 'tag';
    } else if (this.state === 'length') {
      if (v > this.max) {
        this.declared = { field: this.field, at: this.start, length: v };
        this.broken = true;
      }
      this.skip = v;
      this.state = v > 0 ? 'skip' : 'tag';
    } else {
      this.field = Math.floor(v / 8);
      const wire = v % 8;
      if (this.field === 0 || (wire === 0 && LENGTH_DELIMITED.has(this.field))) this.broken = true;
      else if (wire === 0) this.state = 'varint';
      else if (wire === 2) this.state = 'length';
      else if (wire === 1 || wire === 5) {
        if (this.field <= 14) this.broken = true;
        this.skip = wire === 1 ? 8 : 4;
        this.state = 'skip';
      } else this.broken = true;
    }
  }
}
