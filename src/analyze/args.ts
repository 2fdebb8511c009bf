/**
 * Frame arguments as the runtime prints them (`GoroutineDetail.args`): words of the argument area,
 * `{…}` around the words of one struct or interface, `?` after a value that may be wrong (Go ≥ 1.18,
 * register ABI: the spill slot may be stale) and `...` for elided words. Only exact values identify an
 * object; an inexact one can at most repeat what an exact one says.
 */

/** One printed argument word. */
export interface ArgWord {
  readonly value: number;
  /** Printed without `?`: the value is what the frame was called with. */
  readonly exact: boolean;
}

const memo = new Map<string, ArgWord[]>();

/** The words of one frame's argument text; `...` and unparseable tokens are skipped. */
export function argWords(text: string): readonly ArgWord[] {
  if (text.length === 0) return [];
  let w = memo.get(text);
  if (w !== undefined) return w;
  w = [];
  for (const raw of text.split(',')) {
    let t = raw.trim();
    while (t.startsWith('{')) t = t.slice(1);
    while (t.endsWith('}')) t = t.slice(0, -1);
    const exact = !t.endsWith('?');
    if (!exact) t = t.slice(0, -1);
    if (!t.startsWith('0x')) continue;
    const v = Number.parseInt(t.slice(2), 16);
    // Beyond 2^53 a number is not exact in JS: such a word cannot identify anything.
    if (Number.isSafeInteger(v)) w.push({ value: v, exact });
  }
  if (memo.size > 50_000) memo.clear();
  memo.set(text, w);
  return w;
}

/** The pointer-like words (`isPointerLike`) of one frame's argument text, exact and inexact apart, in order. */
export interface PointerWords {
  readonly exact: readonly number[];
  readonly inexact: readonly number[];
}

/** What a text without pointer-like words has (most frames: `0x0?, 0x1`, or no arguments at all). */
export const NO_POINTER_WORDS: PointerWords = Object.freeze({ exact: Object.freeze([]), inexact: Object.freeze([]) });

const pointerMemo = new Map<string, PointerWords>();

/**
 * `argWords(text)` filtered by `isPointerLike`, decided once per text: the wait-for graph reads
 * the arguments of every frame of up to 2,000 goroutines, where most texts repeat.
 */
export function pointerWords(text: string): PointerWords {
  if (text.length === 0) return NO_POINTER_WORDS;
  let p = pointerMemo.get(text);
  if (p !== undefined) return p;
  const exact: number[] = [];
  const inexact: number[] = [];
  const ws = argWords(text);
  for (let k = 0; k < ws.length; k++) if (isPointerLike(ws[k].value)) (ws[k].exact ? exact : inexact).push(ws[k].value);
  p = exact.length === 0 && inexact.length === 0 ? NO_POINTER_WORDS : { exact, inexact };
  if (pointerMemo.size > 50_000) pointerMemo.clear();
  pointerMemo.set(text, p);
  return p;
}

/**
 * A word that may point into the heap: small values (lengths, flags, enum values) and the addresses of
 * the program's code and static data are not objects a goroutine waits on.
 */
export function isPointerLike(v: number): boolean {
  return v >= 0x100000;
}

export function hex(v: number): string {
  return `0x${v.toString(16)}`;
}
