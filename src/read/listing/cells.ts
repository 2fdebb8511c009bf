/**
 * The pieces every listing shares: its lines as pasted (markdown fences, quote marks and CRLF
 * removed) and the function cell pprof prints (`name`, `name (inline)`, with `-lines`
 * `name /path/file.go:123 (inline)`).
 */
import type { Frame } from '../../model/dump.js';
import type { FrameTable } from '../../model/builder.js';
import { packageOf } from '../debug1.js';

/** The text's lines: CR dropped, markdown code fences dropped, `> ` quote marks and trailing blanks removed. */
export function listingLines(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.replace(/^\uFEFF/, '').split('\n')) {
    const l = raw.replace(/\r$/, '').replace(/^(?:>[ \t]?)+/, '').replace(/\s+$/, '');
    if (/^\s*(?:```|~~~)/.test(l)) continue;
    out.push(l);
  }
  return out;
}

/** One function cell: the function, and file:line where printed (`-lines`, `-raw`). */
export interface Cell {
  readonly func: string;
  readonly file: string;
  readonly line: number;
  /** `(inline)`: this call was inlined into its caller. */
  readonly inline: boolean;
}

/** `runtime.goparkunlock /usr/lib/go/src/runtime/proc.go:369 (inline)` → its parts; undefined for a blank cell. */
export function parseCell(text: string): Cell | undefined {
  let t = text.trim().replace(/`/g, '');
  const inline = /\s\(inline\)$/.test(t);
  if (inline) t = t.replace(/\s+\(inline\)$/, '');
  if (t === '') return undefined;
  const sp = t.search(/\s/);
  const func = sp < 0 ? t : t.slice(0, sp);
  const rest = sp < 0 ? '' : t.slice(sp).trim();
  // `-raw` prints `file:line:column s=0`; `-lines` prints `file:line`.
  const m = /^(.*?):(\d+)(?::\d+)?(?:\s+s=\d+)?$/.exec(rest);
  return { func, file: m ? m[1] : '', line: m ? Number(m[2]) : 0, inline };
}

/** The frame of a cell, interned. `inlined` says the frame was inlined into its caller. */
export function cellFrame(table: FrameTable, c: Cell, inlined = c.inline): Frame {
  return table.frame(c.func, packageOf(c.func, c.file), c.file, c.line, inlined);
}

/** A `-traces`/`-tree` separator: `-----------+-------------------------------------------------------`. */
export const SEPARATOR = /^\s*-{3,}\+-{3,}\s*$/;
