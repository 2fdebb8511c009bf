/**
 * The normalized signature of a stack: equal for one goroutine whether it was captured as debug=0
 * (pprof protobuf), debug=1 or debug=2.
 *
 * What differs between the formats, and is therefore left out of the key (measured on Go 1.15 and
 * Go 1.19 captures of one process, see test/analyze/samples.test.ts):
 * - Leading `runtime.*` frames: debug=0 has them all (`runtime.gopark`, `runtime.chansend1`…), debug=1
 *   hides every leading `runtime.*` frame (printStackRecord, allFrames=false), debug=2 hides the
 *   unexported ones (traceback level 1 `showframe`). Dropped.
 * - `runtime.*` frames further down: debug=0/1 print `runtime.main` under `main.main`, debug=2 does
 *   not (unexported runtime frames are hidden at level 1, except `runtime.gopanic` mid-stack).
 *   Unexported ones are dropped; exported ones (`runtime.Goexit`…) stay, as every format shows them.
 *   `runtime.goexit` at the bottom is dropped with them.
 * - The `inlined` mark: debug=1 cannot show it. Left out; the inlined frames themselves stay.
 * - State, wait kind, labels, ids and creators: debug=0/1 have no state or creator, debug=2 (before
 *   Go 1.27) no labels. Left out; the group keeps tallies of them instead.
 * What does not differ and is kept: function names (wrappers are elided by all three), file paths
 * (printed from the same pclntab; only `\` is normalized to `/`), and line numbers: the leaf frame
 * prints its PC's line in all three, and outer frames print the line of the call in all three
 * (debug=0 locations hold return PC − 1, debug=1 symbolizes return PC − 1, debug=2 prints the call).
 * A stack made only of runtime frames (runtime-owned goroutines) keeps them all: dropping them would
 * make every such goroutine look alike.
 */
import type { Frame, Group } from '../model/dump.js';
import type { SimilarityLevel } from './types.js';

/** True for the `runtime.*` functions the runtime's own traceback printers hide. */
export function isRuntimeFunc(func: string): boolean {
  return func.startsWith('runtime.');
}

/** `runtime.Goexit`, `runtime.Gosched`: exported runtime functions debug=2 prints mid-stack. */
function isExportedRuntime(func: string): boolean {
  const c = func.charCodeAt(8);
  return c >= 65 && c <= 90;
}

/**
 * Where the signature's frames start: the index of the first frame past the leading `runtime.*` ones,
 * or -1 for a stack made only of runtime frames (which keeps them all but goexit, see `keptAt`).
 */
export function keyStart(frames: readonly Frame[]): number {
  let start = 0;
  while (start < frames.length && isRuntimeFunc(frames[start].func)) start++;
  return start === frames.length ? -1 : start;
}

/** Whether frame `f`, at or past `keyStart(frames)` (= `start`), is one of the signature's frames. */
export function keptAt(f: Frame, start: number): boolean {
  // Runtime-owned goroutine: keep its frames, minus the goexit every stack ends in.
  if (start < 0) return f.func !== 'runtime.goexit';
  return !isRuntimeFunc(f.func) || isExportedRuntime(f.func) || f.func === 'runtime.gopanic';
}

/** The frames that make the signature, innermost first (a subsequence of `frames`). */
export function keyFrames(frames: readonly Frame[]): Frame[] {
  const start = keyStart(frames);
  const out: Frame[] = [];
  for (let i = Math.max(start, 0); i < frames.length; i++) if (keptAt(frames[i], start)) out.push(frames[i]);
  return out;
}

const exactTokens = new WeakMap<Frame, string>();

function exactToken(f: Frame): string {
  let t = exactTokens.get(f);
  if (t === undefined) {
    const file = f.file.includes('\\') ? f.file.replace(/\\/g, '/') : f.file;
    t = `${f.func} ${file}:${f.line}`;
    exactTokens.set(f, t);
  }
  return t;
}

/** Signature of a list of frames at a level: one line per kept frame, innermost first. */
export function signatureOfFrames(frames: readonly Frame[], level: SimilarityLevel): string {
  const kept = keyFrames(frames);
  if (level === 'functions') return kept.map((f) => f.func).join('\n');
  return kept.map(exactToken).join('\n');
}

/** A kept frame's line of the signature at a level. */
export function signatureLine(f: Frame, level: SimilarityLevel): string {
  return level === 'functions' ? f.func : exactToken(f);
}

/** The signature of a group without frames to tell. */
export const NO_FRAMES = '(no frames)';

/** Signature of a read-stage group (or anything with frames) at a level; for other stages (diff). */
export function signature(group: Pick<Group, 'frames'>, level: SimilarityLevel = 'exact'): string {
  return signatureOfFrames(group.frames, level);
}
