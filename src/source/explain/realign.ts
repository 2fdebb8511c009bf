/**
 * Small line offsets (a comment or blank line added above a function since the binary was built):
 * when a frame's line cannot be the line it ran (see mismatch.ts), or the blocking frame's line has
 * neither the operation the dump waits in nor any call (`}`, `continue`), the frames of the same function are
 * tried at line + k for a small k. The offset is taken only when exactly one k (smallest first, + and −
 * not both) puts every frame of that function on a line of the same top-level function that does what
 * the frame needs: the blocking operation for the innermost frame, a call of the next frame's function
 * (or a `go` of it) for the others. Otherwise nothing is re-aligned and the mismatch stands.
 */
import type { Frame, WaitKind } from '../../model/dump.js';
import type { GoFile } from '../syntax/parser.js';
import { funcAtLine } from '../syntax/tree.js';
import { frameMismatch } from './mismatch.js';

/** Largest offset tried, either way. */
export const MAX_SHIFT = 3;

export interface Shifted {
  /** Index of the frame in the stack. */
  readonly index: number;
  /** The function's file (checkout-relative). */
  readonly rel: string;
  readonly k: number;
}

/** What the blocking line of a wait kind must contain. */
const BLOCKING: Partial<Record<WaitKind, RegExp>> = {
  'chan-send': /<-/,
  'chan-receive': /<-|\brange\b/,
  select: /\bselect\b/,
  mutex: /\.R?Lock\s*\(/,
  rwmutex: /\.R?Lock\s*\(/,
  waitgroup: /\.Wait\s*\(/,
  semaphore: /\.Wait\s*\(|\.R?Lock\s*\(|<-/,
};

/** `pkg/path.(*T).m.func1.2` → ['(*T)', 'm', 'func1', '2'] (the parts after the package). */
function parts(func: string): string[] {
  const base = func.slice(func.lastIndexOf('/') + 1);
  return base.split('.').slice(1);
}

/** The top-level function's name: `m` for `(*T).m.func1`, `f` for `f.func2`. */
export function topName(func: string): string {
  const p = parts(func);
  return (p[0]?.startsWith('(') ? p[1] : p[0]) ?? '';
}

/** The name the caller's line calls: the last non-closure part ('' for a closure). */
function calleeName(func: string): string {
  const p = parts(func);
  const last = p[p.length - 1] ?? '';
  return /^(func)?\d+$/.test(last) ? '' : last.replace(/\[.*$/, '');
}

/** The name of the top-level declaration around `line` ('' outside any). */
function declAt(file: GoFile, line: number): string {
  let n = funcAtLine(file.root, line);
  while (n && n.type === 'func_literal') {
    let p = n.parent;
    while (p && p.type !== 'function_declaration' && p.type !== 'method_declaration' && p.type !== 'func_literal') p = p.parent;
    n = p ?? undefined;
  }
  return n?.childForFieldName('name')?.text ?? '';
}

/** A code line that cannot block the way the dump says: neither the operation nor any call (`}`, `continue`). */
function offBlocking(file: GoFile, line: number, waitKind: WaitKind): boolean {
  const op = BLOCKING[waitKind];
  const text = file.lines[line - 1]?.replace(/\/\/.*$/, '') ?? '';
  return !!op && text.trim() !== '' && !op.test(text) && !text.includes('(');
}

/** Can frame `i` of `frames` have run `file:line`? */
function fits(file: GoFile, line: number, frames: readonly Frame[], i: number, at: number, waitKind: WaitKind): boolean {
  const fr = frames[i];
  if (frameMismatch(file, line, fr.func)) return false;
  if (declAt(file, line) !== topName(fr.func)) return false;
  const text = file.lines[line - 1].replace(/\/\/.*$/, '');
  if (/^\s*func\b/.test(text)) return false;
  if (i === at) return (BLOCKING[waitKind] ?? /\S/).test(text);
  const callee = calleeName(frames[i - 1]?.func ?? '');
  if (!callee) return /\bfunc\s*\(|\w\s*\(/.test(text);
  return new RegExp(`\\b${callee.replace(/[^\w]/g, '')}\\s*[([]`).test(text);
}

/**
 * Offsets that re-align the stack's frames from `at` outwards, per function, or undefined when some
 * mismatched frame cannot be re-aligned. `fileOf(i)` is the checkout file of frame i (undefined when
 * it is not in the checkout).
 */
export function realign(frames: readonly Frame[], at: number, waitKind: WaitKind, fileOf: (i: number) => GoFile | undefined): Shifted[] | undefined {
  // Frames of one function in one file move together.
  const groups = new Map<string, number[]>();
  for (let i = at; i < frames.length; i++) {
    const file = fileOf(i);
    if (!file) continue;
    const key = `${file.rel}\u0000${topName(frames[i].func)}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  }
  const out: Shifted[] = [];
  for (const idx of groups.values()) {
    const file = fileOf(idx[0])!;
    if (!idx.some((i) => frameMismatch(file, frames[i].line, frames[i].func) || (i === at && offBlocking(file, frames[i].line, waitKind)))) continue;
    const all = (k: number) => idx.every((i) => fits(file, frames[i].line + k, frames, i, at, waitKind));
    let found: number | undefined;
    for (let d = 1; d <= MAX_SHIFT && found === undefined; d++) {
      const up = all(d);
      const down = all(-d);
      if (up && down) return undefined;
      if (up || down) found = up ? d : -d;
    }
    if (found === undefined) return undefined;
    for (const i of idx) out.push({ index: i, rel: file.rel, k: found });
  }
  return out;
}
