/**
 * Input arguments → files: a file as given, every file of a folder (recursively), or the files a glob
 * matches (`*`, `?`, `[abc]`, `**`; for shells that pass them quoted). Files found through a folder or glob
 * are `listed`: one that turns out not to be a dump is skipped with a warning rather than fatal.
 * Also the times of a series' snapshots: capture time, else a time in the file name, else mtime.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import type { globSync as GlobSync } from 'tinyglobby';
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

let globSync: typeof GlobSync | undefined;

/**
 * tinyglobby, with the fdir and picomatch it brings (~90 KB of source to parse), loaded only when a
 * folder or a glob is given: a command's start on files does not pay for it.
 */
async function walker(): Promise<typeof GlobSync> {
  return (globSync ??= (await import('tinyglobby')).globSync);
}

export async function expandInputs(args: readonly string[]): Promise<InputFile[]> {
  const out: InputFile[] = [];
  // Standard input is read once: a second `-` read nothing and was refused as empty.
  if (args.filter((a) => a === '-').length > 1) throw new UsageError('- (standard input) is named more than once: it can be read once');
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
      // Recursive: an unpacked support bundle reads like the archive it came from.
      const files = filesBelow(arg, await walker());
      if (files.length === 0) throw new UsageError(`${arg}: folder holds no files`);
      out.push(...files.map((path) => ({ path, listed: true, root: arg })));
    } else if (!st && GLOB.test(arg)) {
      const files = await glob(arg);
      if (files.length === 0) throw new UsageError(`${arg}: no file matches`);
      out.push(...files.map((path) => ({ path, listed: true })));
    } else {
      out.push({ path: arg, listed: false });
    }
  }
  return out;
}

/**
 * Files a glob matches, naturally sorted: tinyglobby (`*`, `?`, `[abc]`, `**`, braces); `*` matches no
 * leading dot. A file reached twice through symbolic links is listed once.
 */
export async function glob(pattern: string): Promise<string[]> {
  const found = (await walker())(pattern, { onlyFiles: true, dot: false, absolute: isAbsolute(pattern), expandDirectories: false });
  return distinctFiles(found).sort(naturalCompare);
}

/**
 * Every file below a folder (not in dot-folders), in walk order: a folder's own files (naturally
 * sorted) before those of its subfolders (in name order), as an unpacked bundle lists them.
 */
function filesBelow(dir: string, globSync: typeof GlobSync): string[] {
  const found = distinctFiles(globSync('**/*', { cwd: dir, onlyFiles: true, dot: false, expandDirectories: false }), dir);
  return found
    .map((rel) => ({ rel, dir: rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')).split('/') : [], name: basename(rel) }))
    .sort((a, b) => compareDirs(a.dir, b.dir) || naturalCompare(a.name, b.name))
    .map((f) => join(dir, f.rel));
}

/** Pre-order of folder paths: a parent before its children, siblings in code-point order. */
function compareDirs(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/** One path per real file: a symbolic link loop (`sub/loop -> ..`) must not list a folder twice. */
function distinctFiles(paths: readonly string[], base = ''): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  // The shortest path to a file is the one not through a link back up: keep that one.
  const depth = (p: string) => p.split('/').length;
  for (const p of [...paths].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))) {
    let real: string;
    try {
      real = realpathSync(base ? join(base, p) : p);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    out.push(p);
  }
  return out;
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
