/**
 * debug=1 text profiles (`goroutine profile: total N`, `goroutineleak profile: total N`): records of
 * `N @ 0x… 0x…`, an optional `# labels: {…}` line and `#\t0xPC\tfunc+0xOFF\tfile:LINE` frame lines.
 *
 * The text dispatcher (text.ts) recognises the header with `parseProfileHeader`, creates the
 * SnapshotBuilder and feeds the following lines one at a time to a `Debug1Reader`. The reader says
 * `false` on the first line that cannot belong to the profile, so the dispatcher can route that line
 * (the next header, a separator printed by the program, a log line) elsewhere.
 *
 * Hot path: a 250k-goroutine process prints thousands of `#` lines; they are cut with indexOf, not
 * regexes, and frames are interned through a FrameTable.
 */
import type { Frame, GroupFlags } from '../model/dump.js';
import { FrameTable, detach, type SnapshotBuilder } from '../model/builder.js';
import { classifyWait } from '../model/wait.js';
import { pkgOf } from './frame.js';
import { parseLabelMap } from './labels.js';

/** google/pprof's legacy header regex (`\A(\S+) profile: total \d+\z`), trailing blanks tolerated. */
const PROFILE_HEADER = /^(\S+) profile: total (\d+)[ \t]*$/;

/** `<name> profile: total N` → name and N; undefined for any other line. */
export function parseProfileHeader(line: string): { profile: string; total: number } | undefined {
  if (line.indexOf(' profile: total ') < 0) return undefined;
  const m = PROFILE_HEADER.exec(line);
  if (!m) return undefined;
  const total = Number(m[2]);
  return Number.isSafeInteger(total) ? { profile: m[1], total } : undefined;
}

/**
 * Import path of a function's package: `pkgOf` of frame.ts (the package ends at the first '.' after
 * the last '/'), shared with the traceback reader so the formats agree. In addition, a name without a
 * '.' in a `.c`/`.s` file is a C or assembly function of the pre-1.5 runtime (`netpollblock`,
 * `runfinq`): package `runtime`.
 */
export function packageOf(func: string, file = ''): string {
  const pkg = pkgOf(func);
  if (pkg !== '') return pkg;
  return file.endsWith('.c') || file.endsWith('.s') ? 'runtime' : '';
}

const LEAKED: GroupFlags = Object.freeze({ leaked: true });
const TAB = 9;
const SPACE = 32;

/** Reads the records of one debug=1 profile; the lines after its header are fed by the dispatcher. */
export class Debug1Reader {
  private readonly flags: GroupFlags | undefined;
  /** Set once a line did not belong to the profile: every later line is refused too. */
  private ended = false;
  /** end() ran: a second call changes nothing. */
  private finished = false;
  private records = 0;
  private unsymbolizedRecords = 0;
  /** Records whose one PC is the last PC of symbolized records: only `runtime.goexit`, which debug=1 never prints. */
  private notStartedRecords = 0;
  /** The last PC of each symbolized record: `runtime.goexit`'s return address, at the bottom of every stack. */
  private readonly bottomPcs = new Set<string>();
  private readonly lone: { count: number; pc: string; labels: Record<string, string> | undefined; partial: boolean }[] = [];
  private warnedElided = false;
  private warnedOrphan = false;
  /** The last input line that belonged to the profile (0: none after the header). */
  private lastNo = 0;

  // The open record (count < 0: none).
  private count = -1;
  /** The `@` part of the record line (` 0x… 0x…`), turned into pseudo-frames only if no `#` frame follows. */
  private pcs = '';
  private labels: Record<string, string> | undefined;
  private frames: Frame[] = [];
  /** The last `#` frame is held back one line: it is inlined iff the next `#` line has the same PC. */
  private pending: FrameLine | undefined;
  /**
   * `#` line → its parsed frame. Records share most frames (the same `#` line recurs in every record
   * through net/http, grpc…), so each distinct line is cut and interned once. Keyed by the whole line:
   * one native hash of it costs less than reading its PC digit by digit in JavaScript.
   */
  private readonly byText = new Map<string, FrameLine>();

  constructor(
    private readonly b: SnapshotBuilder,
    private readonly table: FrameTable = new FrameTable(),
  ) {
    // Every goroutine a goroutineleak profile lists was proven leaked by the GC.
    this.flags = b.header.profile === 'goroutineleak' ? LEAKED : undefined;
  }

  /** One line after the header (prefix and CR already stripped). false: not part of this profile. */
  line(text: string, no: number): boolean {
    if (this.ended) return false;
    const c = text.charCodeAt(0);
    if (text.length === 0 || ((c === SPACE || c === TAB) && text.trim().length === 0)) return true;
    if (c === 0x23 /* # */) {
      // `#\t0x…`, nearly every line of a profile, straight to its frame; the rest through hashLine.
      if (this.count >= 0 && text.charCodeAt(1) === TAB && text.charCodeAt(2) === 0x30 && text.charCodeAt(3) === 0x78) this.frameLine(text, 2);
      else this.hashLine(text, 1, no);
    } else if (c === 0x5c /* \ */ && text.charCodeAt(1) === 0x23) {
      // Markdown-escaped `\#` (pasted into a README); the dispatcher normally unescapes it first.
      this.hashLine(text, 2, no);
    } else if (c >= 0x30 && c <= 0x39 && this.recordLine(text)) {
      // recordLine opened the record
    } else if (text === '...' || text === '…') {
      // A human cut records out of a pasted profile; the totals check below will say how many.
      if (!this.warnedElided) {
        this.warnedElided = true;
        this.b.warn({ severity: 'warning', code: 'elided-text', line: no, message: `line ${no} is '${text}': part of the profile was cut out by hand` });
      }
    } else {
      this.flush(false);
      this.ended = true;
      return false;
    }
    this.b.setLastLine(no);
    this.lastNo = no;
    return true;
  }

  /** The profile is over: flush the last record (which needs no trailing blank line) and check totals. */
  end(truncated: boolean): void {
    if (this.finished) return;
    this.finished = true;
    const wasOpen = this.count >= 0;
    this.flush(truncated && wasOpen);
    this.ended = true;
    this.addLoneRecords();
    const b = this.b;
    const name = b.header.profile;
    if (this.notStartedRecords > 0) {
      b.warn({
        severity: 'info',
        code: 'not-started',
        message: `${this.notStartedRecords} record${this.notStartedRecords === 1 ? ' holds' : 's hold'} only runtime.goexit (the PC at the bottom of every other stack): goroutines created but not yet running`,
      });
    }
    if (this.unsymbolizedRecords > 0) {
      b.warn({
        severity: 'warning',
        code: 'unsymbolized',
        message: `${this.unsymbolizedRecords} of ${this.records} records have no '#' frame lines (unsymbolized, or every frame hidden); their raw PCs are kept as frames`,
      });
    }
    const declared = b.header.declaredTotal;
    const read = b.goroutines;
    if (truncated) {
      b.markTruncated({
        severity: 'warning',
        code: 'truncated',
        ...(this.lastNo > 0 ? { line: this.lastNo } : {}),
        message: `the input ended inside the ${name} profile${this.lastNo > 0 ? ` after line ${this.lastNo}` : ''}: read ${read}${declared !== undefined ? ` of ${declared}` : ''} goroutines`,
      });
    } else if (declared !== undefined && read < declared) {
      // Fewer goroutines than the header states: records were cut off or cut out. Counts are lower bounds.
      b.markTruncated({
        severity: 'warning',
        code: 'total-mismatch',
        ...(this.lastNo > 0 ? { line: this.lastNo } : {}),
        message: `the ${name} profile says total ${declared} but its records add up to ${read}${this.lastNo > 0 ? ` (it ends at line ${this.lastNo})` : ''}: records are missing, counts are lower bounds`,
      });
    } else if (declared !== undefined && read > declared) {
      b.warn({
        severity: 'warning',
        code: 'total-mismatch',
        message: `the ${name} profile says total ${declared} but its records add up to ${read}`,
      });
    }
  }

  /** `N @ 0x… 0x…` (google/pprof: `\A(\d+) @(( 0x[0-9a-f]+)+)\z`). false when the line is not one. */
  private recordLine(text: string): boolean {
    const at = text.indexOf(' @');
    if (at <= 0) return false;
    for (let i = 0; i < at; i++) {
      const d = text.charCodeAt(i);
      if (d < 0x30 || d > 0x39) return false;
    }
    const rest = text.slice(at + 2);
    // A cut-off last line may end right after '@'; anything else must be PCs.
    if (rest.length > 0 && !rest.startsWith(' 0x')) return false;
    const count = Number(text.slice(0, at));
    if (!Number.isSafeInteger(count)) return false;
    this.flush(false);
    this.count = count;
    this.pcs = rest;
    this.records++;
    return true;
  }

  /** A `#` line: frame (`#\t0xPC…`), `# labels: {…}`, or something else (warned, skipped). */
  private hashLine(text: string, start: number, no: number): void {
    if (this.count < 0) {
      if (!this.warnedOrphan) {
        this.warnedOrphan = true;
        this.b.warn({ severity: 'warning', code: 'unparsed-line', line: no, message: `line ${no}: '#' line before any record, skipped` });
      }
      return;
    }
    let p = start;
    while (p < text.length && (text.charCodeAt(p) === TAB || text.charCodeAt(p) === SPACE)) p++;
    if (text.startsWith('0x', p)) {
      this.frameLine(text, p);
    } else if (text.startsWith('labels:', p)) {
      this.labelsLine(text, p + 7, no);
    } else {
      this.b.warn({ severity: 'warning', code: 'unparsed-line', line: no, message: `line ${no}: unrecognised '#' line in a debug=1 profile, skipped` });
    }
  }

  /** `0xPC<tabs>func+0xOFF<tabs>file:LINE` from position p; tabwriter pads columns with runs of tabs. */
  private frameLine(text: string, p: number): void {
    let fl = this.byText.get(text);
    if (fl === undefined) {
      fl = parseFrameLine(text, p);
      this.byText.set(detach(text), fl);
    }
    if (this.pending) this.pushPending(this.pending.pc === fl.pc);
    this.pending = fl;
  }

  /**
   * `# labels: {"k":"v", "k2":"v2"}`: Go prints each key and value through `%q`, so quotes, commas
   * and colons inside values are escaped or quoted; labels.ts scans that (shared with tracebacks).
   */
  private labelsLine(text: string, p: number, no: number): void {
    const parsed = parseLabelMap(text.slice(p));
    if (!parsed) {
      this.b.warn({ severity: 'warning', code: 'bad-labels', line: no, message: `line ${no}: labels not understood, dropped: ${text.slice(p, p + 200).trim()}` });
      return;
    }
    this.labels = this.labels ? { ...this.labels, ...parsed } : parsed;
  }

  /** One-PC records: goexit's PC is a goroutine created but not yet running; any other, an unsymbolized frame. */
  private addLoneRecords(): void {
    for (const r of this.lone) {
      const notStarted = this.bottomPcs.has(r.pc);
      if (notStarted) this.notStartedRecords++;
      else this.unsymbolizedRecords++;
      const frames = [notStarted ? this.table.frame('runtime.goexit', 'runtime', '', 0, false) : this.table.frame(r.pc, '', '', 0, false)];
      this.b.add({
        count: r.count,
        state: '',
        waitKind: notStarted ? 'runnable' : classifyWait('', frames, 'debug1'),
        frames,
        ...(this.flags ? { flags: this.flags } : {}),
        ...(r.labels ? { labels: r.labels } : {}),
        ...(r.partial ? { partial: true } : {}),
      });
    }
  }

  /** Consecutive `#` lines with one PC are an inline group: all but the last are inlined. */
  private pushPending(inlined: boolean): void {
    const fl = this.pending!;
    let f = inlined ? fl.inlinedFrame : fl.frame;
    if (!f) {
      f = this.table.frame(fl.func, fl.pkg, fl.file, fl.line, inlined);
      if (inlined) fl.inlinedFrame = f;
      else fl.frame = f;
    }
    this.frames.push(f);
    this.pending = undefined;
  }

  private flush(partial: boolean): void {
    if (this.count < 0) return;
    if (this.pending) this.pushPending(false);
    let frames = this.frames;
    const pcs = this.pcs.trim();
    if (frames.length > 0) {
      this.bottomPcs.add(pcs.slice(pcs.lastIndexOf(' ') + 1));
    } else if (pcs.length > 0 && !pcs.includes(' ')) {
      // One PC and no `#` line: goexit's PC (debug=1 never prints that frame) or an unsymbolized
      // leaf; told apart at the end, once the bottom PCs of the symbolized records are known.
      this.lone.push({ count: this.count, pc: pcs, labels: this.labels, partial });
    } else {
      // No `#` lines: an unsymbolized profile, or every frame was a hidden runtime one. Raw PCs keep
      // distinct stacks apart (return addresses, as printed on the record line).
      this.unsymbolizedRecords++;
      frames = [];
      for (const pc of pcs.split(' ')) if (pc.length > 0) frames.push(this.table.frame(pc, '', '', 0, false));
    }
    if (frames.length > 0) {
      this.b.add({
        count: this.count,
        state: '',
        waitKind: classifyWait('', frames, 'debug1'),
        frames,
        ...(this.flags ? { flags: this.flags } : {}),
        ...(this.labels ? { labels: this.labels } : {}),
        ...(partial ? { partial: true } : {}),
      });
    }
    this.count = -1;
    this.pcs = '';
    this.labels = undefined;
    this.frames = [];
  }
}

/** One parsed `#` frame line, with its interned Frame once built (inlined or not). */
interface FrameLine {
  pc: string;
  func: string;
  pkg: string;
  file: string;
  line: number;
  frame?: Frame;
  inlinedFrame?: Frame;
}

function parseFrameLine(text: string, p: number): FrameLine {
  const n = text.length;
  let e = nextTab(text, p);
  const pc = text.slice(p, e);
  p = skipTabs(text, e);
  // `#\t0x…` alone: the runtime could not symbolize this PC; the PC stands in for the function.
  if (p >= n) return { pc, func: pc, pkg: '', file: '', line: 0 };
  e = nextTab(text, p);
  let func = text.slice(p, e);
  const off = func.lastIndexOf('+0x');
  if (off > 0) func = func.slice(0, off);
  p = skipTabs(text, e);
  let file = '';
  let line = 0;
  if (p < n) {
    let fileLine = text.slice(p).trimEnd();
    if (fileLine.indexOf('](') >= 0) fileLine = unlinkMarkdown(fileLine);
    // Split on the LAST colon: Windows drives (`C:/…`) and odd directory names have colons.
    const colon = fileLine.lastIndexOf(':');
    const ln = colon > 0 ? parseDigits(fileLine, colon + 1) : -1;
    if (ln >= 0) {
      file = fileLine.slice(0, colon);
      line = ln;
    } else {
      file = fileLine;
    }
  }
  return { pc, func, pkg: packageOf(func, file), file, line };
}

function nextTab(s: string, p: number): number {
  const t = s.indexOf('\t', p);
  return t < 0 ? s.length : t;
}

function skipTabs(s: string, p: number): number {
  while (p < s.length && (s.charCodeAt(p) === TAB || s.charCodeAt(p) === SPACE)) p++;
  return p;
}

/** Non-negative integer made of all the characters from p to the end; -1 if there are none or others. */
function parseDigits(s: string, p: number): number {
  if (p >= s.length) return -1;
  let v = 0;
  for (let i = p; i < s.length; i++) {
    const d = s.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** `…/src/[github.com/x/y.go:33](https://…#L33)` → `…/src/github.com/x/y.go:33` (a README linkifier). */
function unlinkMarkdown(s: string): string {
  const close = s.indexOf('](');
  const open = s.lastIndexOf('[', close);
  if (open < 0 || !s.endsWith(')')) return s;
  return s.slice(0, open) + s.slice(open + 1, close);
}
