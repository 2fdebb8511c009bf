/**
 * The text dispatcher: takes every line of a text input (any log prefix, go test -json, markdown
 * escaping undone by unwrap.ts), finds where dumps start, and routes lines to the reader of that
 * format: debug1.ts (`<name> profile: total N`), traceback.ts (debug=2 / crash / SIGQUIT) and race.ts
 * (`WARNING: DATA RACE`). Text that belongs to no dump is skipped and counted, never fatal.
 *
 * It alone decides where one snapshot ends and the next begins: a new profile header, a crash
 * headline after goroutines, a goroutine id already seen in the snapshot, or a timestamp line
 * (`2019-08-21 12:32:42 stdout:`) between dumps.
 */
import { SnapshotBuilder, type BuilderPart, type FrameTable, type GoroutineRecord } from '../model/builder.js';
import type { Diagnostic, Dump, DumpFormat, Frame, ProfileKind, RaceReport, Snapshot } from '../model/dump.js';
import { dumpContext, mergeFacts, newFacts, notePreamble, noteText, type ContextFacts } from './context.js';
import { excerptContext } from './excerpt.js';
import { Debug1Reader, parseProfileHeader } from './debug1.js';
import { InputError } from './errors.js';
import { parseHeader } from './frame.js';
import { parseLeakRecord, recordHeader, type LeakRecord } from './leakrecord.js';
import type { Bytes } from './lines.js';
import { RaceReader } from './race.js';
import { KnownStacks, TracebackReader, type HeadlineKind, type TracebackHost } from './traceback.js';
import {
  TestJsonJoiner, Unwrapper, findAnchor, isControlEcho, leadingTimestamp, timestampHeader, unescapeMarkdown,
} from './unwrap.js';

export interface TextReadOptions {
  /** Snapshots at most per input (default 10,000). */
  maxSnapshots?: number;
  /** The user says the dump is an excerpt (true) or complete (false); default: told from its signs (excerpt.ts). */
  excerpt?: boolean;
}

/** Go's net/http/pprof debug=2 buffer stops growing at 64 MiB and silently truncates. */
const DEBUG2_CAP = 64 * 1024 * 1024;
const HEADLINE_LINES = 20;
/** A crash preamble waits at most this many lines for its first goroutine. */
const PREAMBLE_GAP = 50;

interface MutableHeadline {
  kind: HeadlineKind;
  message: string;
  lines: string[];
}

interface Snap {
  builder: SnapshotBuilder;
  format: DumpFormat;
  /** Goroutine ids read (debug2): a repeat starts the next snapshot. */
  ids: IdSet;
  /** Last input line that belonged to it. */
  last: number;
  headline?: MutableHeadline;
  /** Continuing with the per-thread dumps of a crash (`-----` then `SIGQUIT: quit`). */
  threadDumps: boolean;
  repeats: number;
  /**
   * `goroutine 42 [running]:` + `goroutine running on other thread; stack unavailable`, held back:
   * when that thread crashes too it prints the same goroutine again with its stack, which replaces it.
   */
  unavailable: Map<number, GoroutineRecord>;
  /**
   * A part of a large file read on its own (chunked.ts): this snapshot continues one begun before the
   * part, assumed to hold goroutines and to have no headline; the reader of the previous part checks
   * those assumptions when it absorbs this one.
   */
  continued: boolean;
  /** What the text around its goroutines says (context.ts): its `DumpContext` once complete. */
  facts: ContextFacts;
}

function newSnap(builder: SnapshotBuilder, format: DumpFormat, last: number, headline: MutableHeadline | undefined, facts: ContextFacts): Snap {
  return { builder, format, ids: new IdSet(), last, headline, threadDumps: false, repeats: 0, unavailable: new Map(), continued: false, facts };
}

/** Goroutines of a snapshot so far; one more for a continued one (it has some before this part). */
function count(s: Snap): number {
  return s.builder.goroutines + (s.continued ? 1 : 0);
}

export class TextDumpReader implements TracebackHost {
  readonly frames: FrameTable;
  private readonly unwrap = new Unwrapper();
  private readonly json = new TestJsonJoiner();
  private readonly tb: TracebackReader;
  private readonly race: RaceReader;
  private debug1: Debug1Reader | undefined;
  private readonly snaps: Snap[] = [];
  private cur: Snap | undefined;
  private readonly races: RaceReport[] = [];
  private readonly warnings: Diagnostic[] = [];
  private readonly wrongProfiles: string[] = [];
  /** UTF-16 units + 1 per line: the byte count for ASCII input (to recognise Go's 64 MiB cap). */
  private chars = 0;
  private lastNo = 0;
  private skipped = 0;
  private firstSkipped = 0;
  /** The last line no reader took (raw), for a log line announcing the dump (`F0719 … ] msg`). */
  private foreignText = '';
  private foreignNo = -1;
  private stampIso: string | undefined;
  private stampNo = -1;
  private separatorNo = -10;
  /** A `WARNING: DATA RACE` banner was seen (even if its report was cut off): the input is not refused. */
  private sawRace = false;
  private held: string | undefined;
  private heldNo = 0;
  /** A test2json event was read (its lines are rebuilt, not the input's own). */
  private sawJson = false;
  /** A continued snapshot was split by a dump start (see `dumpStart`). */
  private splitContinued = false;
  /**
   * Context facts read after the goroutines of the current snapshot: they belong to it if more of its
   * goroutines follow (or the input ends), else to the snapshot that begins next.
   */
  private floating: ContextFacts | undefined;
  /** A leak checker's record line (leakrecord.ts), held until the next line says whether a header follows. */
  private record: { rec: LeakRecord; no: number } | undefined;
  private sawRecord = false;
  /** Line of goleak's `[Goroutine …` that opened a list no `]` has closed yet; 0: none open. */
  private openList = 0;
  private readonly emit = (text: string, no: number): void => this.text(text, no);

  /**
   * `continues`: the input is a later part of a large file, cut at a goroutine header (chunked.ts); it
   * starts inside a plain debug=2 snapshot begun before it. `known`: what readers of inputs before
   * this one learned of their stacks (read-cache.ts); by default nothing.
   */
  constructor(
    readonly source: string,
    readonly opts: TextReadOptions = {},
    continues = false,
    known: KnownStacks = new KnownStacks(),
  ) {
    this.frames = known.frames;
    this.tb = new TracebackReader(this, known);
    this.race = new RaceReader(source, this.frames, (r) => this.races.push(r), (d) => this.warnings.push(d));
    if (continues) this.begin('debug2', 1).continued = true;
  }

  /**
   * Something of a dump was read: a goroutine, a `goroutine profile:` header, a race report, or the
   * header of another profile (refused by name at the end). The path (text-input.ts) stops reading
   * input that has none of these far in.
   */
  foundDump(): boolean {
    return this.sawRace || this.debug1 !== undefined || this.wrongProfiles.length > 0 || this.snaps.some((s) => count(s) > 0);
  }

  line(text: string, no: number): void {
    this.chars += text.length + 1;
    // Each line is read one line late: only `end` knows which line was the last (and maybe cut).
    if (this.held !== undefined) this.input(this.held, this.heldNo);
    this.held = text;
    this.heldNo = no;
    this.wantsBlock = text.charCodeAt(0) === 103 /* g */ && this.plainText() && text.startsWith('goroutine ');
  }

  /** After a goroutine header in plain text: its stack's lines may be taken whole (LineSink.block). */
  wantsBlock = false;
  blockLines = 0;

  /** A buffer for input to be read into, which `block` reads without a copy (TracebackReader.inputBuffer). */
  inputBuffer(size: number): Buffer | undefined {
    return this.tb.inputBuffer(size);
  }

  /**
   * The lines after a goroutine header (or any line: the first of a piece), from `start` in `s`: the
   * held line is read now, then the traceback reader takes the frames of a stack it knows straight
   * from `s` (`takeKnownFrames`); the rest goes line by line as usual. Taking lines here changes
   * nothing but speed: they are read exactly as `line` would have, and `end` never needs the held line
   * (more text follows it).
   */
  block(s: string | undefined, start: number, lineNo: number, bytes: Bytes): number {
    this.wantsBlock = false;
    const held = this.held;
    if (held === undefined) return start;
    this.held = undefined;
    this.input(held, this.heldNo);
    if (!this.plainText()) return start;
    const tb = this.tb;
    let p = start;
    let no = lineNo;
    // Goroutine after goroutine while each one's stack is known, headers included (`takeHeader`).
    for (;;) {
      const end = tb.takeKnownFrames(s, p, bytes, no);
      if (end === p) break;
      no += tb.takenLines;
      // The last line that is not blank belongs to the snapshot (as in `text`).
      this.took(end - p, no, no - (tb.takenEnd ? 1 : 0));
      p = end;
      if (!tb.takenEnd) break;
      const next = tb.takeHeader(bytes, p, no + 1);
      if (next === p) break;
      no++;
      this.took(next - p, no, no);
      p = next;
    }
    this.blockLines = no - lineNo;
    return p;
  }

  /** `chars` characters of a block taken, up to line `no`; `last`: the last of them that is not blank. */
  private took(chars: number, no: number, last: number): void {
    this.chars += chars;
    this.lastNo = no;
    if (this.cur) this.cur.last = last;
  }

  /** Lines reach the traceback reader as they are: no prefix, escaping, test2json or other reader in between. */
  private plainText(): boolean {
    return !this.sawJson && this.debug1 === undefined && this.record === undefined && !this.race.active && this.unwrap.plain;
  }

  private input(text: string, no: number): void {
    this.lastNo = no;
    // (length first: charCodeAt past the end, on the blank line between goroutines, makes V8 drop the
    // optimized code of the caller and make it again)
    if (text.length > 0 && text.charCodeAt(0) === 123 /* { */ && this.json.feed(text, no, this.emit)) {
      this.sawJson = true;
      return;
    }
    this.text(text, no);
  }

  /** One logical line (a test2json event's output is split into these). */
  private text(raw: string, no: number): void {
    const line = this.unwrap.strip(raw);
    if (this.record) this.settleRecord(line);
    if (this.debug1) {
      if (this.debug1.line(line, no)) {
        if (line.length > 0) this.cur!.last = no;
        return;
      }
      this.endDebug1(false);
    }
    if (this.race.active && this.race.line(line, no)) return;
    if (this.tb.line(line, no)) {
      if (this.cur && line.length > 0) this.cur.last = no;
      return;
    }
    this.foreign(raw, line, no);
  }

  /** A line no active reader took: a dump may start in it, else it is skipped. */
  private foreign(raw: string, line: string, no: number): void {
    if (line.length === 0) return;
    const s = this.cur;
    noteText(s && count(s) === 0 ? s.facts : (this.floating ??= newFacts()), line);
    let rest = line;
    let a = findAnchor(line);
    if (!a && line.includes('\\')) {
      // `goroutine 1 \[running\]:`: a dump pasted into markdown.
      const u = unescapeMarkdown(line);
      a = findAnchor(u);
      if (a) {
        this.unwrap.markdown = true;
        rest = u;
      }
    }
    if (a) {
      if (a.offset > 0) {
        const prefix = rest.slice(0, a.offset);
        if (!isControlEcho(prefix)) {
          const full = this.unwrap.lastPrefix + prefix;
          this.unwrap.learn(full);
          this.unwrap.lastPrefix = full;
        }
        rest = rest.slice(a.offset);
      } else if (this.unwrap.active && this.unwrap.lastPrefix === '') {
        this.unwrap.forget(); // the dump starts at column 0 of a line without the learned prefix
      }
      if (a.kind === 'profile') {
        if (this.profile(rest, no)) return;
      } else if (a.kind === 'race') {
        this.sawRace = true;
        this.race.start(no);
        return;
      } else if (this.tb.line(rest, no)) {
        if (this.cur) this.cur.last = no;
        return;
      }
    }
    if (!a && this.leakRecord(line, no)) return;
    if (this.openList > 0 && line.trim() === ']') this.openList = 0;
    if (line.startsWith('==================')) return; // race report delimiter
    if (!a && line.includes(' profile: ')) {
      // Legacy text of another profile (`heap profile: 4: 266528 [123: 11284472] @ heap/1048576`).
      const m = /^(\w+) profile: /.exec(line);
      if (m && this.wrongProfiles.length < 10) this.wrongProfiles.push(`${m[1]} (line ${no})`);
    }
    const iso = timestampHeader(line);
    if (iso) {
      this.stampIso = iso;
      this.stampNo = no;
    }
    if (this.skipped++ === 0) this.firstSkipped = no;
    this.foreignText = raw;
    this.foreignNo = no;
  }

  /**
   * A leak checker's record line (`[Goroutine 13 in state chan send, with F on top of the stack:`):
   * held until the next line, which is either the runtime's header for it (older goleak, tchannel)
   * or already its first frame (newer goleak): then the record is the goroutine's header.
   */
  private leakRecord(line: string, no: number): boolean {
    const rec = parseLeakRecord(line);
    if (!rec) return false;
    const prefix = line.slice(0, rec.offset);
    // ` Goroutine 127 …` after a learned indentation: goleak's separator blank, not a new prefix.
    if (rec.offset > 0 && !(this.unwrap.lastPrefix !== '' && prefix.trim() === '')) {
      const full = this.unwrap.lastPrefix + prefix;
      this.unwrap.learn(full);
      this.unwrap.lastPrefix = full;
    } else if (rec.offset === 0 && this.unwrap.active && this.unwrap.lastPrefix === '') {
      this.unwrap.forget();
    }
    this.record = { rec, no };
    this.sawRecord = true;
    if (rec.opensList) this.openList = no;
    this.foreignNo = no;
    return true;
  }

  /** The line after a record: the runtime's header for it, or the record stands for the header. */
  private settleRecord(line: string): void {
    const { rec, no } = this.record!;
    this.record = undefined;
    const a = findAnchor(line);
    if (a?.kind === 'header' && line.slice(0, a.offset).trim() === '' && parseHeader(line.slice(a.offset))?.id === rec.id) return;
    if (this.tb.line(recordHeader(rec), no) && this.cur) this.cur.last = no;
  }

  /** `goroutine profile: total N` starts a debug=1 snapshot; other profiles are not goroutine dumps. */
  private profile(text: string, no: number): boolean {
    const h = parseProfileHeader(text);
    if (!h) return false;
    if (h.profile === 'goroutine' || h.profile === 'goroutineleak') {
      const s = this.begin('debug1', no, h.profile, h.total);
      this.debug1 = new Debug1Reader(s.builder, this.frames);
      return true;
    }
    if (this.wrongProfiles.length < 10) this.wrongProfiles.push(`${h.profile} (line ${no})`);
    return false;
  }

  private endDebug1(truncated: boolean): void {
    this.debug1?.end(truncated);
    this.debug1 = undefined;
  }

  private begin(format: DumpFormat, no: number, profile: ProfileKind = 'goroutine', declaredTotal?: number, headline?: MutableHeadline): Snap {
    if (this.debug1) this.endDebug1(false);
    const max = this.opts.maxSnapshots ?? 10_000;
    if (this.snaps.length >= max) {
      throw new InputError(this.source, 'too-many-snapshots', `holds more than ${max} dumps (raise with --max-snapshots)`);
    }
    const capturedAt = leadingTimestamp(this.unwrap.lastPrefix) ?? (no - this.stampNo <= 5 ? this.stampIso : undefined);
    this.stampNo = -1;
    if (format === 'debug2' && !headline && no - this.foreignNo <= 2) headline = logHeadline(this.unwrap.peel(this.foreignText));
    const builder = new SnapshotBuilder({
      source: this.source,
      index: this.snaps.length,
      format,
      profile,
      firstLine: no,
      ...(capturedAt ? { capturedAt } : {}),
      ...(declaredTotal !== undefined ? { declaredTotal } : {}),
      ...(headline ? { headline } : {}),
    });
    const s = newSnap(builder, format, no, headline, this.floating ?? newFacts());
    this.floating = undefined;
    this.snaps.push(s);
    this.cur = s;
    return s;
  }

  // TracebackHost

  get headlineKind(): HeadlineKind | undefined {
    return this.cur?.format === 'debug2' ? this.cur.headline?.kind : undefined;
  }

  goroutine(id: number | undefined, no: number): SnapshotBuilder | undefined {
    let s = this.cur;
    const stamped = this.stampNo > (s?.last ?? -1) && no - this.stampNo <= 5;
    if (
      !s || s.format !== 'debug2' || (stamped && count(s) > 0) ||
      (count(s) === 0 && s.headline && no - s.last > PREAMBLE_GAP)
    ) {
      s = this.begin('debug2', no);
    } else if (id !== undefined && id !== 0 && s.ids.has(id) && !s.unavailable.has(id)) {
      if (s.threadDumps) {
        s.repeats++;
        return undefined;
      }
      s = this.begin('debug2', no);
    }
    if (id !== undefined) s.ids.add(id);
    s.last = no;
    if (this.floating !== undefined) {
      mergeFacts(s.facts, this.floating);
      this.floating = undefined;
    }
    return s.builder;
  }

  dumpStart(id: number | undefined, no: number): SnapshotBuilder | undefined {
    const s = this.cur;
    if (!s || s.format !== 'debug2' || s.headline || count(s) === 0) return undefined;
    // A continued snapshot's headline is unknown here: the split holds only if it has none.
    if (s.continued) this.splitContinued = true;
    const n = this.begin('debug2', no);
    if (id !== undefined) n.ids.add(id);
    return n.builder;
  }

  add(b: SnapshotBuilder, g: GoroutineRecord): void {
    const s = this.cur?.builder === b ? this.cur : this.snaps.find((x) => x.builder === b)!;
    if (g.id !== undefined) {
      if (g.flags?.stackUnavailable && g.frames.length === 0 && !s.unavailable.has(g.id)) {
        s.unavailable.set(g.id, g);
        return;
      }
      if (s.unavailable.delete(g.id)) {
        // Said, not silent: the header count of the text is one more than the goroutines read.
        b.warn({
          severity: 'info',
          code: 'goroutine-printed-twice',
          message: `goroutine ${g.id} is printed twice (first "running on other thread; stack unavailable", then with its stack): counted once`,
        });
      }
    }
    b.add(g);
  }

  crash(kind: HeadlineKind, text: string, no: number): void {
    const s = this.cur;
    if (s && s.format === 'debug2' && count(s) === 0 && no - s.last <= PREAMBLE_GAP) {
      if (s.headline) this.crashLine(text, no);
      else s.headline = s.builder.header.headline = { kind, message: text, lines: [text] };
    } else if (s && s.format === 'debug2' && no - this.separatorNo <= 3) {
      s.threadDumps = true;
      this.crashLine(text, no);
    } else {
      this.begin('debug2', no, 'goroutine', undefined, { kind, message: text, lines: [text] });
    }
    this.cur!.last = no;
  }

  crashLine(text: string, no: number): void {
    const h = this.cur?.headline;
    if (h && h.lines.length < HEADLINE_LINES) h.lines.push(text);
    if (this.cur) {
      this.cur.last = no;
      notePreamble(this.cur.facts, text);
    }
  }

  threadSeparator(no: number): void {
    this.separatorNo = no;
  }

  elidedByHand(text: string, no: number): boolean {
    const s = this.cur;
    if (!s || s.format !== 'debug2' || count(s) === 0) return false;
    s.builder.markTruncated({ severity: 'warning', code: 'truncated', line: no, message: `line ${no} ('${text.trim()}') says the dump was cut by hand: counts are lower bounds` });
    return true;
  }

  /** `inputCut`: why the input ended before its end, when it did (a gzip stream cut short, a download broken off). */
  end(o: { inputCut?: string }): Dump {
    // Exactly 64 MiB: Go stopped writing there. Without a final newline (+1) the last line is cut
    // mid-line and is not read as if it were whole.
    const atCap = this.chars === DEBUG2_CAP || this.chars === DEBUG2_CAP + 1;
    const lastCut = this.held !== undefined && this.chars === DEBUG2_CAP + 1;
    if (this.held !== undefined) {
      if (lastCut) this.lastNo = this.heldNo;
      else this.input(cutHeader(this.held), this.heldNo);
      this.held = undefined;
    }
    this.json.flush(this.emit);
    if (this.record) this.settleRecord('');
    let note = lastCut ? `; line ${this.lastNo} is cut mid-line and was not read` : '';
    if (atCap) note += '; the input is exactly 64 MiB, where net/http/pprof stops writing debug=2 output: Go truncated this dump';
    else if (this.chars > DEBUG2_CAP - (1 << 16) && this.chars < DEBUG2_CAP) {
      note += '; the input is about 64 MiB, where net/http/pprof stops writing debug=2 output: Go probably truncated this dump';
    }
    const forced = atCap || o.inputCut !== undefined;
    if (this.debug1) this.endDebug1(forced);
    const cut = this.tb.end(this.lastNo, forced);
    const s = this.cur;
    if (cut) {
      cut.builder.markTruncated({ severity: 'warning', code: 'truncated', line: this.lastNo, message: `the input ends ${cut.what}: the last goroutine is partial and counts are lower bounds${note}` });
    } else if (forced && s?.format === 'debug2') {
      const why = o.inputCut ?? `the input ends at line ${this.lastNo}`;
      s.builder.markTruncated({ severity: 'warning', code: 'truncated', line: this.lastNo, message: `${why}: the dump is cut off and counts are lower bounds${note}` });
    } else if (this.openList > 0 && s?.format === 'debug2') {
      s.builder.markTruncated({ severity: 'warning', code: 'truncated', line: this.lastNo, message: `the input ends before the ']' that closes the leak report opened at line ${this.openList}: it was cut off, counts are lower bounds` });
    }
    if (this.floating !== undefined && s !== undefined) mergeFacts(s.facts, this.floating);
    this.floating = undefined;
    this.race.end(this.lastNo);
    return this.assemble();
  }

  /**
   * The end of a part of a large file read on its own (`continues` for all but the first part): its
   * snapshots as builder parts, and whether it can be merged exactly into the parts before it.
   */
  endPart(): TextPart {
    const boundary = this.atBoundary();
    if (this.debug1) this.endDebug1(false);
    const cut = this.tb.end(this.lastNo, false);
    this.race.end(this.lastNo);
    const parts = this.snaps.map((s) => ({ builder: s.builder.toPart(), ids: s.ids.toArray(), last: s.last, headline: s.headline, continued: s.continued, facts: s.facts }));
    const mergeable =
      !cut && this.skipped === 0 && this.warnings.length === 0 && this.races.length === 0 && !this.sawRace && !this.sawRecord && !this.record &&
      this.wrongProfiles.length === 0 && !this.sawJson && !this.unwrap.used &&
      this.snaps.every((s) => s.format === 'debug2' && count(s) > 0 && s.unavailable.size === 0 && s.repeats === 0) &&
      parts.every((p) => p.builder.warnings.length === 0 && !p.builder.truncated);
    return { mergeable, boundary, splitContinued: this.splitContinued, lines: this.lastNo, chars: this.chars, parts };
  }

  /**
   * Fold in the later parts of the input (`endPart` of readers made with `continues`), in input order,
   * after this reader has read the first part. false when one cannot be merged exactly as reading the
   * whole input here would have: the caller then reads it whole. This reader is spent either way.
   */
  absorb(pieces: readonly TextPart[]): boolean {
    const max = this.opts.maxSnapshots ?? 10_000;
    const intern = (f: Frame): Frame => this.frames.intern(f);
    let clean = this.atBoundary();
    let base = this.lastNo;
    for (const piece of pieces) {
      const cur = this.cur;
      const [first, ...rest] = piece.parts;
      if (!clean || !piece.mergeable || !cur || !first?.continued) return false;
      if (piece.splitContinued && cur.headline) return false;
      // A goroutine id seen before the cut would have started a new snapshot there.
      if (cur.ids.hasAny(first.ids)) return false;
      if (this.snaps.length + rest.length > max) return false;
      cur.builder.absorb(first.builder, intern);
      cur.ids.addAll(first.ids);
      // Context facts read after the cut's snapshot's goroutines are its own once more goroutines follow.
      if (first.builder.total > 0) {
        cur.last = first.last + base;
        if (this.floating !== undefined) mergeFacts(cur.facts, this.floating);
        this.floating = undefined;
      }
      mergeFacts(cur.facts, first.facts);
      for (const r of rest) {
        const header = { ...r.builder.header, index: this.snaps.length };
        if (header.firstLine !== undefined) header.firstLine += base;
        const builder = new SnapshotBuilder(header);
        builder.absorb(r.builder, intern);
        const facts = this.floating ?? newFacts();
        this.floating = undefined;
        mergeFacts(facts, r.facts);
        const snap = newSnap(builder, 'debug2', r.last + base, r.headline, facts);
        snap.ids.addAll(r.ids);
        this.snaps.push(snap);
        this.cur = snap;
      }
      this.chars += piece.chars;
      base += piece.lines;
      clean = piece.boundary;
    }
    this.lastNo = base;
    return true;
  }

  /**
   * Whether a later part cut here can be read on its own: between goroutines of a plain debug=2
   * snapshot, with no state that would change how the next lines are read.
   */
  private atBoundary(): boolean {
    if (this.held !== undefined) {
      this.input(this.held, this.heldNo);
      this.held = undefined;
    }
    const s = this.cur;
    return (
      this.tb.betweenGoroutines && this.plainText() &&
      s !== undefined && s.format === 'debug2' && count(s) > 0 && s.unavailable.size === 0 && !s.threadDumps &&
      this.stampNo <= s.last && this.lastNo - this.separatorNo > 3 && this.lastNo - this.foreignNo > 2
    );
  }

  private assemble(): Dump {
    const snapshots: Snapshot[] = [];
    const warnings = this.warnings;
    for (const s of this.snaps) {
      for (const g of s.unavailable.values()) s.builder.add(g);
      if (s.format === 'debug2' && count(s) === 0) {
        const h = s.headline;
        warnings.push({ severity: 'info', code: 'no-goroutines', line: s.builder.header.firstLine, message: h ? `'${h.message}' at line ${s.builder.header.firstLine} is not followed by any goroutine` : `a dump at line ${s.builder.header.firstLine} holds no goroutine` });
        continue;
      }
      if (s.repeats > 0) {
        s.builder.warn({ severity: 'info', code: 'repeated-goroutines', message: `${s.repeats} goroutines printed again by other threads of the crash were counted once` });
      }
      s.builder.header.index = snapshots.length;
      s.builder.setLastLine(s.last);
      const snap = s.builder.build();
      const inBubble = snap.groups.some((g) => g.flags.synctestBubble !== undefined);
      const context = dumpContext(s.facts, { format: s.format, headline: snap.headline, inBubble });
      snapshots.push({ ...snap, context: excerptContext(snap, context, this.opts.excerpt) });
    }
    if (this.skipped > 0) {
      warnings.push({ severity: 'info', code: 'skipped-text', line: this.firstSkipped, message: `skipped ${this.skipped} line${this.skipped === 1 ? '' : 's'} that belong to no dump (first: line ${this.firstSkipped})` });
    }
    if (snapshots.length === 0 && !this.sawRace) {
      if (this.wrongProfiles.length > 0) {
        const name = this.wrongProfiles[0].split(' ')[0];
        throw new InputError(this.source, 'wrong-profile', `is a ${name} profile, not a goroutine profile`);
      }
      throw new InputError(this.source, 'not-a-dump', 'no goroutine dump found: expected `goroutine N [state]:` headers, a `goroutine profile: total N` header or a pprof protobuf');
    }
    if (this.wrongProfiles.length > 0) {
      warnings.push({ severity: 'info', code: 'wrong-profile', message: `skipped profiles that are not goroutine profiles: ${this.wrongProfiles.join(', ')}` });
    }
    return { source: this.source, snapshots, races: this.races, warnings };
  }
}

/** What a reader of one part of a large file hands back (`TextDumpReader.endPart`); plain, cloneable data. */
export interface TextPart {
  /** Nothing in the part depends on what came before it beyond what `absorb` checks. */
  readonly mergeable: boolean;
  /** The part ends where the next one can start (see `atBoundary`). */
  readonly boundary: boolean;
  readonly splitContinued: boolean;
  /** Lines in the part, and UTF-16 units + 1 per line. */
  readonly lines: number;
  readonly chars: number;
  /** Each snapshot of the part: its builder's state, the goroutine ids seen in it (added or not), its last line. */
  readonly parts: readonly { builder: BuilderPart; ids: Float64Array; last: number; headline: MutableHeadline | undefined; continued: boolean; facts: ContextFacts }[];
}

/** Ids below this go in the bitset (128 KiB at most); larger ids, rare, in a Set. */
const ID_BITS = 1 << 20;

/** Goroutine ids of a snapshot: a bitset below 2^20 (128 KiB at most), a Set above. */
class IdSet {
  // Small at first, so that `add` grows it while the code is young: V8 optimizes the readers that
  // call it (`takeHeader`) early, and growth never run before would make it throw that code away.
  private bits = new Uint32Array(2);
  private big: Set<number> | undefined;

  has(id: number): boolean {
    if (id >= ID_BITS) return this.big?.has(id) ?? false;
    const w = id >>> 5;
    return w < this.bits.length && (this.bits[w] & (1 << (id & 31))) !== 0;
  }

  /** Whether any of `ids` (other than 0, which is never a repeat) is here. */
  hasAny(ids: ArrayLike<number>): boolean {
    for (let i = 0; i < ids.length; i++) if (ids[i] !== 0 && this.has(ids[i])) return true;
    return false;
  }

  /** The ids, ascending. */
  toArray(): Float64Array {
    const bits = this.bits;
    let n = this.big?.size ?? 0;
    for (let w = 0; w < bits.length; w++) for (let x = bits[w]; x !== 0; x &= x - 1) n++;
    const out = new Float64Array(n);
    let k = 0;
    for (let w = 0; w < bits.length; w++) {
      for (let x = bits[w]; x !== 0; x &= x - 1) out[k++] = w * 32 + (31 - Math.clz32(x & -x));
    }
    if (this.big) for (const id of [...this.big].sort((a, b) => a - b)) out[k++] = id;
    return out;
  }

  addAll(ids: ArrayLike<number>): void {
    for (let i = 0; i < ids.length; i++) this.add(ids[i]);
  }

  add(id: number): void {
    if (id >= ID_BITS) {
      (this.big ??= new Set()).add(id);
      return;
    }
    const w = id >>> 5;
    if (w >= this.bits.length) {
      let n = this.bits.length * 2;
      while (n <= w) n *= 2;
      const grown = new Uint32Array(n);
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[w] |= 1 << (id & 31);
  }
}

/**
 * The last line of the input cut inside a goroutine header (`goroutine 1 [chan rec`): the header with
 * its status dropped, so that the goroutine is read, partial, instead of vanishing.
 */
function cutHeader(line: string): string {
  const m = /^(.*goroutine \d+ )\[[^\]]*$/.exec(line);
  return m ? `${m[1]}[]:` : line;
}

/**
 * A log line right before a dump that says why it was printed: klog `F0719 13:56:01.505679 1 start.go:86] msg`
 * (klog.Fatal dumps all goroutines), a `FATAL`/`level=fatal` line, or a logger's `panic` line.
 */
function logHeadline(text: string): MutableHeadline | undefined {
  const t = text.trim();
  if (t.length === 0) return undefined;
  const k = /^F\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [^\]]*\] ?(.*)$/.exec(t);
  if (k) return { kind: 'log-fatal', message: k[1] || t, lines: [t] };
  if (/\b(?:FATAL|level=fatal|"level":"fatal")\b/.test(t)) return { kind: 'log-fatal', message: t, lines: [t] };
  if (/\bpanic\b/i.test(t)) return { kind: 'panic', message: t, lines: [t] };
  return undefined;
}
