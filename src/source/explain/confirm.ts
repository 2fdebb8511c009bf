/**
 * What source analysis says about an inferred wait-for finding (who holds a lock is never printed in
 * a dump): the stack frames located in the checkout, and the verdict with the cause lines.
 */
import type { GoFile, Node } from '../syntax/parser.js';
import { funcAtLine } from '../syntax/tree.js';
import type { GoPackage } from '../workspace/package.js';
import type { Cause } from './cause.js';

/** One frame of a goroutine's stack found in the checkout. */
export interface LocatedFrame {
  readonly file: GoFile;
  readonly pkg: GoPackage;
  readonly line: number;
  /** The function as the dump names it (`example.com/x.(*Cache).Get`). */
  readonly func: string;
}

/** A goroutine's frames from its blocking site (index 0) outwards; undefined: not in the checkout. */
export type LocatedStack = readonly (LocatedFrame | undefined)[];

/**
 * - `confirmed`: the source shows what the dump could only infer (the lock taken and still held).
 * - `contradicted`: the source shows otherwise (the caller unlocks before the call; it locks another object).
 * - `unconfirmed`: the source says neither (frames not in the checkout, a lock through a helper).
 */
export type Verdict = 'confirmed' | 'contradicted' | 'unconfirmed';

export interface Confirmation {
  readonly verdict: Verdict;
  readonly causes: Cause[];
  /** One clause for the finding's confidence fact: what was confirmed or what contradicts it. */
  readonly note: string;
  /** Whether the confirmation is exact (same variable and field path), else by lock class only. */
  readonly exact: boolean;
}

export const UNCONFIRMED: Confirmation = { verdict: 'unconfirmed', causes: [], note: '', exact: false };

/** The function (declaration or literal) around the frame's line. */
export function frameFunc(f: LocatedFrame): Node | undefined {
  return funcAtLine(f.file.root, f.line);
}

/** `example.com/x.(*Cache).Get` → `Get`; closures (`func1`, `gowrap2`) → '' (matched by position only). */
export function calledName(dumpFunc: string): string {
  const last = dumpFunc.slice(dumpFunc.lastIndexOf('/') + 1).replace(/\[[^\]]*\]/g, '').split('.').at(-1) ?? '';
  return /^(func|gowrap)\d+$|^\d+$/.test(last) ? '' : last;
}

/** `ledger.go:52` for messages. */
export function place(f: { file: GoFile }, line: number): string {
  return `${f.file.rel}:${line}`;
}
