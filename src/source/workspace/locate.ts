/**
 * Map the file paths printed in a dump (GOPATH, module cache `mod@version`, `-trimpath` module paths,
 * Windows paths, build directories) to Go files of a source checkout, by the longest matching path
 * suffix. The checkout is indexed once; `vendor/` is indexed too but only preferred for frames that
 * look like dependencies.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** A located file: absolute path, path relative to the source dir, and how many path parts matched. */
export interface Located {
  readonly path: string;
  readonly rel: string;
  readonly matched: number;
  /** Other files matched equally well (the choice is a guess). */
  readonly ambiguous: boolean;
}

const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn', '_build', 'dist']);
const MAX_FILES = 200_000;

/** Split a printed path into components: `\` and `/` separators, drive letter and `@version` dropped. */
export function pathParts(p: string): string[] {
  const parts = p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  if (parts.length > 0 && /^[A-Za-z]:$/.test(parts[0])) parts.shift();
  return parts.map((s) => s.replace(/@v[^/\\]*$/, ''));
}

/** Does the printed path look like a dependency (module cache, vendor, GOPATH/pkg/mod)? */
export function looksLikeDependency(p: string): boolean {
  return /@v\d/.test(p) || /[\\/]pkg[\\/]mod[\\/]/.test(p) || /(^|[\\/])vendor[\\/]/.test(p);
}

export class SourceIndex {
  /** basename → relative paths (with `/`). */
  private readonly byBase = new Map<string, string[]>();
  private readonly byDir = new Map<string, string[]>();
  readonly files: string[] = [];
  /** go.mod files, relative. */
  readonly modFiles: string[] = [];
  /** Directories holding .go files, relative ('' = root). */
  readonly dirs: string[] = [];
  /** Set when the walk stopped at MAX_FILES. */
  truncated = false;

  constructor(readonly root: string) {
    this.scan('');
  }

  private scan(rel: string): void {
    let entries;
    try {
      entries = readdirSync(join(this.root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (this.files.length >= MAX_FILES) {
        this.truncated = true;
        return;
      }
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (SKIP_DIRS.has(e.name) || (e.name.startsWith('.') && e.name !== '.')) continue;
        this.scan(r);
      } else if (e.isFile() && e.name === 'go.mod') {
        this.modFiles.push(r);
      } else if (e.isFile() && e.name.endsWith('.go')) {
        const inDir = this.byDir.get(rel);
        if (inDir) inDir.push(r);
        else {
          this.byDir.set(rel, [r]);
          this.dirs.push(rel);
        }
        this.files.push(r);
        const list = this.byBase.get(e.name);
        if (list) list.push(r);
        else this.byBase.set(e.name, [r]);
      }
    }
  }

  /** Go files of the directory `relDir` ('' for the root), relative paths. */
  filesIn(relDir: string): string[] {
    return this.byDir.get(relDir) ?? [];
  }

  /**
   * The file best matching a printed path: most trailing components equal, then (for frames that are
   * not dependencies) outside `vendor/`, then the package path `pkg` matching the directory, then the
   * shortest path. Case-insensitive retry for Windows paths.
   */
  locate(printed: string, pkg = ''): Located | undefined {
    const want = pathParts(printed);
    if (want.length === 0) return undefined;
    const exact = this.best(want, pkg, printed, false);
    if (exact || !/^[A-Za-z]:|\\/.test(printed)) return exact;
    return this.best(want, pkg, printed, true);
  }

  private best(want: string[], pkg: string, printed: string, fold: boolean): Located | undefined {
    const base = want[want.length - 1];
    const cands = fold
      ? [...this.byBase.entries()].filter(([b]) => b.toLowerCase() === base.toLowerCase()).flatMap(([, l]) => l)
      : (this.byBase.get(base) ?? []);
    if (cands.length === 0) return undefined;
    const dep = looksLikeDependency(printed);
    const pkgParts = pkg ? pathParts(pkg) : [];
    const eq = (a: string, b: string) => (fold ? a.toLowerCase() === b.toLowerCase() : a === b);
    const scored = cands.map((rel) => {
      const have = rel.split('/');
      let n = 0;
      while (n < have.length && n < want.length && eq(have[have.length - 1 - n], want[want.length - 1 - n])) n++;
      const vendored = have[0] === 'vendor' || have.includes('vendor');
      const dirs = have.slice(0, -1);
      let p = 0;
      while (p < dirs.length && p < pkgParts.length && eq(dirs[dirs.length - 1 - p], pkgParts[pkgParts.length - 1 - p])) p++;
      // A candidate whose own next directory differs from the printed one conflicts; one whose path is used up (at the checkout's root) does not.
      return { rel, n, vendorPenalty: vendored === dep ? 0 : 1, p, len: have.length, conflict: n < have.length && n < want.length ? 1 : 0 };
    });
    scored.sort((a, b) => b.n - a.n || a.vendorPenalty - b.vendorPenalty || a.conflict - b.conflict || b.p - a.p || a.len - b.len || (a.rel < b.rel ? -1 : 1));
    const top = scored[0];
    // Only the base name equal, and the candidate has other directories: not the same file
    // (`/usr/lib/go/src/net/http/server.go` is not `internal/receiver/server.go`).
    if (top.n < 2 && top.n < top.len) return undefined;
    const ambiguous = scored.length > 1 && scored[1].n === top.n && scored[1].vendorPenalty === top.vendorPenalty && scored[1].conflict === top.conflict && scored[1].p === top.p;
    return { path: join(this.root, top.rel), rel: top.rel, matched: top.n, ambiguous };
  }
}
