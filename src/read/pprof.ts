/**
 * pprof protobuf goroutine / goroutineleak profiles (debug=0), decoded by pprof-format on the
 * gunzipped bytes (index.ts gunzips).
 *
 * pprof-format validates almost nothing (it clamps truncated input and resolves no ids), so this file
 * does: string_table[0] must be '', the sample type must be goroutine/count or goroutineleak/count,
 * every location, function and string id must resolve. Anything unusable is an InputError; odd sample
 * values are warned about and skipped. Varints over four bytes decode as bigint: converted here.
 *
 * Decisions:
 * - Delta profiles (`?seconds=N`, `duration_nanos` set) hold changes, not totals. Only stacks that
 *   GREW are kept (positive values: what a leak hunt wants); shrinking ones are dropped and counted
 *   in one `delta-profile` warning. Snapshot totals are then the growth, not a goroutine count.
 * - A Location with no Line (unsymbolized) becomes a pseudo-frame named by its address (`0x…`), as
 *   debug1.ts does, so distinct stacks stay distinct.
 * - The per-goroutine variant (labels `go::goroutine`, `go::goroutine_state`, `go::goroutine_created_by`,
 *   `go::goroutine_wait_minutes`; StackGazer reads it, CockroachDB-style) maps those labels into the
 *   goroutine id, state, creator and wait minutes, and drops them from the labels. `created_by` is a
 *   creator goroutine id when numeric (StackGazer's reading), else a creator function name.
 */
import { Profile, type Label, type Location } from 'pprof-format';
import type { Frame, GroupFlags, ProfileKind } from '../model/dump.js';
import { FrameTable, SnapshotBuilder, type GoroutineRecord } from '../model/builder.js';
import type { Snapshot } from '../model/dump.js';
import { classifyWait } from '../model/wait.js';
import { dumpContext, newFacts } from './context.js';
import { packageOf } from './debug1.js';
import { InputError } from './errors.js';

type Numeric = number | bigint;

const GOROUTINE_LABEL = 'go::goroutine';
const STATE_LABEL = 'go::goroutine_state';
const CREATED_BY_LABEL = 'go::goroutine_created_by';
const WAIT_MINUTES_LABEL = 'go::goroutine_wait_minutes';
const LEAKED: GroupFlags = Object.freeze({ leaked: true });

/** Signed 64-bit value of a decoded varint (negative int64s arrive as 10-byte unsigned varints). */
function int64(v: Numeric | undefined): number {
  if (v === undefined) return 0;
  return typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : v;
}

/** Map key of an id: exact for ids beyond 2^53 too (they stay distinct as strings). */
function idKey(v: Numeric): number | string {
  if (typeof v === 'number') return v;
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

/** What a non-goroutine sample type says the profile is, for the refusal message. */
function describeProfile(types: string[]): string {
  const t = types[0] ?? '';
  if (/^(alloc|inuse)_(objects|space)$/.test(t)) return 'a heap profile';
  if (t === 'samples' || t === 'cpu') return 'a CPU profile';
  if (t === 'contentions' || t === 'delay') return 'a mutex or block profile';
  if (t === 'threadcreate') return 'a threadcreate profile';
  return t ? `a ${t} profile` : 'a profile of unknown kind';
}

export function readPprof(source: string, bytes: Uint8Array, o: { truncated: boolean }): Snapshot {
  // A gzip cut short leaves a protobuf cut short (Go writes the string table last): say so.
  const bad = (detail: string): InputError =>
    new InputError(source, 'bad-protobuf', o.truncated ? `${detail} (the gzip stream ended early: the profile is incomplete)` : detail);
  try {
    return convert(source, bytes, o, bad);
  } catch (e) {
    // pprof-format decodes mangled bytes into odd shapes rather than failing: whatever breaks on
    // them is still unusable input, never a crash.
    if (e instanceof InputError) throw e;
    throw bad(`is not a readable pprof protobuf (${(e as Error)?.message ?? String(e)})`);
  }
}

/**
 * The wire shape of profile.proto: for each message, field → its sub-message (length-delimited),
 * 'bytes' (a string: length-delimited), or 'scalar' (varint, or packed: length-delimited).
 */
interface WireSpec {
  [field: number]: WireSpec | 'bytes' | 'scalar';
}
const SCALARS = (...f: number[]): WireSpec => Object.fromEntries(f.map((n) => [n, 'scalar' as const]));
const VALUE_TYPE = SCALARS(1, 2);
const LABEL = SCALARS(1, 2, 3, 4);
const LINE = SCALARS(1, 2, 3);
const PROFILE_WIRE: WireSpec = {
  1: VALUE_TYPE,
  2: { ...SCALARS(1, 2), 3: LABEL },
  3: SCALARS(1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
  4: { ...SCALARS(1, 2, 3, 5), 4: LINE },
  5: SCALARS(1, 2, 3, 4, 5),
  6: 'bytes',
  ...SCALARS(7, 8, 9, 10, 12, 13, 14),
  11: VALUE_TYPE,
};

/**
 * Walks the protobuf wire format against profile.proto before decoding: pprof-format decodes a
 * wire-type mismatch (text or noise where a message belongs) into an object per byte or two, ~90× the
 * input in memory, and clamps a field that runs past the end. Both are refused here, in O(bytes).
 */
function checkWire(b: Uint8Array, start: number, end: number, spec: WireSpec, path: string, bad: (d: string) => InputError, depth = 0): void {
  let p = start;
  const varint = (): number => {
    let v = 0;
    for (let i = 0; i < 10; i++) {
      if (p >= end) throw bad(`is not a readable pprof protobuf: it ends inside a varint at byte ${p} (${path}); the profile was cut short`);
      const c = b[p++];
      if (i < 7) v += (c & 0x7f) * 2 ** (7 * i);
      if ((c & 0x80) === 0) return v;
    }
    throw bad(`is not a readable pprof protobuf: a varint longer than 10 bytes at byte ${p} (${path})`);
  };
  while (p < end) {
    const at = p;
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 0) throw bad(`is not a readable pprof protobuf: field number 0 at byte ${at} (${path})`);
    const want = spec[field];
    const where = `${path}.${field}`;
    if (wire === 0) {
      if (want !== undefined && want !== 'scalar') throw bad(`is not a readable pprof protobuf: field ${where} at byte ${at} should be length-delimited but is a varint`);
      varint();
    } else if (wire === 2) {
      const len = varint();
      if (len > end - p) throw bad(`is not a readable pprof protobuf: field ${where} at byte ${at} runs ${len - (end - p)} bytes past the end; the profile was cut short`);
      if (want !== undefined && want !== 'scalar' && want !== 'bytes' && depth < 4) checkWire(b, p, p + len, want, where, bad, depth + 1);
      p += len;
    } else if (wire === 1 || wire === 5) {
      if (want !== undefined) throw bad(`is not a readable pprof protobuf: field ${where} at byte ${at} has wire type ${wire}`);
      p += wire === 1 ? 8 : 4;
      if (p > end) throw bad(`is not a readable pprof protobuf: field ${where} at byte ${at} runs past the end; the profile was cut short`);
    } else {
      throw bad(`is not a readable pprof protobuf: wire type ${wire} at byte ${at} (${path})`);
    }
  }
}

function convert(source: string, bytes: Uint8Array, o: { truncated: boolean }, bad: (detail: string) => InputError): Snapshot {
  checkWire(bytes, 0, bytes.byteLength, PROFILE_WIRE, 'Profile', bad);
  let p: Profile;
  try {
    p = Profile.decode(bytes);
  } catch (e) {
    throw bad(`is not a readable pprof protobuf (${(e as Error).message})`);
  }
  const strings = p.stringTable?.strings ?? [];
  if (strings.length === 0 || strings[0] !== '') {
    throw bad('is not a valid pprof profile: string_table[0] must be the empty string');
  }
  const str = (id: Numeric | undefined, what: string): string => {
    const i = int64(id);
    if (!(i >= 0 && i < strings.length)) {
      throw bad(`is not a valid pprof profile: ${what} refers to string id ${String(id)}, but the string table has ${strings.length} entries`);
    }
    return strings[i];
  };

  // Which sample value is the goroutine count, and which profile this is.
  const types = p.sampleType.map((t, i) => `${str(t.type, `sample_type[${i}].type`)}/${str(t.unit, `sample_type[${i}].unit`)}`);
  const valueIndex = types.findIndex((t) => t === 'goroutine/count' || t === 'goroutineleak/count');
  if (valueIndex < 0) {
    if (types.length === 0) throw bad('is not a goroutine profile: the protobuf has no sample_type');
    throw new InputError(source, 'wrong-profile', `is ${describeProfile(types.map((t) => t.split('/')[0]))} (sample type ${types.join(', ')}), not a goroutine profile`);
  }
  const profile: ProfileKind = types[valueIndex] === 'goroutineleak/count' ? 'goroutineleak' : 'goroutine';
  const flags = profile === 'goroutineleak' ? LEAKED : undefined;

  const timeNanos = p.timeNanos === undefined ? 0n : BigInt.asIntN(64, BigInt(p.timeNanos));
  // Any positive int64 of nanoseconds (up to year 2262) is a valid JS Date.
  const capturedAt = timeNanos > 0n ? new Date(Number(timeNanos / 1_000_000n)).toISOString() : undefined;
  const durationNanos = int64(p.durationNanos);
  const isDelta = durationNanos > 0;

  const b = new SnapshotBuilder({ source, index: 0, format: 'pprof', profile, ...(capturedAt ? { capturedAt } : {}) });
  if (o.truncated) {
    b.markTruncated({ severity: 'warning', code: 'truncated', message: 'the gzip stream ended early: the profile may be missing samples' });
  }

  const functions = new Map<number | string, { name: string; file: string }>();
  p.function.forEach((f, i) => {
    functions.set(idKey(f.id), { name: str(f.name, `function[${i}].name`), file: str(f.filename, `function[${i}].filename`) });
  });
  const locations = new Map<number | string, Location>();
  for (const l of p.location) locations.set(idKey(l.id), l);

  const table = new FrameTable();
  const locationFrames = new Map<number | string, Frame[]>();
  /** A Location's frames, innermost first: pprof lists inlined callees first, the physical frame last. */
  const framesOf = (id: Numeric, sample: number): Frame[] => {
    const key = idKey(id);
    let frames = locationFrames.get(key);
    if (frames) return frames;
    const loc = locations.get(key);
    if (!loc) throw bad(`is not a valid pprof profile: sample ${sample} refers to location id ${String(id)}, which the profile does not define`);
    frames = [];
    const lines = loc.line;
    if (lines.length === 0) {
      frames.push(table.frame(`0x${BigInt.asUintN(64, BigInt(loc.address)).toString(16)}`, '', '', 0, false));
    }
    for (let i = 0; i < lines.length; i++) {
      const fn = functions.get(idKey(lines[i].functionId));
      if (!fn) throw bad(`is not a valid pprof profile: location ${String(loc.id)} refers to function id ${String(lines[i].functionId)}, which the profile does not define`);
      frames.push(table.frame(fn.name, packageOf(fn.name, fn.file), fn.file, int64(lines[i].line), i < lines.length - 1));
    }
    locationFrames.set(key, frames);
    return frames;
  };

  let badValues = 0;
  let shrinking = 0;
  let perGoroutine = 0;
  p.sample.forEach((s, si) => {
    const raw = s.value[valueIndex];
    const count = raw === undefined ? NaN : int64(raw);
    if (!Number.isSafeInteger(count) || count < 0) {
      if (isDelta && count < 0) shrinking++;
      else badValues++;
      return;
    }
    if (count === 0) return;
    const frames: Frame[] = [];
    for (const id of s.locationId) for (const f of framesOf(id, si)) frames.push(f);
    const rec: GoroutineRecord = { count, state: '', waitKind: 'unknown', frames, ...(flags ? { flags } : {}) };
    if (s.label.length > 0 && readLabels(s.label, si, rec, str)) perGoroutine++;
    rec.waitKind = classifyWait(rec.state, frames, 'pprof');
    b.add(rec);
  });

  if (badValues > 0) {
    b.warn({ severity: 'warning', code: 'bad-sample', message: `${badValues} samples with a negative, missing or too large goroutine count were skipped` });
  }
  if (isDelta) {
    b.warn({
      severity: 'warning',
      code: 'delta-profile',
      message: `delta profile over ${(durationNanos / 1e9).toFixed(1)}s: counts are changes, not totals; kept the stacks that grew${shrinking ? `, dropped ${shrinking} that shrank` : ''}`,
    });
  }
  if (perGoroutine > 0) {
    b.warn({ severity: 'info', code: 'per-goroutine-pprof', message: `${perGoroutine} samples carry go::goroutine labels: read as one goroutine each, with id, state, creator and wait` });
  }
  // A pprof profile is always taken on purpose: nothing around it says otherwise.
  return { ...b.build(), context: dumpContext(newFacts(), { format: 'pprof', inBubble: false }) };
}

/**
 * Sample labels into `rec.labels`; the go::goroutine* labels of the per-goroutine variant into the
 * record's fields instead. True when the sample is per-goroutine.
 */
function readLabels(
  labels: Label[],
  si: number,
  rec: GoroutineRecord,
  str: (id: Numeric | undefined, what: string) => string,
): boolean {
  const out: Record<string, string> = {};
  let perGoroutine = false;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    const key = str(l.key, `sample ${si} label ${i} key`);
    const strId = int64(l.str);
    let value: string;
    if (strId !== 0) value = str(l.str, `sample ${si} label ${key}`);
    else {
      const unit = int64(l.numUnit) !== 0 ? str(l.numUnit, `sample ${si} label ${key} unit`) : '';
      value = unit ? `${int64(l.num)} ${unit}` : String(int64(l.num));
    }
    switch (key) {
      case GOROUTINE_LABEL: {
        const id = Number(value);
        if (Number.isSafeInteger(id) && id >= 0) {
          rec.id = id;
          perGoroutine = true;
          continue;
        }
        break;
      }
      case STATE_LABEL:
        rec.state = value;
        continue;
      case WAIT_MINUTES_LABEL: {
        const m = parseFloat(value);
        if (Number.isFinite(m) && m >= 0) rec.waitMinutes = m;
        continue;
      }
      case CREATED_BY_LABEL: {
        const id = Number(value);
        rec.creator = Number.isSafeInteger(id) && /^\d+$/.test(value)
          ? { func: '', pkg: '', file: '', line: 0, goroutineId: id }
          : { func: value, pkg: packageOf(value), file: '', line: 0 };
        continue;
      }
    }
    out[key] = value;
  }
  if (Object.keys(out).length > 0) rec.labels = out;
  return perGoroutine;
}
