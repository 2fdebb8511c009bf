/**
 * Which modules of a dump are the program's own: every frame whose file maps into the `--source`
 * checkout (outside its vendor/ tree and copies of dependencies under their import path) is the program's code, whatever its import path says (grpc-go
 * debugged in grpc-go's checkout is not "a well-known dependency"). The analysis then takes those
 * import-path roots as `userModules`.
 */
import { dirname } from 'node:path';
import { frameOrigin, packageOfFunc } from '../../analyze/origin.js';
import type { Frame } from '../../model/dump.js';
import type { SourceIndex } from './locate.js';

/** Hosts whose import paths name a repository in three components (`github.com/owner/repo`). */
const THREE_PART = /^(github\.com|gitlab\.com|bitbucket\.org|golang\.org\/x|go\.googlesource\.com|gopkg\.in)\//;

/** `google.golang.org/grpc/internal/cache_test` → `google.golang.org/grpc/internal/cache`. */
function packageOf(f: Pick<Frame, 'pkg' | 'func'>): string {
  return (f.pkg || packageOfFunc(f.func)).replace(/_test$/, '');
}

/**
 * The import-path root of package `pkg` whose file is `rel` in the checkout: the package path less
 * the directories the two share at their end (`google.golang.org/grpc/internal/cache` in
 * `internal/cache/` → `google.golang.org/grpc`); when the checkout holds the whole import path (a
 * GOPATH `src/`), the repository part of the path.
 */
export function moduleRoot(pkg: string, rel: string): string | undefined {
  const p = pkg.split('/');
  const d = dirname(rel) === '.' ? [] : dirname(rel).split('/');
  while (p.length > 0 && d.length > 0 && p[p.length - 1] === d[d.length - 1]) {
    p.pop();
    d.pop();
  }
  if (p.length > 0) return p.join('/');
  const all = pkg.split('/');
  if (!all[0].includes('.')) return all[0];
  return all.slice(0, THREE_PART.test(pkg) ? 3 : 2).join('/');
}

/** Import-path roots of the dump's frames that map into the checkout, sorted. */
export function checkoutModules(index: SourceIndex, frames: Iterable<Pick<Frame, 'pkg' | 'func' | 'file'>>): string[] {
  const seen = new Set<string>();
  const out = new Set<string>();
  for (const f of frames) {
    if (!f.file) continue;
    const k = `${f.pkg}\0${f.func.slice(0, f.func.lastIndexOf('.') + 1)}\0${f.file}`;
    if (seen.has(k)) continue;
    seen.add(k);
    const origin = frameOrigin(f as Frame);
    if (origin === 'runtime' || origin === 'stdlib') continue;
    const pkg = packageOf(f);
    if (!pkg || pkg === 'main') continue;
    const loc = index.locate(f.file, pkg);
    if (!loc || loc.rel.split('/').includes('vendor')) continue;
    // A copy of a dependency kept inside the checkout (`third_party/golang.org/x/sync/errgroup`, a
    // `replace` target): its whole import path under another directory.
    const dir = dirname(loc.rel);
    if (dir.endsWith(`/${pkg}`)) continue;
    // The file's directory must end like its package path (not just a shared base name).
    if (loc.matched < 2 && loc.rel.includes('/')) continue;
    const root = moduleRoot(pkg, loc.rel);
    if (root) out.add(root);
  }
  return [...out].sort();
}
