/**
 * Line shapes of tracebacks, shared by the traceback and race readers: the call line `pkg.F(args)`,
 * the file line `\t/path/file.go:LINE +0x1f fp=0x.. sp=0x.. pc=0x..`, the import path of a function,
 * the goroutine header `goroutine N [status]:` with all its decorations, elision markers and the
 * lines of a crash preamble (go-dump-formats.md).
 *
 * Hot path: every frame of a 600 MB dump passes through `callArgsStart` and `parseFileLine`, so they
 * use charCode scans and indexOf, never regexes, and allocate nothing but the kept substrings.
 */
import type { GroupFlags, Headline } from '../model/dump.js';
import { parseLabelMap, findClosingBrace } from './labels.js';

const OPEN = 40; // (
const CLOSE = 41; // )
const SPACE = 32;
const TAB = 9;
const COLON = 58;

/**
 * Index of the `(` that opens the argument list of a call line, or -1 when the line is not a call.
 * The argument list is the LAST top-level parenthesised group, so receivers (`(*T).m`), generic
 * brackets (`F[...]`) and nested `(...)` inside arguments are kept in the function name:
 * `main.(*T).m(0x1, {0x2?, 0x3})` → 9; `main.bar(...)` → 8.
 */
export function callArgsStart(line: string): number {
  const end = line.length - 1;
  if (end < 2 || line.charCodeAt(end) !== CLOSE) return -1;
  const c0 = line.charCodeAt(0);
  if (c0 === SPACE || c0 === TAB || c0 === OPEN) return -1;
  let depth = 0;
  for (let i = end; i > 0; i--) {
    const c = line.charCodeAt(i);
    if (c === CLOSE) depth++;
    else if (c === OPEN && --depth === 0) return i;
  }
  return -1;
}

/** `main.bar(...)`: the runtime prints `(...)` for inlined frames. */
export function isInlinedCall(line: string, argsStart: number): boolean {
  return line.length - argsStart === 5 && line.startsWith('(...)', argsStart);
}

/** Result of `parseFileLine`; one shared object, overwritten by every call (no allocation per frame). */
export const FILE = { file: '', line: 0, end: 0 };

/**
 * `\t/usr/lib/go/src/net/net.go:182 +0x8e fp=0x.. sp=0x..` → FILE = { file, line, end } (end: just
 * after the line number); false when the line has no `path:LINE`. Leading tabs or spaces are
 * optional (journald strips the tab, some pastes expand it to 8 spaces). The line number follows the
 * LAST colon that is followed by digits and then the end or a space, so
 * `C:/Program Files/Go/src/x.go:12` and `C:\a\b.go:3` split right.
 */
export function parseFileLine(line: string): boolean {
  let start = 0;
  const n = line.length;
  while (start < n) {
    const c = line.charCodeAt(start);
    if (c !== TAB && c !== SPACE) break;
    start++;
  }
  let i = line.lastIndexOf(':');
  while (i > start) {
    let j = i + 1;
    let num = 0;
    while (j < n) {
      const d = line.charCodeAt(j) - 48;
      if (d < 0 || d > 9) break;
      num = num * 10 + d;
      j++;
    }
    if (j > i + 1 && (j === n || line.charCodeAt(j) === SPACE)) {
      FILE.file = line.slice(start, i);
      FILE.line = num;
      FILE.end = j;
      return true;
    }
    i = line.lastIndexOf(':', i - 1);
  }
  return false;
}

/**
 * The file line after a call: `parseFileLine`, tab-indented, space-indented (tabs expanded by a
 * paste) or not indented at all (journald strips the tab; a call line would end in ')').
 */
export function isFileLine(line: string): boolean {
  if (!parseFileLine(line)) return false;
  const c = line.charCodeAt(0);
  return c === TAB || c === SPACE || callArgsStart(line) < 0;
}

/**
 * Import path of a function: the package ends at the first '.' after the last '/' (searched only
 * before any `(` or `[`, which never occur in a package path). `k8s.io/client-go/tools/cache.(*Reflector).watch.func1`
 * → `k8s.io/client-go/tools/cache`; `main.main` → `main`; the pre-1.13 bare `panic` → `runtime`.
 * The linker escapes dots in the last path element as `%2e` (`gopkg.in/yaml%2ev2.F`): undone here.
 * A name without a '.' in a `.c`/`.s` file is a C or assembly function of the pre-1.5 runtime.
 * Same rule as `packageOf` in debug1.ts, so the formats agree.
 */
export function pkgOf(func: string, file = ''): string {
  let limit = func.length;
  const p = func.indexOf('(');
  if (p >= 0) limit = p;
  const b = func.indexOf('[');
  if (b >= 0 && b < limit) limit = b;
  const slash = limit > 0 ? func.lastIndexOf('/', limit - 1) : -1;
  const dot = func.indexOf('.', slash + 1);
  if (dot < 0 || dot > limit) {
    return func === 'panic' || file.endsWith('.c') || file.endsWith('.s') ? 'runtime' : '';
  }
  const pkg = func.slice(0, dot);
  return pkg.includes('%2e') ? pkg.replaceAll('%2e', '.') : pkg;
}

/** `created by pkg.F` (→ id undefined) or, Go 1.21+, `created by pkg.F in goroutine 7` (CL 435337). */
export function parseCreatedBy(line: string): { func: string; id: number | undefined } {
  const rest = line.slice(11);
  const k = rest.lastIndexOf(' in goroutine ');
  const id = k > 0 ? parseInt(rest.slice(k + 14), 10) : NaN;
  return id >= 0 ? { func: rest.slice(0, k), id } : { func: rest, id: undefined };
}

/** What a goroutine header says. */
export interface Header {
  id: number;
  state: string;
  flags?: GroupFlags;
  waitMinutes?: number;
  labels?: Record<string, string>;
}

/**
 * The goroutine header (runtime `goroutineheader`, Go 1.22+ shape):
 * `goroutine <id>[ gp=<ptr> m=<id|nil>[ mp=<ptr>]] [<status>[ (scan)][, N minutes][, locked to thread][, synctest bubble N]][ {k: v}]:`
 * plus the older `labels:{"k": "v"}` inside the brackets, `(leaked)` (Go 1.26 goroutineleak) and
 * `(durable)` (synctest) status decorations. Returns undefined when the line is not a header.
 */
export function parseHeader(line: string): Header | undefined {
  if (!line.startsWith('goroutine ')) return undefined;
  const n = line.length;
  let i = 10;
  let id = 0;
  const digits0 = i;
  while (i < n) {
    const d = line.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    id = id * 10 + d;
    i++;
  }
  if (i === digits0 || line.charCodeAt(i) !== SPACE) return undefined;
  // ` gp=0xc000002380 m=0 mp=0x55d3a0` (GOTRACEBACK≥system, runtime throws; Go 1.22+)
  if (line.startsWith(' gp=', i)) {
    const br = line.indexOf(' [', i);
    if (br < 0) return undefined;
    i = br;
  }
  if (line.charCodeAt(i + 1) !== 91 /* [ */) return undefined;
  const close = findStatusEnd(line, i + 2);
  if (close < 0) return undefined;
  let j = close + 1;
  let labels: Record<string, string> | undefined;
  // Go 1.27 ` {k: v, ...}` after the bracket.
  if (line.charCodeAt(j) === SPACE && line.charCodeAt(j + 1) === 123 /* { */) {
    const end = findClosingBrace(line, j + 1);
    if (end < 0) return undefined;
    labels = parseLabelMap(line.slice(j + 1, end + 1));
    j = end + 1;
  }
  if (line.charCodeAt(j) !== COLON) return undefined;
  const h: Header = { id, state: '' };
  parseStatus(line.slice(i + 2, close), h);
  if (labels) h.labels = { ...h.labels, ...labels };
  return h;
}

/** Index of the `]` closing the status, skipping any `labels:{...}` (whose values may hold `]`). */
function findStatusEnd(line: string, from: number): number {
  for (let k = from; k < line.length; k++) {
    const c = line.charCodeAt(k);
    if (c === 93 /* ] */) return k;
    if (c === 123 /* { */) {
      const e = findClosingBrace(line, k);
      if (e < 0) return -1;
      k = e;
    }
  }
  return -1;
}

const DECORATIONS: ReadonlyArray<[string, keyof GroupFlags]> = [
  [' (scan)', 'scan'],
  [' (leaked)', 'leaked'],
  [' (durable)', 'durable'],
];

/** `chan send (nil chan) (scan), 5 minutes, locked to thread, synctest bubble 3` into `h`. */
function parseStatus(status: string, h: Header): void {
  let s = status;
  const li = s.indexOf('labels:{');
  if (li >= 0) {
    const end = findClosingBrace(s, li + 7);
    if (end > 0) {
      const labels = parseLabelMap(s.slice(li + 7, end + 1));
      if (labels) h.labels = labels;
      s = (s.slice(0, li) + s.slice(end + 1)).replace(/,\s*,/, ',').replace(/,\s*$/, '');
    }
  }
  const comma = s.indexOf(', ');
  let state = comma < 0 ? s : s.slice(0, comma);
  let flags: Record<string, boolean | number> | undefined;
  for (let changed = true; changed; ) {
    changed = false;
    for (const [suffix, flag] of DECORATIONS) {
      if (state.endsWith(suffix)) {
        state = state.slice(0, -suffix.length);
        (flags ??= {})[flag] = true;
        changed = true;
      }
    }
  }
  h.state = state;
  if (comma >= 0) {
    for (const part of s.slice(comma + 2).split(', ')) {
      if (part === 'locked to thread') (flags ??= {}).lockedToThread = true;
      else if (part.endsWith(' minutes') || part.endsWith(' minute')) {
        const m = parseInt(part, 10);
        if (m >= 0) h.waitMinutes = m;
      } else if (part.startsWith('synctest bubble ') || part.startsWith('synctest group ')) {
        const b = parseInt(part.slice(part.lastIndexOf(' ') + 1), 10);
        if (b >= 0) (flags ??= {}).synctestBubble = b;
      }
    }
  }
  if (flags) h.flags = flags as GroupFlags;
}

export type HeadlineKind = Headline['kind'];

/** Headlines whose first `running` goroutine is the one that crashed. */
export const CRASH_KINDS: ReadonlySet<string> = new Set(['panic', 'fatal-error', 'signal', 'test-timeout', 'exception', 'log-fatal']);

/** Functions a complete stack can end with when no `created by` follows. */
export const BOTTOMS: ReadonlySet<string> = new Set([
  'main.main', 'runtime.main', 'runtime.goexit', 'runtime.goexit1', 'runtime.mstart', 'runtime.mstart0',
  'runtime.mstart1', 'runtime.rt0_go', 'runtime.mcall', 'runtime.systemstack', 'runtime.morestack',
  'runtime.asmcgocall', 'runtime.cgocallback', 'runtime.cgocallback_gofunc', 'runtime.sigpanic',
]);

/** `panic: …`, `fatal error: …`, `SIGQUIT: quit`, `Exception 0xc0000005 …` → its kind. */
export function headlineKind(line: string): HeadlineKind | undefined {
  switch (line.charCodeAt(0)) {
    case 112: // p
      if (!line.startsWith('panic: ')) return undefined;
      return line.startsWith('panic: test timed out after ') ? 'test-timeout' : 'panic';
    case 102: // f
      if (!line.startsWith('fatal error: ')) return undefined;
      return line.startsWith('fatal error: all goroutines are asleep') ? 'deadlock' : 'fatal-error';
    case 83: // S
      if (!/^SIG[A-Z0-9]+: /.test(line)) return undefined;
      return line.startsWith('SIGQUIT: ') ? 'sigquit' : 'signal';
    case 69: // E
      return line.startsWith('Exception 0x') ? 'exception' : undefined;
    case 117: // u
      return line.startsWith('unexpected fault address ') ? 'fatal-error' : undefined;
    default:
      return undefined;
  }
}

/**
 * Elision markers: `...additional frames elided...` (before Go 1.21: the first 100 frames, then this)
 * → -1; `...N frames elided...` (Go 1.21+: innermost 50, this, then the outermost 50 follow) → N.
 */
export function elisionCount(line: string): number | undefined {
  if (line === '...additional frames elided...') return -1;
  if (!line.startsWith('...') || !line.endsWith(' frames elided...')) return undefined;
  const k = parseInt(line.slice(3), 10);
  return k >= 0 ? k : undefined;
}

/**
 * A line of a crash preamble after the headline: `\tpanic: Y` after `[recovered]`, a Go 1.23
 * tab-indented multi-line value, `running tests:` and its `\tTestX (10m0s)` lines,
 * `[signal SIGSEGV: …]`, `PC=0x… m=0 sigcode=0`, `signal arrived during external code execution`.
 */
export function isPreambleLine(line: string): boolean {
  return (
    line.charCodeAt(0) === TAB ||
    line.startsWith('[signal ') ||
    line.startsWith('PC=') ||
    line === 'running tests:' ||
    line.startsWith('signal arrived during ')
  );
}

/** Lines of the `runtime stack:` section of a fatal error: frames, `runtime: unexpected return pc…`, hex words. */
export function isRuntimeStackLine(line: string): boolean {
  const c = line.charCodeAt(0);
  return (
    line.length === 0 || c === TAB || c === SPACE || callArgsStart(line) > 0 ||
    line.startsWith('runtime: ') || line.startsWith('stack: ') || line.startsWith('0x')
  );
}

/** Register dump after a signal: `rax    0x104`, `rflags 0x203`, `r15     0x227b059ffff`. */
export function isRegisterLine(line: string): boolean {
  return /^[a-z][a-z0-9]{1,6}\s+0x[0-9a-f]+$/.test(line);
}
