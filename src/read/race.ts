/**
 * Race detector reports (`-race`), from the `WARNING: DATA RACE` banner to the `==================`
 * that closes it:
 *
 * ```
 * Read at 0x00c000014100 by goroutine 8:          (or `Write at`, `Previous write at`, `by main goroutine`)
 *   main.panicDoRaceRead()                        (2-space indent, `()` without arguments)
 *       /path/main.go:137 +0x3a                   (6-space indent)
 *
 * Goroutine 8 (running) created at:               (running | finished)
 *   main.panicRace()
 *       /path/main.go:153 +0xa1
 * ```
 * Each report becomes a `RaceReport` of its own (panicparse bolts races onto goroutines; we don't).
 */
import type { FrameTable } from '../model/builder.js';
import type { Diagnostic, Frame, RaceAccess, RaceGoroutine, RaceReport } from '../model/dump.js';
import { FILE, callArgsStart, parseFileLine, pkgOf } from './frame.js';

const ACCESS = /^(Previous )?(?:Atomic )?(read|write|Read|Write) at (0x[0-9a-fA-F]+) by (?:goroutine (\d+)|main goroutine):$/;
const GOROUTINE = /^Goroutine (\d+) \(([^)]*)\) created at:$/;

export class RaceReader {
  private active_ = false;
  private startNo = 0;
  private accesses: RaceAccess[] = [];
  private goroutines: RaceGoroutine[] = [];
  /** Frames of the section being read. */
  private frames: Frame[] | undefined;
  private pending: string | undefined;

  constructor(
    private readonly source: string,
    private readonly table: FrameTable,
    private readonly onReport: (r: RaceReport) => void,
    private readonly onProblem: (d: Diagnostic) => void,
  ) {}

  get active(): boolean {
    return this.active_;
  }

  /** The `WARNING: DATA RACE` banner on line `no`. */
  start(no: number): void {
    if (this.active_) this.finish(no);
    this.active_ = true;
    this.startNo = no;
    this.accesses = [];
    this.goroutines = [];
    this.frames = undefined;
    this.pending = undefined;
  }

  /** One line inside a report; false (and the report is closed) when the line is not part of it. */
  line(text: string, no: number): boolean {
    const t = text.trim();
    if (t.length === 0) return true;
    if (t.startsWith('=====')) {
      this.finish(no);
      return true;
    }
    if (this.pending !== undefined && parseFileLine(t)) {
      this.push(this.pending, FILE.file, FILE.line);
      this.pending = undefined;
      return true;
    }
    const a = callArgsStart(t);
    if (a > 0 && this.frames) {
      if (this.pending !== undefined) this.push(this.pending, '', 0);
      this.pending = t.slice(0, a);
      return true;
    }
    this.flushPending();
    let m = ACCESS.exec(t);
    if (m) {
      const access: RaceAccess = {
        op: m[2].toLowerCase() === 'read' ? 'read' : 'write',
        previous: m[1] !== undefined,
        address: m[3],
        goroutineId: m[4] === undefined ? 0 : Number(m[4]),
        frames: [],
      };
      this.accesses.push(access);
      this.frames = access.frames;
      return true;
    }
    m = GOROUTINE.exec(t);
    if (m) {
      const g: RaceGoroutine = { id: Number(m[1]), status: m[2], createdAt: [] };
      this.goroutines.push(g);
      this.frames = g.createdAt;
      return true;
    }
    // TSan notes that belong to the report.
    if (t.startsWith('[failed to restore the stack]') || t.startsWith('Location is ')) return true;
    this.finish(no);
    return false;
  }

  /** The input ended. */
  end(no: number): void {
    if (this.active_) this.finish(no, true);
  }

  private push(func: string, file: string, line: number): void {
    this.frames?.push(this.table.frame(func, pkgOf(func, file), file, line, false));
  }

  private flushPending(): void {
    if (this.pending !== undefined) this.push(this.pending, '', 0);
    this.pending = undefined;
  }

  private finish(no: number, atEnd = false): void {
    this.flushPending();
    this.active_ = false;
    const [a, b] = this.accesses;
    if (a && b) {
      this.onReport({ source: this.source, accesses: [a, b], goroutines: this.goroutines, line: this.startNo });
    } else {
      this.onProblem({
        severity: 'warning',
        code: 'partial-race',
        line: this.startNo,
        message: `the race report at line ${this.startNo} ${atEnd ? 'is cut off by the end of input' : `ends at line ${no}`} with ${this.accesses.length} of its 2 accesses: not kept`,
      });
    }
    this.accesses = [];
    this.goroutines = [];
    this.frames = undefined;
  }
}
