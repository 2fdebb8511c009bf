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
function isRuntimeFunc(func: string): boolean {
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

/** The signature of a group without frames to tell. */
export const NO_FRAMES = '(no frames)';

/** A frame's line of the signature, and that line's numbers in a `SignatureKeys` table. */
interface KeyLine {
  readonly token: string;
  /** The numbers of the token's '\n'-separated pieces (a line Go printed is one piece). */
  readonly pieces: readonly number[];
  /** `pieces` as text, each number followed by ',': the line's part of a `stackKey`. */
  readonly text: string;
}

/**
 * One analysis's numbering of signature lines. Grouping compares a short string of line numbers per
 * stack instead of its ~1 KB signature (hashing the signature cost more than the rest of grouping on
 * a dump of distinct stacks), and sorting compares the lines' ranks instead of the signatures' text;
 * the signature itself is joined once per analyzed group (`tokensOf`). A token is numbered by its
 * '\n'-separated pieces, so that equal numbers mean equal joined signatures and back.
 */
export class SignatureKeys {
  private readonly numbers = new Map<string, number>();
  private readonly pieces: string[] = [];
  private readonly lines = new Map<Frame, KeyLine>();
  private readonly empty: KeyLine;
  /** A piece holds a character below '\n' (see `ranks`). */
  private low = false;

  constructor(private readonly level: SimilarityLevel) {
    this.empty = this.keyLine(NO_FRAMES);
  }

  /** Equal for two frame lists exactly when their signatures (`tokensOf`, joined) are equal. */
  stackKey(frames: readonly Frame[]): string {
    const start = keyStart(frames);
    let key = '';
    let lines = 0;
    let only: KeyLine | undefined;
    for (let i = Math.max(start, 0); i < frames.length; i++) {
      const f = frames[i];
      if (!keptAt(f, start)) continue;
      const line = this.line(f);
      key += line.text;
      if (lines++ === 0) only = line;
    }
    return lines === 0 || (lines === 1 && only!.token === '') ? this.empty.text : key;
  }

  /**
   * The lines of `signatureOfFrames(frames, level) || '(no frames)'`, one token per kept frame;
   * the numbers of their pieces are appended to `pieces`.
   */
  tokensOf(frames: readonly Frame[], pieces: number[]): string[] {
    const start = keyStart(frames);
    const from = pieces.length;
    const tokens: string[] = [];
    for (let i = Math.max(start, 0); i < frames.length; i++) {
      const f = frames[i];
      if (!keptAt(f, start)) continue;
      const line = this.line(f);
      tokens.push(line.token);
      for (let k = 0; k < line.pieces.length; k++) pieces.push(line.pieces[k]);
    }
    if (tokens.length === 0 || (tokens.length === 1 && tokens[0] === '')) {
      pieces.length = from;
      pieces.push(this.empty.pieces[0]);
      return [NO_FRAMES];
    }
    return tokens;
  }

  /**
   * Each piece number's rank in string order. Signatures then compare as their rank sequences
   * (the shorter first where one is a prefix of the other): a piece that is a prefix of another is
   * followed in its signature by '\n' or nothing, both below the longer one's next character unless
   * that is below '\n' itself, so undefined when some piece holds such a character.
   */
  ranks(): Int32Array | undefined {
    if (this.low) return undefined;
    const p = this.pieces;
    const order = p.map((_, i) => i).sort((a, b) => (p[a] < p[b] ? -1 : 1));
    const rank = new Int32Array(p.length);
    for (let r = 0; r < order.length; r++) rank[order[r]] = r;
    return rank;
  }

  private line(f: Frame): KeyLine {
    let l = this.lines.get(f);
    if (l === undefined) {
      l = this.keyLine(this.level === 'functions' ? f.func : exactToken(f));
      this.lines.set(f, l);
    }
    return l;
  }

  private keyLine(token: string): KeyLine {
    const pieces = token.includes('\n') ? token.split('\n').map((p) => this.numbered(p)) : [this.numbered(token)];
    return { token, pieces, text: pieces.map((n) => `${n},`).join('') };
  }

  private numbered(piece: string): number {
    let n = this.numbers.get(piece);
    if (n === undefined) {
      n = this.pieces.length;
      this.numbers.set(piece, n);
      this.pieces.push(piece);
      if (/[\0-\t]/.test(piece)) this.low = true;
    }
    return n;
  }
}


/** Signature of a read-stage group (or anything with frames) at a level; for other stages (diff). */
export function signature(group: Pick<Group, 'frames'>, level: SimilarityLevel = 'exact'): string {
  return signatureOfFrames(group.frames, level);
}
