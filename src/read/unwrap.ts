/**
 * Dumps inside other text. Real dumps arrive with a prefix on every line (kubectl `--timestamps`,
 * journald/syslog, a logger's own header), glued to the end of another line, markdown-escaped, or
 * as the `Output` of `go test -json` events. This file finds where a dump starts in such a line
 * (`findAnchor`), learns the prefix from that line and strips it from the lines that follow
 * (`Unwrapper`), and reassembles `go test -json` output (`TestJsonJoiner`).
 */

export type AnchorKind = 'header' | 'headline' | 'profile' | 'race';

export interface Anchor {
  /** Where the dump text starts in the line. */
  offset: number;
  kind: AnchorKind;
}

/** The strings a dump can start with (go-dump-formats.md); `panic:`/`fatal error:` need a separator before them. */
const HEADLINES = ['panic: ', 'fatal error: ', 'SIGQUIT: '];

/**
 * The first place in `line` where a dump starts: a goroutine header (`goroutine N [` or
 * `goroutine N gp=`), a crash headline, a `<name> profile: total N` header or a race banner.
 * Called only for lines no reader consumed, never on the hot path of a plain dump.
 */
export function findAnchor(line: string): Anchor | undefined {
  let best: Anchor | undefined;
  const consider = (offset: number, kind: AnchorKind): void => {
    if (offset >= 0 && (!best || offset < best.offset)) best = { offset, kind };
  };
  for (let i = line.indexOf('goroutine '); i >= 0; i = line.indexOf('goroutine ', i + 1)) {
    if (isHeaderAt(line, i)) {
      consider(i, 'header');
      break;
    }
  }
  const p = line.indexOf(' profile: total ');
  if (p > 0) {
    let s = p;
    while (s > 0 && line.charCodeAt(s - 1) > 32) s--;
    if (/^\d+\s*$/.test(line.slice(p + 16))) consider(s, 'profile');
  }
  for (const h of HEADLINES) {
    const i = line.indexOf(h);
    if (i === 0 || (i > 0 && isSeparator(line.charCodeAt(i - 1)))) consider(i, 'headline');
  }
  consider(line.indexOf('WARNING: DATA RACE'), 'race');
  return best;
}

/** `goroutine 12 [` / `goroutine 12 gp=` at i. */
function isHeaderAt(line: string, i: number): boolean {
  let j = i + 10;
  const d0 = j;
  while (j < line.length && line.charCodeAt(j) >= 48 && line.charCodeAt(j) <= 57) j++;
  if (j === d0 || line.charCodeAt(j) !== 32) return false;
  return line.startsWith('[', j + 1) || line.startsWith('gp=', j + 1);
}

/**
 * Space, tab, `:`, `]`, `|`, `>` end a log prefix; `^\` is a terminal's echo of Ctrl+\; a backtick
 * opens markdown inline code around a pasted headline.
 */
function isSeparator(c: number): boolean {
  return c === 32 || c === 9 || c === 58 || c === 93 || c === 124 || c === 62 || c === 92 || c === 96;
}

const MONTHS = /^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun)$/;

/**
 * A pattern for a prefix seen once: digit runs match any digits, month and day names any name,
 * interior space runs any spaces; the trailing separator may be missing on an empty line
 * (`2021-07-19T13:56:01.508364946Z` alone for a blank dump line).
 */
export function generalizePrefix(prefix: string): RegExp {
  if (/^\s+$/.test(prefix)) return new RegExp(`^${prefix}`);
  const m = /^(.*?)(\s*)$/s.exec(prefix)!;
  const body = m[1];
  const tail = m[2];
  let src = '';
  for (const tok of body.match(/\d+|[A-Za-z]+| +|./gs) ?? []) {
    if (/^\d/.test(tok)) src += '\\d+';
    else if (tok.charCodeAt(0) === 32) src += ' +';
    else if (MONTHS.test(tok)) src += '[A-Z][a-z]{2}';
    else src += tok.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  src += tail ? `(?:${tail.replace(/\t/g, '\\t')}|\\s*$)` : '';
  return new RegExp(`^${src}`);
}

/** Caret echo of a control key typed at the terminal (`^\` before `SIGQUIT: quit`), not a prefix. */
export function isControlEcho(prefix: string): boolean {
  return /^(?:\^[\\A-Z[\]])+$/.test(prefix);
}

/** Markdown escapes (`\[`, `\_`, `\*`, `\#`) and links `[text](https://…)` undone. */
export function unescapeMarkdown(line: string): string {
  let s = line.replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1');
  if (s.includes('](http')) s = s.replace(/\[([^\]]*)\]\(https?:[^)]*\)/g, '$1');
  return s;
}

/** A `testing` log decoration (`    file_test.go:12: `, `\tfile.go:12: `) and its indentation. */
const TEST_LOG = /^([ \t]*)[\w.-]+\.go:\d+: /;

/** Longest prefix learned: kubectl, journald and logger headers are far shorter. */
export const MAX_PREFIX = 256;

/** Strips the learned prefix (and markdown escaping) from each line. */
export class Unwrapper {
  private re: RegExp | undefined;
  private confirmed = false;
  private misses = 0;
  /** Lines carry markdown escapes (`goroutine 1 \[running\]:`, `\#\t0x…`). */
  markdown = false;
  /** The prefix text removed from the last line given to `strip` ('' when none). */
  lastPrefix = '';
  /** Some line was changed (a prefix stripped or markdown unescaped). */
  used = false;

  get active(): boolean {
    return this.re !== undefined;
  }

  /** `strip` returns lines unchanged: no prefix learned, no markdown escaping. */
  get plain(): boolean {
    return this.re === undefined && !this.markdown;
  }

  /**
   * Learn the prefix found before a dump anchor; the next lines carrying it are stripped. A prefix
   * longer than MAX_PREFIX is no log prefix (glued text): nothing is learned from it.
   */
  learn(prefix: string): void {
    if (prefix.length > MAX_PREFIX) {
      this.re = undefined;
      return;
    }
    // `    x_test.go:144: leaktest: leaked goroutine: goroutine 56 [chan receive]:`: the testing
    // package indents the next lines of a t.Log message one level deeper instead of repeating the prefix.
    const log = TEST_LOG.exec(prefix);
    this.re = log ? new RegExp(`^${log[1]}(?:    |\t)`) : generalizePrefix(prefix);
    this.confirmed = false;
    this.misses = 0;
  }

  forget(): void {
    this.re = undefined;
  }

  /** The line without the learned prefix, leaving the learning state alone. */
  peel(line: string): string {
    const m = this.re?.exec(line);
    return m ? line.slice(m[0].length) : line;
  }

  strip(line: string): string {
    this.lastPrefix = '';
    if (this.re) {
      const m = this.re.exec(line);
      if (m) {
        this.confirmed = true;
        this.misses = 0;
        this.lastPrefix = m[0];
        this.used = true;
        line = line.slice(m[0].length);
      } else if (!this.confirmed && ++this.misses >= 3) {
        // Glued text (`…dumping all stacksgoroutine 1 [running]:`), not a prefix: stop trying.
        this.re = undefined;
      }
    }
    if (line.length > 0 && line.charCodeAt(0) === 92 /* \ */ && /^\\[#[*_]/.test(line)) this.markdown = true; // (length: see TextDumpReader.input)
    if (this.markdown && line.includes('\\')) {
      this.used = true;
      line = unescapeMarkdown(line);
    }
    return line;
  }
}

/**
 * ISO time of a date-and-time at the start of `text`: `2021-07-19T13:56:01.508364946Z` (kubectl),
 * `2019-08-21 12:32:42`, `2009/11/10 23:00:00.123456` (Go's log package). Without a zone it stays local.
 */
export function leadingTimestamp(text: string): string | undefined {
  const m = /^\W{0,4}(\d{4}[-/]\d{2}[-/]\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/.exec(text);
  if (!m) return undefined;
  m[1] = m[1].replaceAll('/', '-');
  const frac = m[3] ? m[3].slice(0, 4).padEnd(4, '0') : '';
  let zone = m[4] ?? '';
  if (zone.length === 5) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const iso = `${m[1]}T${m[2]}${frac}${zone}`;
  if (Number.isNaN(Date.parse(iso))) return undefined;
  return zone ? new Date(iso).toISOString() : iso;
}

/**
 * A line that is only a timestamp with a short label (`2019-08-21 12:32:42 stdout:`): a signal
 * handler or script stamping each dump it appends. Returns the ISO time.
 */
export function timestampHeader(line: string): string | undefined {
  const m = /^\W{0,4}\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?(.*)$/.exec(line);
  if (!m || m[1].length > 40 || /goroutine|panic|error/i.test(m[1])) return undefined;
  return leadingTimestamp(line);
}

/**
 * `go test -json` (test2json) events: the `Output` field carries dump text, and one line of output
 * may be split across events. Output is buffered per test until its newline.
 */
export class TestJsonJoiner {
  private readonly partial = new Map<string, { text: string; no: number }>();

  /** Returns false when `line` is not a test2json event; else emits each completed output line. */
  feed(line: string, no: number, emit: (text: string, no: number) => void): boolean {
    if (line.charCodeAt(0) !== 123 /* { */ || !line.includes('"Action":')) return false;
    let ev: { Action?: unknown; Output?: unknown; Test?: unknown; Package?: unknown };
    try {
      ev = JSON.parse(line);
    } catch {
      return false;
    }
    if (typeof ev !== 'object' || ev === null || typeof ev.Action !== 'string') return false;
    if (typeof ev.Output !== 'string') return true;
    const key = `${String(ev.Package ?? '')}\u0000${String(ev.Test ?? '')}`;
    const held = this.partial.get(key);
    let text = held ? held.text + ev.Output : ev.Output;
    // A completed line is numbered by the event where it started.
    let startNo = held ? held.no : no;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
      let out = text.slice(0, nl);
      if (out.endsWith('\r')) out = out.slice(0, -1);
      emit(out, startNo);
      startNo = no;
      text = text.slice(nl + 1);
    }
    if (text.length) this.partial.set(key, { text, no: startNo });
    else this.partial.delete(key);
    return true;
  }

  /** Output left without a final newline. */
  flush(emit: (text: string, no: number) => void): void {
    for (const { text, no } of this.partial.values()) emit(text, no);
    this.partial.clear();
  }
}
