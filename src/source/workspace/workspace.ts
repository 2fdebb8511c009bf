/**
 * The source checkout as a set of Go packages: loads packages by directory or import path (go.mod
 * `module` and local `replace` directives, `vendor/`, or a directory suffix), and finds the packages
 * that import a given one (a text pre-filter, then a parse), so channels can be followed across
 * package boundaries.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { GoFile, GoFiles } from '../syntax/parser.js';
import type { SourceIndex } from './locate.js';
import { GoPackage, type Packages } from './package.js';

interface Module {
  readonly path: string;
  readonly dir: string;
}

function parseGoMod(text: string, dir: string): { module?: Module; replaces: Module[] } {
  const out: { module?: Module; replaces: Module[] } = { replaces: [] };
  const m = /^\s*module\s+("?)([^\s"]+)\1/m.exec(text);
  if (m) out.module = { path: m[2], dir };
  const lines = text.split(/\r?\n/);
  let inBlock = false;
  for (const raw of lines) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (/^replace\s*\($/.test(line)) inBlock = true;
    else if (inBlock && line === ')') inBlock = false;
    const body = inBlock ? line : /^replace\s+(.*)$/.exec(line)?.[1];
    const r = body ? /^(\S+)(?:\s+\S+)?\s*=>\s*(\.{1,2}\/\S*|\.{1,2})(?:\s+\S+)?$/.exec(body) : null;
    if (r) {
      const target = posix.normalize(posix.join(dir || '.', r[2]));
      if (!target.startsWith('..')) out.replaces.push({ path: r[1], dir: target === '.' ? '' : target });
    }
  }
  return out;
}

/** Packages loaded at most (each is parsed whole), and bytes of source read to find importers. */
const MAX_PACKAGES = 200;
const MAX_SCAN_BYTES = 64 * 1024 * 1024;
const MAX_IMPORTERS = 64;
const MAX_NOTES = 5;
/** Bytes read from the top of a file to find its imports. */
const HEAD_BYTES = 32 * 1024;

/** The first HEAD_BYTES of a file, as a fresh string (never a slice of a large one). */
function head(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export class Workspace implements Packages {
  private readonly pkgs = new Map<string, GoPackage | null>();
  /** Set when a limit stopped the analysis from following code further. */
  limited = false;
  /** What resolution could not decide (interface calls with several implementations), at most MAX_NOTES. */
  readonly notes = new Set<string>();
  private readonly modules: Module[] = [];
  private readonly importers = new Map<string, GoPackage[]>();
  private texts?: Map<string, string>;

  constructor(readonly index: SourceIndex, readonly files: GoFiles) {
    for (const rel of index.modFiles) {
      try {
        const dir = dirname(rel) === '.' ? '' : dirname(rel);
        const mod = parseGoMod(readFileSync(join(index.root, rel), 'utf8'), dir);
        if (mod.module) this.modules.push(mod.module);
        this.modules.push(...mod.replaces);
      } catch {
        // unreadable go.mod: ignore
      }
    }
    this.modules.sort((a, b) => b.path.length - a.path.length);
  }

  /** `Type.method` of the dump's method frames (set by the caller). */
  stackMethods = new Set<string>();

  onStack(typeMethod: string): boolean {
    return this.stackMethods.has(typeMethod);
  }

  note(msg: string): void {
    if (this.notes.size < MAX_NOTES) this.notes.add(msg);
  }

  /** A parsed file of the checkout by relative path. */
  file(rel: string): GoFile | undefined {
    return this.files.get(join(this.index.root, rel), rel);
  }

  /** The parsed file of the checkout that a path printed in a dump names (`pkg`: its frame's package), if any. */
  printedFile(printed: string, pkg = ''): GoFile | undefined {
    const l = this.index.locate(printed, pkg);
    return l ? this.file(l.rel) : undefined;
  }

  /**
   * The package in directory `dir` ('' = root), loaded once; `name` picks another package of the
   * directory (an external test package `x_test`), else the one most non-test files declare.
   */
  pkgByDir(dir: string, name?: string): GoPackage | undefined {
    const key = name === undefined ? dir : `${dir}\0${name}`;
    if (!this.pkgs.has(key)) {
      if (this.pkgs.size >= MAX_PACKAGES) {
        this.limited = true;
        return undefined;
      }
      this.pkgs.set(key, null); // guard against re-entry while loading
      const rels = this.index.filesIn(dir);
      const all = rels.map((r) => this.file(r)).filter((f): f is GoFile => !!f);
      const names = new Map<string, number>();
      for (const f of all) if (!f.rel.endsWith('_test.go')) names.set(f.pkgName, (names.get(f.pkgName) ?? 0) + 1);
      const main = name ?? [...names.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? all[0]?.pkgName;
      const members = all.filter((f) => f.pkgName === main);
      this.pkgs.set(key, members.length > 0 ? new GoPackage(this, dir, members) : null);
    }
    return this.pkgs.get(key) ?? undefined;
  }

  /** The package of a file (its own package when the directory holds an external test package too). */
  pkgOf(file: GoFile): GoPackage | undefined {
    const d = dirname(file.rel);
    const dir = d === '.' ? '' : d;
    const main = this.pkgByDir(dir);
    if (!main || main.files.includes(file)) return main;
    return this.pkgByDir(dir, file.pkgName);
  }

  /** The directory holding import path `path`, when it is in the checkout. */
  dirOfImport(path: string): string | undefined {
    for (const m of this.modules) {
      if (path === m.path || path.startsWith(`${m.path}/`)) {
        const dir = posix.join(m.dir || '.', path.slice(m.path.length + 1) || '.');
        if (this.index.filesIn(dir === '.' ? '' : dir).length > 0) return dir === '.' ? '' : dir;
      }
    }
    const vend = `vendor/${path}`;
    if (this.index.filesIn(vend).length > 0) return vend;
    // Longest directory suffix of at least two components.
    const parts = path.split('/');
    for (let k = parts.length; k >= 2; k--) {
      const suffix = parts.slice(parts.length - k).join('/');
      const dirs = this.index.dirs.filter((d) => d === suffix || d.endsWith(`/${suffix}`));
      if (dirs.length === 1) return dirs[0];
    }
    return undefined;
  }

  pkgByImport(path: string): GoPackage | undefined {
    const dir = this.dirOfImport(path);
    return dir === undefined ? undefined : this.pkgByDir(dir);
  }

  /** The import path of a package of the checkout, when a go.mod says it. */
  importPathOf(pkg: GoPackage): string | undefined {
    for (const m of this.modules) {
      if (m.dir === '' || pkg.dir === m.dir || pkg.dir.startsWith(`${m.dir}/`)) {
        const rest = m.dir === '' ? pkg.dir : pkg.dir.slice(m.dir.length + 1);
        return rest ? `${m.path}/${rest}` : m.path;
      }
    }
    return undefined;
  }

  /** Packages of the checkout that import `pkg`. */
  importersOf(pkg: GoPackage): GoPackage[] {
    const path = this.importPathOf(pkg);
    if (!path) return [];
    const hit = this.importers.get(path);
    if (hit) return hit;
    if (!this.texts) {
      this.texts = new Map();
      let bytes = 0;
      for (const rel of this.index.files) {
        if (rel.startsWith('vendor/') || rel.endsWith('_test.go')) continue;
        try {
          // Only the import block matters here: the head of each file, whatever its size.
          const text = head(join(this.index.root, rel));
          bytes += text.length;
          if (bytes > MAX_SCAN_BYTES) {
            this.limited = true;
            break;
          }
          const end = text.search(/\n(func|type|var|const)\s/);
          this.texts.set(rel, end > 0 ? text.slice(0, end) : text);
        } catch {
          // skip unreadable
        }
      }
    }
    const dirs = new Set<string>();
    const quoted = `"${path}"`;
    for (const [rel, text] of this.texts) if (text.includes(quoted)) dirs.add(dirname(rel) === '.' ? '' : dirname(rel));
    const wanted = [...dirs].filter((d) => d !== pkg.dir);
    if (wanted.length > MAX_IMPORTERS) this.limited = true;
    const out = wanted.slice(0, MAX_IMPORTERS).map((d) => this.pkgByDir(d)).filter((p): p is GoPackage => !!p);
    this.importers.set(path, out);
    return out;
  }
}
