/**
 * Crashes, from the snapshot headline and the crashed goroutine.
 * - `map-crash`: `concurrent map writes`, `concurrent map read and map write`,
 *   `concurrent map iteration and map write`, and the panics `encoding/json` raises when a map changes
 *   while it encodes it. Names the crashing map operation (runtime map frames of the crashed
 *   goroutine, or the headline when the runtime hid them), the user site, and the goroutines caught
 *   writing maps (map assign/delete frames elsewhere; failing that, others running the same code).
 * - `crash`: any other headline of the kinds in `params.kinds`, optionally filtered by message regex.
 */
import type { Analysis, AnalyzedGroup, SiteFrame } from '../../analyze/types.js';
import { candidate, type Candidate, type Detector } from '../candidate.js';
import { describe } from '../evidence.js';
import { census, shortFunc, siteOf, siteText, userEntry } from '../frames.js';
import { re } from '../match.js';
import { waitPatterns } from '../waits/index.js';

const MAP_WRITE = /^runtime\.(mapassign|mapdelete|mapclear)|^internal\/runtime\/maps\.(.*(mapassign|mapdelete|mapclear)|\(\*Map\)\.(Put|Delete|Clear|put)|\(\*table\)\.(put|uncheckedPut))|^reflect\.(mapassign|mapdelete)/;
const MAP_READ = /^runtime\.mapaccess|^internal\/runtime\/maps\.(.*mapaccess|\(\*Map\)\.Get)|^reflect\.mapaccess/;
const MAP_ITER = /^runtime\.mapiter|^internal\/runtime\/maps\.\(\*Iter\)|^reflect\.(mapiter|\(\*MapIter\))/;
const JSON_MAP = /^encoding\/json\.(mapEncoder|\(\*encodeState\))/;
const JSON_MAP_ENCODER = /^encoding\/json\.mapEncoder\.encode/;
const MAP_HEADLINE = /concurrent map (writes|read and map write|iteration and map write)/;

function mapOp(f: SiteFrame): string | undefined {
  if (MAP_WRITE.test(f.func)) return 'writing';
  if (MAP_ITER.test(f.func)) return 'iterating';
  if (MAP_READ.test(f.func)) return 'reading';
  return undefined;
}

/** The goroutine that crashed, else the one running. */
export function crashedGroup(a: Analysis): AnalyzedGroup | undefined {
  const c = census(a);
  return c.crashed ?? c.running;
}

/** The headline names a map race, or a JSON encoder panicked inside a map. */
function mapCrashKind(a: Analysis, crashed: AnalyzedGroup | undefined): string | undefined {
  const msg = a.snapshot.headline?.message ?? '';
  const m = MAP_HEADLINE.exec(msg);
  if (m) return m[0];
  // A panic inside the JSON map encoder (a key vanished while it sorted or read the keys): Go 1.19
  // prints `index out of range` or a reflect zero-Value panic from mapEncoder.encode.
  if (a.snapshot.headline?.kind === 'panic' && crashed?.frames.some((f) => JSON_MAP_ENCODER.test(f.func))) {
    return 'map changed while encoding/json marshalled it';
  }
  return undefined;
}

const WRITE_LIKE = /(^|[.)])(add|set|put|update|delete|remove|inc|incr|write|store|merge|record|insert)\w*$/i;

/** Goroutines caught writing maps: map assign/delete frames; else the code families that were running. */
function writersOf(a: Analysis, crashed: AnalyzedGroup | undefined): { groups: AnalyzedGroup[]; text: string } {
  const strong = a.groups.filter((g) => g !== crashed && g.frames.some((f) => MAP_WRITE.test(f.func)));
  if (strong.length) return { groups: strong, text: `caught writing maps: ${strong.map(describe).join('; ')}` };
  // Map frames hidden (fatal errors print level-1 tracebacks before Go 1.2x): the goroutines that were
  // running or runnable when the process stopped, with every goroutine of the same entry function.
  const running = a.groups.filter((g) => g !== crashed && (g.waitKind === 'running' || g.waitKind === 'runnable') && userEntry(g));
  const families = new Map<string, AnalyzedGroup[]>();
  for (const g of running) families.set(userEntry(g)!.func, []);
  for (const g of a.groups) {
    const e = g !== crashed ? userEntry(g)?.func : undefined;
    if (e && families.has(e)) families.get(e)!.push(g);
  }
  const writeLike = (gs: AnalyzedGroup[]) => gs.some((g) => g.frames.some((f) => f.origin === 'user' && WRITE_LIKE.test(f.func)));
  const ranked = [...families.entries()].sort(
    ([, x], [, y]) => Number(writeLike(y)) - Number(writeLike(x)) || count(y) - count(x),
  );
  if (!ranked.length) return { groups: [], text: 'no other goroutine was caught writing (it finished before the dump, or the dump shows only the crashed goroutine)' };
  const text = ranked
    .map(([entry, gs]) => {
      const busy = gs.filter((g) => running.includes(g)).map((g) => siteOf(g)).filter((f) => f !== undefined);
      const at = busy.map((f) => `${shortFunc(f!.func)} (${siteText(f)})`).join(', ');
      return `${count(gs)} goroutine${count(gs) === 1 ? '' : 's'} of ${shortFunc(entry)} (running ${at} when the process stopped)`;
    })
    .join('; ');
  return { groups: ranked.flatMap(([, gs]) => gs), text: `possibly writing (map frames are hidden at this traceback level; likeliest first): ${text}` };
}

function count(gs: AnalyzedGroup[]): number {
  return gs.reduce((n, g) => n + g.count, 0);
}

export const mapCrashDetector: Detector = {
  description: 'concurrent map writes / read / iteration crashes and JSON-encoder map panics: both sides',
  vars: ['message', 'crash', 'mapOp', 'crashSite', 'writers', 'writerCount'],
  find(ctx, rule) {
    const a = ctx.analysis;
    // (Without a headline there is no crash to name: no need to look for the crashed goroutine.)
    if (!a.snapshot.headline) return [];
    const crashed = crashedGroup(a);
    const kind = mapCrashKind(a, crashed);
    if (!kind) return [];
    const opFrame = crashed?.frames.find((f) => mapOp(f) !== undefined);
    const json = crashed?.frames.some((f) => JSON_MAP.test(f.func)) ? ' inside encoding/json (marshalling a value that holds the map)' : '';
    const op = opFrame ? `${mapOp(opFrame)} a map (${shortFunc(opFrame.func)})${json}` : `${headlineOp(kind)}${json}`;
    const site = crashed ? siteOf(crashed) : undefined;
    const writers = writersOf(a, crashed);
    const vars: Record<string, string> = {
      message: a.snapshot.headline?.message ?? kind,
      crash: kind,
      mapOp: op,
      crashSite: site ? `${shortFunc(site.func)} (${siteText(site)})` : 'an unknown site',
      writers: writers.text,
      writerCount: String(count(writers.groups)),
    };
    const facts = [
      `headline: ${vars.message}`,
      `crashed goroutine: ${op} at ${vars.crashSite}`,
      ...writers.groups.map((g) => `other side: ${describe(g)}`),
    ];
    return [candidate(rule, crashed, { related: writers.groups, vars, facts, confidence: 'high' })];
  },
};

function headlineOp(kind: string): string {
  if (kind.includes('iteration')) return 'iterating a map (map frames hidden)';
  if (kind.includes('read and')) return 'reading or writing a map (map frames hidden)';
  if (kind.includes('writes')) return 'writing a map (map frames hidden)';
  return 'reading a map inside encoding/json';
}

export const crashDetector: Detector = {
  description: 'a crash headline of the kinds in `params.kinds` (comma list) whose message matches `params.message`',
  vars: ['message', 'crashSite'],
  find(ctx, rule) {
    const a = ctx.analysis;
    const h = a.snapshot.headline;
    if (!h) return [];
    const kinds = ctx.param(rule, 'kinds', 'panic,fatal-error,signal,exception,log-fatal').split(',').map((s) => s.trim());
    if (!kinds.includes(h.kind)) return [];
    const msg = ctx.param(rule, 'message', '');
    const not = ctx.param(rule, 'excludeMessage', '');
    if (msg && !re(msg).test(h.message)) return [];
    if (not && re(not).test(h.message)) return [];
    if (MAP_HEADLINE.test(h.message)) return [];
    if (requestedDump(h)) return [];
    // A test timeout "crashes" in the harness' alarm goroutine: it is no root of anything.
    const crashed = h.kind === 'test-timeout' ? undefined : crashedGroup(a);
    const site = crashed ? siteOf(crashed) : undefined;
    const missing = h.kind === 'test-timeout' ? blockerMissing(a) : undefined;
    const c: Candidate = candidate(rule, crashed, {
      vars: {
        message: h.message,
        crashSite: site ? `${shortFunc(site.func)} (${siteText(site)})` : 'an unknown site',
      },
      facts: [
        `headline: ${h.message}`,
        // The tests running (`running tests:`) are in the context; other preamble lines as printed.
        ...(a.snapshot.context?.tests?.length ? [`running: ${a.snapshot.context.tests.join(', ')}`] : h.lines.slice(1, 4).map((l) => `  ${l.trim()}`)),
        ...(missing ? [missing] : []),
      ],
      ...(crashed ? {} : { goroutines: a.total }),
    });
    return [c];
  },
};

/**
 * SIGABRT sent by another process (`sigcode=0`, SI_USER: `kill -ABRT`), the documented way besides
 * SIGQUIT to have a Go program print its goroutines (servers that trap SIGQUIT, e.g. to quit): a dump
 * on request, not a crash. An abort() from C code is another sigcode.
 */
function requestedDump(h: NonNullable<Analysis['snapshot']['headline']>): boolean {
  return h.kind === 'signal' && h.message.startsWith('SIGABRT: ') && h.lines.some((l) => /^PC=0x[0-9a-f]+ m=\d+ sigcode=0$/.test(l.trim()));
}

/**
 * A test timeout whose dump shows nothing stuck in the program's own code (only the runner, the alarm,
 * `t.Parallel` waiters, helpers) while it was cut off: the blocked goroutine is in the missing part,
 * and saying so beats blaming what is visible.
 */
function blockerMissing(a: Analysis): string | undefined {
  const p = waitPatterns(a);
  if (!p || !a.snapshot.truncated) return undefined;
  if (p.selfLocks.length || p.cycles.length || p.held.length || p.stuck.length) return undefined;
  return 'no goroutine in this dump is stuck in the program\'s own code, and the dump is cut off: the goroutine that kept the test from finishing is probably in the missing part';
}
