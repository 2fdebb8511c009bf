/**
 * Builds models from stacks quoted from real dumps, for unit tests of the analyze stage.
 *
 * Stacks are written one frame a line, innermost first, as `func file:line`, with a trailing `(inl)`
 * for frames pprof marks inlined, e.g.
 *   runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
 *   main.returnErr /tmp/x/main.go:14 (inl)
 * Where a quote comes from is said beside it (corpus file, sample, or a Go 1.19 program run for these
 * tests: /tmp programs printing debug=0/1/2 of one process; the frames are copied as printed).
 */
import { FrameTable, SnapshotBuilder, type GoroutineRecord } from '../../src/model/builder.js';
import type { DumpFormat, Frame, Snapshot } from '../../src/model/dump.js';
import { classifyWait } from '../../src/model/wait.js';
import { packageOfFunc } from '../../src/analyze/origin.js';

const table = new FrameTable();

/** Parse quoted frames (see file comment). Frames are interned, as readers do. */
export function frames(text: string): Frame[] {
  const out: Frame[] = [];
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (!line) continue;
    const inlined = line.endsWith(' (inl)');
    if (inlined) line = line.slice(0, -6);
    const sp = line.indexOf(' ');
    const func = sp < 0 ? line : line.slice(0, sp);
    const loc = sp < 0 ? '' : line.slice(sp + 1);
    const colon = loc.lastIndexOf(':');
    const file = colon < 0 ? loc : loc.slice(0, colon);
    const ln = colon < 0 ? 0 : Number(loc.slice(colon + 1));
    out.push(table.frame(func, packageOfFunc(func), file, ln, inlined));
  }
  return out;
}

export interface Rec {
  frames: string | Frame[];
  state?: string;
  count?: number;
  id?: number;
  labels?: Record<string, string>;
  creator?: { func: string; file: string; line: number; goroutineId?: number };
  waitMinutes?: number;
  leaked?: boolean;
}

/** A snapshot as a reader of `format` would build it from these records. */
export function snapshot(format: DumpFormat, recs: Rec[]): Snapshot {
  const b = new SnapshotBuilder({ source: `test.${format}`, index: 0, format, profile: 'goroutine' });
  for (const r of recs) {
    const fr = typeof r.frames === 'string' ? frames(r.frames) : r.frames;
    const state = r.state ?? '';
    const rec: GoroutineRecord = {
      state,
      waitKind: classifyWait(state, fr, format),
      frames: fr,
      ...(r.count !== undefined ? { count: r.count } : {}),
      ...(r.id !== undefined ? { id: r.id } : {}),
      ...(r.labels ? { labels: r.labels } : {}),
      ...(r.waitMinutes !== undefined ? { waitMinutes: r.waitMinutes } : {}),
      ...(r.leaked ? { flags: { leaked: true } } : {}),
      ...(r.creator ? { creator: { ...r.creator, pkg: packageOfFunc(r.creator.func) } } : {}),
    };
    b.add(rec);
  }
  return b.build();
}
