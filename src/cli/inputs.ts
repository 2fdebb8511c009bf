/**
 * Input arguments → files: a file as given, every file of a folder, or the files a glob matches
 * (`*`, `?`, `[abc]`, `**`; for shells that pass them quoted). Files found through a folder or glob
 * are `listed`: one that turns out not to be a dump is skipped with a warning rather than fatal.
 * Also the times of a series' snapshots: capture time, else a time in the file name, else mtime.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isUrl } from '../read/source.js';
import { UsageError } from './exit-codes.js';

export interface InputFile {
  readonly path: string;
  /** Found by expanding a folder or a glob rather than named on the command line. */
  readonly listed: boolean;
  /** The folder given on the command line that the file was found in (recursively): names its process. */
  readonly root?: string;
}

const GLOB = /[*?[]/;

export function expandInputs(args: readonly string[]): InputFile[] {
  const out: InputFile[] = [];
  for (const arg of args) {
    if (arg === '-' || isUrl(arg)) {
      out.push({ path: arg, listed: false });
      continue;
    }
    let st;
    try {
      st = statSync(arg);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) {
      // Recursive (issue 14): an unpacked support bundle reads like the archive it came from.
      const files = walkDirs(arg).flatMap((dir) =>
        readdirSync(dir)
          .filter((f) => !f.startsWith('.'))
          .map((f) => join(dir, f))
          .filter((p) => isFile(p))
          .sort(naturalCompare),
      );
      if (files.length === 0) throw new UsageError(`${arg}: folder holds no files`);
      out.push(...files.map((path) => ({ path, listed: true, root: arg })));
    } else if (!st && GLOB.test(arg)) {
      const files = glob(arg);
      if (files.length === 0) throw new UsageError(`${arg}: no file matches`);
      out.push(...files.map((path) => ({ path, listed: true })));
    } else {
      out.push({ path: arg, listed: false });
    }
  }
  return out;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Files matching a glob, naturally sorted. `*` and `?` do not match `/` or a leading dot. */
export function glob(pattern: string): string[] {
  const absolute = pattern.startsWith('/');
  const parts = pattern.split('/').filter((p) => p !== '');
  let dirs = [absolute ? '/' : '.'];
  const results: string[] = [];
  parts.forEach((seg, i) => {
    const last = i === parts.length - 1;
    const next: string[] = [];
    for (const dir of dirs) {
      if (seg === '**') {
        next.push(...walkDirs(dir));
        continue;
      }
      if (!GLOB.test(seg)) {
        const p = join(dir, seg);
        if (last ? isFile(p) : isDir(p)) (last ? results : next).push(p);
        continue;
      }
      const re = segmentRegex(seg);
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        names = [];
      }
      for (const name of names) {
        if (!re.test(name)) continue;
        const p = join(dir, name);
        if (last ? isFile(p) : isDir(p)) (last ? results : next).push(p);
      }
    }
    dirs = next;
  });
  return [...new Set(results)].sort(naturalCompare);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The folder itself and every folder below it (not following dot-folders). */
function walkDirs(dir: string): string[] {
  const out = [dir];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names.sort()) {
    if (n.startsWith('.')) continue;
    const p = join(dir, n);
    if (isDir(p)) out.push(...walkDirs(p));
  }
  return out;
}

function segmentRegex(seg: string): RegExp {
  let re = seg.startsWith('.') ? '' : '(?!\\.)';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = seg.indexOf(']', i + 1);
      if (end === -1) re += '\\[';
      else {
        const body = seg.slice(i + 1, end).replace(/\\/g, '\\\\');
        re += '[' + (body.startsWith('!') ? '^' + body.slice(1) : body) + ']';
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}

/** `dump-2.txt` before `dump-10.txt`: digit runs compare as numbers; code-point order otherwise. */
export function naturalCompare(a: string, b: string): number {
  const ra = a.match(/\d+|\D+/g) ?? [];
  const rb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(ra.length, rb.length); i++) {
    const x = ra[i];
    const y = rb[i];
    if (x === y) continue;
    if (/^\d/.test(x) && /^\d/.test(y)) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d;
    }
    return x < y ? -1 : 1;
  }
  return ra.length - rb.length;
}

/**
 * A capture time written in a file name, as ms since the epoch (UTC when the name has no zone):
 * `goroutine-2024-05-01T10:15:30Z.txt`, `dump_20240501_101530.txt`, `g-20240501T101530.txt`,
 * `goroutines.1714558530.txt` (epoch seconds) or a 13-digit epoch in ms.
 */
export function timeFromName(path: string): number | undefined {
  // An archive entry (`bundle.tar!dir/pod-goroutine-…`): the entry's own name, not the archive's.
  const name = basename(path.slice(path.lastIndexOf('!') + 1));
  const iso = name.match(
    /(?<!\d)(\d{4})-?(\d{2})-?(\d{2})[T_ .-]?(\d{2})[:_.-]?(\d{2})[:_.-]?(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?(?!\d)/,
  );
  if (iso) {
    const [, y, mo, d, h, mi, s, frac, zone] = iso;
    const ms = frac ? Math.round(Number('0.' + frac) * 1000) : 0;
    let t = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, ms);
    if (zone && zone !== 'Z') {
      const sign = zone[0] === '-' ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    }
    const date = new Date(t);
    if (!Number.isNaN(t) && date.getUTCMonth() === +mo - 1 && +h < 24 && +mi < 60 && +s < 61) return t;
  }
  const epoch = name.match(/(?<!\d)(1\d{9})(\d{3})?(?!\d)/);
  if (epoch) return Number(epoch[1]) * 1000 + (epoch[2] ? Number(epoch[2]) : 0);
  return undefined;
}

/** File modification time in ms, when the input is a file. */
export function mtimeOf(path: string): number | undefined {
  if (path === '-' || isUrl(path)) return undefined;
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}
