/**
 * Is a debug=2 snapshot the whole dump, or a few goroutines someone cut from one (a bug report, a
 * ticket, a chat)? Told from signs a complete dump never shows: a first stack without its header
 * (traceback.ts reads it as goroutine 0 with no state; the runtime's own `goroutine 0 [idle]` has one), a `...` line where frames or goroutines were left out, stacks
 * that stop before their `created by`; and, in the dumps that always print it (a plain dump, a test
 * timeout, a runtime deadlock, a SIGQUIT dump), goroutine 1 missing from a handful of goroutines.
 * A leak checker's report and a single-goroutine crash legitimately omit goroutine 1: there only the
 * strong signs count.
 *
 * Cheap on purpose: a large dump is checked in O(1) (its first goroutine and its diagnostics); the
 * goroutine-1 and cut-stack checks look at small snapshots only.
 */
import type { DumpContext, Frame, Snapshot, WaitKind } from '../model/dump.js';

/** Goroutines at most for the goroutine-1 sign: people paste a handful, a dump of a program has more. */
const SMALL = 50;

/** The outermost frame of a stack printed whole without `created by`: goroutine 1, or GOTRACEBACK=system. */
const BOTTOM = /^(?:main\.main|runtime\.goexit|runtime\.main|runtime\.mstart|testing\.tRunner)$/;

/** Contexts whose dumps always print goroutine 1. */
const PRINTS_MAIN = new Set<DumpContext['kind']>(['profile', 'test-timeout', 'deadlock', 'signal']);

/** Kinds that become `excerpt` when cut; a test timeout, deadlock or leak report keeps its kind and says it was cut. */
const BECOMES_EXCERPT = new Set<DumpContext['kind']>(['profile', 'signal', 'crash']);

/**
 * `context` with what told that the snapshot is an excerpt, if it is one. `force`: the user said
 * (`--excerpt`, `--no-excerpt`); undefined: decided from the signs.
 */
export function excerptContext(s: Omit<Snapshot, 'context'>, context: DumpContext, force?: boolean): DumpContext {
  if (s.format !== 'debug2' || force === false) return context;
  const signs = force ? ['said to be an excerpt (--excerpt)'] : excerptSigns(s, context);
  if (!signs) return context;
  const n = `${s.total} goroutine${s.total === 1 ? '' : 's'}`;
  if (BECOMES_EXCERPT.has(context.kind)) {
    const of = context.kind === 'profile' ? 'a goroutine dump' : context.kind === 'signal' ? 'a signal dump' : 'a crash dump';
    return { kind: 'excerpt', summary: `excerpt of ${of} (${n} shown): ${signs.join('; ')}`, excerpt: signs };
  }
  return { ...context, summary: `${context.summary} — excerpt (${n} shown): ${signs.join('; ')}`, excerpt: signs };
}

/** The signs that `s` was cut from a larger dump; undefined when it reads as complete. */
export function excerptSigns(s: Omit<Snapshot, 'context'>, context: DumpContext): string[] | undefined {
  const strong: string[] = [];
  const gs = s.goroutines ?? [];
  if (gs.length > 0 && gs[0].id === 0 && s.groups[gs[0].group]?.state === '') strong.push('the first stack has no `goroutine N [state]:` line (pasted from the middle of a dump)');
  if (s.warnings.some((w) => w.code === 'truncated' && w.message.includes('cut by hand'))) strong.push('a `...` line says goroutines or frames were left out');
  const small = s.total <= SMALL && gs.length === s.total;
  // The text stops inside a goroutine: the paste (or the copy of it) was cut there.
  const last = gs.length > 0 ? s.groups[gs[gs.length - 1].group] : undefined;
  if (small && last?.partial && s.warnings.some((w) => w.code === 'partial-goroutine' || w.code === 'truncated')) strong.push('the last goroutine is cut off');
  const weak: string[] = [];
  let mainAbsent = false;
  if (small) {
    if (PRINTS_MAIN.has(context.kind) && !gs.some((d) => d.id === 1)) {
      mainAbsent = true;
      weak.push(`goroutine 1 (main, or the test runner) is not among them, though ${context.kind === 'profile' ? 'every dump of a process' : 'such a dump always'} prints it`);
    }
    let cut = 0;
    for (const d of gs) {
      const g = s.groups[d.group];
      if (!g || (d.id === 0 && g.state === '') || (g === last && strong.length > 0 && last.partial)) continue;
      const bottom = g.frames[g.frames.length - 1];
      if (g.partial || (!g.creator && !g.elidedFrames && bottom !== undefined && !BOTTOM.test(bottom.func))) cut++;
    }
    if (cut > 0) weak.push(`${cut === 1 ? '1 stack stops' : `${cut} stacks stop`} before its \`created by\` line (cut off)`);
    const ids = gs.map((d) => d.id).filter((i) => i > 0);
    const max = ids.reduce((m, i) => Math.max(m, i), 0);
    if (mainAbsent && ids.length > 0 && max >= 1000 && max > 100 * ids.length) weak.push(`ids as high as ${max} among ${ids.length} goroutines`);
  }
  if (strong.length === 0 && !mainAbsent) return undefined;
  if (!s.headline && context.kind === 'profile') weak.unshift('no header line (`goroutine profile:`, `panic:`, `SIGQUIT:`)');
  return [...strong, ...weak];
}

/** The sync call a pasted stack starts in, when its runtime frames (and header with its state) were cut. */
const SYNC_TOPS: ReadonlyArray<[RegExp, WaitKind]> = [
  [/^(?:internal\/)?sync\.\(\*Mutex\)\.(?:Lock|lockSlow)$/, 'mutex'],
  [/^sync\.\(\*RWMutex\)\.R?Lock$/, 'rwmutex'],
  [/^sync\.\(\*WaitGroup\)\.Wait$/, 'waitgroup'],
  [/^sync\.\(\*Cond\)\.Wait$/, 'cond'],
];

/** The wait of a headless stack (no state printed) whose frames alone did not tell: its innermost sync call. */
export function headlessWait(frames: readonly Frame[], kind: WaitKind): WaitKind {
  if (kind !== 'unknown' || frames.length === 0) return kind;
  for (const [re, k] of SYNC_TOPS) if (re.test(frames[0].func)) return k;
  return kind;
}
