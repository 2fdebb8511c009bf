/**
 * What produced a dump (`DumpContext`), told from the text around its goroutines: the crash headline
 * and its preamble (`panic: test timed out after 10m0s`, `running tests:`), and the lines no reader
 * took (a leak checker's report line, `--- FAIL: TestX`, `=== RUN TestX`). The dispatcher (text.ts)
 * feeds those lines into one `ContextFacts` per snapshot; `dumpContext` turns the facts and the
 * headline into the context once the snapshot is complete.
 *
 * Facts are plain data: a part of a large file read on another thread hands its facts back with its
 * snapshots (text.ts `TextPart`), and `mergeFacts` folds them exactly as reading the whole file would.
 */
import type { DumpContext, DumpFormat, Headline } from '../model/dump.js';

/** What the text around one snapshot said, collected line by line. */
export interface ContextFacts {
  /** The first leak checker whose report line was seen (`goleak`, `leaktest`, `pion`, `tchannel`). */
  checker?: string;
  /** goleak's `Errors on successful test run`: VerifyTestMain, after every test passed. */
  afterPass?: boolean;
  /** `--- FAIL: TestX` names, in input order. */
  failed: string[];
  /** The `running tests:` block of a test timeout (Go 1.20+). */
  running: string[];
  /** Tests started (`=== RUN`/`=== CONT`/`=== NAME`) and not yet passed or skipped. */
  started: string[];
  /** Inside the `running tests:` block. */
  inRunning?: boolean;
}

/** Names kept per list: a `running tests:` block of a huge parallel run is not copied whole. */
const MAX_TESTS = 50;
/** Tests named in a summary. */
const SUMMARY_TESTS = 3;

export function newFacts(): ContextFacts {
  return { failed: [], running: [], started: [] };
}

/** `into` followed by `later` (facts read after those of `into`). */
export function mergeFacts(into: ContextFacts, later: ContextFacts): void {
  if (into.checker === undefined && later.checker !== undefined) into.checker = later.checker;
  if (later.afterPass) into.afterPass = true;
  for (const t of later.failed) push(into.failed, t);
  for (const t of later.running) push(into.running, t);
  for (const t of later.started) push(into.started, t);
  into.inRunning = later.inRunning;
}

function push(list: string[], name: string): void {
  if (list.length < MAX_TESTS && !list.includes(name)) list.push(name);
}

/**
 * Leak checkers by the text of their report line. tchannel-go's verifier is checked before the
 * goleak record shape it prints (`Found leaked goroutine: Goroutine 1306 in state IO wait:`).
 */
const CHECKERS: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:Found leaked goroutine|Leaked goroutine): /, 'tchannel'],
  [/\bleaktest: (?:leaked goroutine: |timed out checking goroutines)/, 'leaktest'],
  [/\bUnexpected routines:/, 'pion'],
  [/\bfound unexpected goroutines:|(?:^|[\s[])Goroutine \d+ in state /, 'goleak'],
];

const TEST_EVENT = /(?:^|[\s>])(?:--- (FAIL|PASS|SKIP)|=== (?:RUN|CONT|NAME)) *:? +(\S+)/;

/** A line no reader took (or the text before a dump anchor in it). */
export function noteText(f: ContextFacts, line: string): void {
  f.inRunning = false;
  if (line.includes('--- ') || line.includes('=== ')) {
    const m = TEST_EVENT.exec(line);
    if (m) {
      const name = m[2];
      if (m[1] === undefined) push(f.started, name);
      else {
        const i = f.started.indexOf(name);
        if (i >= 0) f.started.splice(i, 1);
        if (m[1] === 'FAIL') push(f.failed, name);
      }
      return;
    }
  }
  if (f.checker === undefined && (line.includes('outine') || line.includes('leaktest'))) {
    for (const [re, name] of CHECKERS) {
      if (re.test(line)) {
        f.checker = name;
        break;
      }
    }
  }
  if (line.includes('goleak: Errors on successful test run')) f.afterPass = true;
}

/** A line of a crash preamble (after the headline, before the first goroutine). */
export function notePreamble(f: ContextFacts, line: string): void {
  // Go 1.23 indents the block under the panic value (`\trunning tests:`, `\t\tTestX (3s)`).
  if (line.trim() === 'running tests:') {
    f.inRunning = true;
    return;
  }
  if (f.inRunning) {
    // `\tTestFoo/sub (10m0s)`
    const m = /^\s+(\S+)(?: \([^)]*\))?\s*$/.exec(line);
    if (m) {
      push(f.running, m[1]);
      return;
    }
    f.inRunning = false;
  }
}

/** What a snapshot is, besides its facts. */
export interface SnapshotTraits {
  readonly format: DumpFormat;
  readonly headline?: Headline;
  /** Some goroutine's header says `synctest bubble N`. */
  readonly inBubble: boolean;
}

const SYNCTEST = /deadlock: (?:main bubble goroutine has exited but blocked goroutines remain|all goroutines in bubble are blocked)/;

/** The context of a complete snapshot. */
export function dumpContext(f: ContextFacts, t: SnapshotTraits): DumpContext {
  if (t.format !== 'debug2') return { kind: 'profile', summary: t.format === 'pprof' ? 'goroutine profile (pprof, debug=0)' : 'goroutine profile (debug=1)' };
  const h = t.headline;
  const named = f.failed.length > 0 ? f.failed : f.started;
  if (h && (SYNCTEST.test(h.message) || (t.inBubble && /^(?:panic|fatal error): deadlock: /.test(h.message)))) {
    return withTests({ kind: 'synctest-deadlock', summary: `synctest bubble deadlock: ${h.message.replace(/^(?:panic|fatal error): (?:deadlock: )?/, '')}` }, named);
  }
  switch (h?.kind) {
    case 'test-timeout': {
      const after = /^panic: test timed out after (\S+)/.exec(h.message)?.[1];
      const seconds = after === undefined ? undefined : goDurationSeconds(after);
      const tests = f.running.length > 0 ? f.running : named;
      const c: DumpContext = {
        kind: 'test-timeout',
        summary: `go test timed out${after ? ` after ${after}` : ''}${tests.length ? ` — running: ${testList(tests)}` : ''}`,
        ...(seconds !== undefined ? { timeoutSeconds: seconds } : {}),
      };
      return tests.length ? { ...c, tests: [...tests] } : c;
    }
    case 'deadlock':
      return withTests({ kind: 'deadlock', summary: 'runtime deadlock: all goroutines are asleep' }, named);
    case 'sigquit':
    case 'signal':
      return { kind: 'signal', summary: `${h.message.replace(/:.*$/, '')} dump of a running process (${h.message})` };
    default:
  }
  // A leak checker's report: unless a runtime crash headline says otherwise (a log line that merely
  // mentions a panic does not).
  if (f.checker !== undefined && (!h || h.kind === 'log-fatal' || (h.kind === 'panic' && !h.message.startsWith('panic: ')))) {
    const when = f.afterPass ? ' after all tests passed (VerifyTestMain)' : '';
    const tests = f.afterPass ? [] : named;
    return withTests({ kind: 'leak-report', summary: `${f.checker} found leaked goroutines${when}`, checker: f.checker }, tests, 'in');
  }
  if (h) return { kind: 'crash', summary: `crash: ${h.message}` };
  return { kind: 'profile', summary: 'goroutine dump (debug=2 or runtime.Stack)' };
}

function withTests(c: DumpContext, tests: readonly string[], word = 'in'): DumpContext {
  if (tests.length === 0) return c;
  return { ...c, summary: `${c.summary} ${word} ${testList(tests)}`, tests: [...tests] };
}

function testList(tests: readonly string[]): string {
  const shown = tests.slice(0, SUMMARY_TESTS).join(', ');
  return tests.length > SUMMARY_TESTS ? `${shown} and ${tests.length - SUMMARY_TESTS} more` : shown;
}

const UNITS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };

/** Go's `time.Duration.String()` (`10m0s`, `1h0m0s`, `1.5s`, `500ms`) in seconds; undefined if not one. */
export function goDurationSeconds(d: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(h|ms|us|µs|ns|m|s)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(d); m; m = re.exec(d)) {
    total += parseFloat(m[1]) * UNITS[m[2]];
    end = re.lastIndex;
  }
  return end > 0 && end === d.length ? Math.round(total * 1e6) / 1e6 : undefined;
}
