/**
 * The program's own modules, found from the dump itself before any list of well-known dependencies:
 * when the dump comes from grpc-go's or raft's own tests, their frames are the program, not a
 * dependency. Told, in order, from
 * 1. the package of the test function a `testing.tRunner` frame runs (`…/grpc/internal/transport.TestX`);
 * 2. `main.main`'s file: the module whose checkout holds it (the import path aligned with the file's
 *    directory, as GOPATH and module checkouts both lay packages out);
 * 3. the creators of goroutines (`created by X`): a creator in a `_test.go` file is test code of the
 *    program (an excerpt may show the goroutines a test started, not the test); a creator whose file
 *    lies in the checkout of a module found above belongs to the same checkout (another module of a
 *    multi-module repository).
 * Frames in the module cache, `-trimpath` module paths (`x@v1.2.3/`) and vendor trees are never the
 * program's. What is found goes into `AnalyzeOptions.userModules` (with the user's own, which come first).
 */
import type { Creator, Frame, Snapshot } from '../model/dump.js';
import { FrameSlots } from './frame-slots.js';
import { STDLIB_ROOTS, packageOfFunc } from './origin.js';

export interface ProgramModule {
  /** Module path (import-path prefix), e.g. `google.golang.org/grpc`. */
  readonly module: string;
  /** Why it was taken as the program's: `the package of TestFoo`, `main.main's checkout`. */
  readonly why: string;
}

const NOT_THE_PROGRAM = /(?:^|\/)pkg\/mod\/|@v\d|(?:^|\/)vendor\//;
const TEST_FUNC = /\.(?:Test|Benchmark|Fuzz|Example)[A-Z0-9_]\w*$|\.(?:Test|Benchmark|Fuzz|Example)$/;
/** Hosts whose module paths have three elements (`github.com/owner/repo`). */
const THREE = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'gitee.com', 'codeberg.org', 'golang.org']);

/** The module an import path most likely belongs to, from its host's layout (`/vN` kept). */
export function hostModule(pkg: string): string {
  const parts = pkg.split('/');
  const n = !parts[0].includes('.') ? 1 : THREE.has(parts[0]) ? 3 : parts[0] === 'cloud.google.com' ? 3 : 2;
  const m = parts.slice(0, Math.min(n, parts.length));
  if (parts.length > n && /^v\d+$/.test(parts[n])) m.push(parts[n]);
  return m.join('/');
}

interface Checkout {
  readonly module: string;
  /** The directory the module's root package lies in ('' when unknown). */
  readonly root: string;
}

/** Where `frame`'s module is checked out: its import path aligned with its file's directory. */
function checkoutOf(frame: Pick<Frame, 'func' | 'pkg' | 'file'>): Checkout | undefined {
  const file = frame.file.replace(/\\/g, '/');
  if (NOT_THE_PROGRAM.test(file)) return undefined;
  let pkg = frame.pkg || packageOfFunc(frame.func);
  if (pkg.endsWith('_test')) pkg = pkg.slice(0, -5);
  if (!pkg || pkg === 'main' || STDLIB_ROOTS.has(pkg.split('/', 1)[0])) return undefined;
  const dir = file.slice(0, Math.max(0, file.lastIndexOf('/'))).split('/');
  const parts = pkg.split('/');
  let k = 0;
  while (k < parts.length && k < dir.length && parts[parts.length - 1 - k] === dir[dir.length - 1 - k]) k++;
  const host = hostModule(pkg);
  const hostLen = host.split('/').length;
  // The aligned part is the package's path inside its module; what precedes it is the module path.
  // A checkout named after its repository aligns one element too many: never shorter than the host's.
  const modLen = Math.max(parts.length - k, hostLen);
  const module = parts.slice(0, modLen).join('/');
  const inside = parts.length - modLen;
  const root = k >= inside ? dir.slice(0, dir.length - inside).join('/') : '';
  return { module, root };
}

function under(file: string, root: string): boolean {
  return root.length > 0 && file.replace(/\\/g, '/').startsWith(`${root}/`);
}

/** The program's modules, by how they were found; empty when the dump tells none. */
export function programModules(snapshot: Snapshot): ProgramModule[] {
  const out: ProgramModule[] = [];
  const roots: Checkout[] = [];
  const add = (c: Checkout | undefined, why: string) => {
    if (!c || out.some((m) => m.module === c.module)) return;
    out.push({ module: c.module, why });
    roots.push(c);
  };
  const groups = snapshot.groups;
  const mains = testsAndMains(groups, add);
  // main.main's module: the checkout of another frame that holds main's file, or GOPATH's `src/` layout.
  for (const m of mains) {
    const file = m.file.replace(/\\/g, '/');
    if (NOT_THE_PROGRAM.test(file)) continue;
    let found = checkoutHolding(file, groups);
    const src = file.lastIndexOf('/src/');
    if (!found && src >= 0) {
      const pkg = file.slice(src + 5, file.lastIndexOf('/'));
      if (pkg.includes('.')) {
        const module = hostModule(pkg);
        found = { module, root: `${file.slice(0, src + 5)}${module}` };
      }
    }
    add(found, "main.main's checkout");
  }
  // Creators in the checkout of a module found above: other modules of the same repository.
  if (roots.length > 0) {
    const top = roots.map((r) => r.root.slice(0, Math.max(0, r.root.lastIndexOf('/'))));
    // A creator decides the same while the roots are the same: most groups share a few creators
    // (one `go` statement per kind of goroutine), each its own object.
    const decided = new CreatorMemo();
    for (let gi = 0; gi < groups.length; gi++) {
      const c = groups[gi].creator;
      if (!c || decided.has(c, roots.length)) continue;
      const co = checkoutOf(c);
      // Same checkout and same repository (GOPATH puts other repositories of one owner side by side).
      const mate = co && roots.find((r, i) => under(c.file, top[i] ?? '') && hostModule(r.module) === hostModule(co.module));
      if (co && mate) add(co, `creates goroutines from the checkout of ${mate.module}`);
      decided.set(c, roots.length);
    }
  }
  return out;
}

/**
 * Adds (with `add`) the package of each test function a `testing.tRunner` frame runs and of each
 * creator in a `_test.go` file; returns the `main.main` frames. (A function of its own: V8 compiles
 * a called-once function's long loop with the code after it, and leaving the loop threw that away.)
 */
function testsAndMains(groups: Snapshot['groups'], add: (c: Checkout | undefined, why: string) => void): Frame[] {
  const mains: Frame[] = [];
  // (Indexed loops: cold code allocates an iterator result per for-of step.)
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi];
    const fr = g.frames;
    for (let i = 0; i + 1 < fr.length; i++) {
      const f = fr[i];
      if (fr[i + 1].func === 'testing.tRunner' && TEST_FUNC.test(f.func)) add(checkoutOf(f), `the package of ${f.func.slice(f.func.lastIndexOf('/') + 1)}`);
    }
    // A goroutine created by test code (`created by pkg.TestX`, a helper in a _test.go file): the
    // test's package is the program's, even where the test goroutine itself is not in the dump.
    const c = g.creator;
    if (c && c.file.endsWith('_test.go')) add(checkoutOf(c), `created goroutines from its test ${c.func.slice(c.func.lastIndexOf('/') + 1)}`);
    const last = fr[fr.length - 1];
    if (last?.func === 'main.main' && !last.file.startsWith('_testmain')) mains.push(last);
  }
  return mains;
}

/**
 * The checkout of the first frame (but main's own) of `groups` whose checkout holds `file`. Decided
 * once per frame (a regex, splits and joins): frames are interned objects that repeat across groups
 * (220,000 frames of 20,000 distinct stacks are a few dozen frames). Where an early frame holds main's
 * file the search ends there anyway; the memo is for dumps where no frame does.
 */
function checkoutHolding(file: string, groups: Snapshot['groups']): Checkout | undefined {
  const holding = new FrameSlots<Checkout | null>();
  for (let gi = 0; gi < groups.length; gi++) {
    const fr = groups[gi].frames;
    for (let i = 0; i < fr.length; i++) {
      const f = fr[i];
      let c = holding.get(f);
      if (c === undefined) {
        const co = f.func.startsWith('main.') ? undefined : checkoutOf(f);
        holding.set(f, (c = co && under(file, co.root) ? co : null));
      }
      if (c !== null) return c;
    }
  }
  return undefined;
}

/**
 * Creators (by function, package and file, the strings `checkoutOf` reads) already decided, with
 * how many roots there were after each: a creator seen again with as many roots decides the same.
 */
class CreatorMemo {
  private readonly byFunc = new Map<string, Map<string, { pkg: string; roots: number }>>();
  /**
   * The creator last decided or found decided, and with how many roots: what the maps hold for its
   * function and file. Consecutive groups mostly share a creator (20,000 groups of distinct stacks
   * started at one `go` statement): its strings compare without the maps' two hashes of each.
   */
  private last: Creator | undefined;
  private lastRoots = -1;

  has(c: Creator, roots: number): boolean {
    const l = this.last;
    if (l !== undefined && roots === this.lastRoots && c.func === l.func && c.file === l.file && c.pkg === l.pkg) return true;
    const e = this.byFunc.get(c.func)?.get(c.file);
    if (e === undefined || e.pkg !== c.pkg || e.roots !== roots) return false;
    this.last = c;
    this.lastRoots = roots;
    return true;
  }

  set(c: Creator, roots: number): void {
    let byFile = this.byFunc.get(c.func);
    if (byFile === undefined) this.byFunc.set(c.func, (byFile = new Map()));
    byFile.set(c.file, { pkg: c.pkg, roots });
    this.last = c;
    this.lastRoots = roots;
  }
}
