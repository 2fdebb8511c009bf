/**
 * Source-assisted root cause: given findings and the analyses they came from, and a checkout of the
 * profiled program, point at the lines that cause each leak (`Finding.causeLocations`). Pure: reads
 * the source directory, never writes to it; findings are returned as new objects.
 *
 * The folders are layers, bottom up: syntax/ (tree-sitter, tree helpers, name resolution) →
 * workspace/ (checkout files, packages, printed path → file) → flow/ (following a channel value;
 * shared types in flow/types.ts) → patterns/ (channel ops, loop exits, lock order, WaitGroups) →
 * explain/ (causes per blocking site) → this file. A file imports only its own layer or lower ones
 * (test/architecture/layers.test.ts).
 */
import { join, resolve as resolvePath } from 'node:path';
import type { Analysis, AnalyzedGroup, SiteFrame } from '../analyze/types.js';
import type { Frame, WaitKind } from '../model/dump.js';
import type { CauseLocation, Finding } from '../rules/types.js';
import { lower, settle, type Cause, type CauseKind, type Site, type SiteResult } from './explain/cause.js';
import { frameMismatch } from './explain/mismatch.js';
import { realign, topName, type Shifted } from './explain/realign.js';
import type { Confirmation } from './explain/confirm.js';
import { explainChannelSite } from './explain/channels.js';
import { excerpt } from './explain/excerpt.js';
import { explainLockSite } from './explain/locks.js';
import { explainWaitSite } from './explain/waitgroup.js';
import { writeWithoutDeadline } from './explain/deadline.js';
import { callWithoutDeadline, requestWithoutTimeout, uncancellableShare } from './explain/request.js';
import { leftOpen, type PoolValues } from './explain/rows.js';
import { unguardedServers, type ClientRead } from './explain/server.js';
import { openedPerCall, type HandleOpener } from './explain/opened.js';
import { WAIT_FOR_RULES, WaitForChecks } from './explain/waitfor.js';
import { DEFAULT_MAX_FILE_BYTES, GoFiles, lineOf, type GoFile } from './syntax/parser.js';
import { FUNC_TYPES, funcAtLine, nodesAtLine } from './syntax/tree.js';
import { SourceIndex } from './workspace/locate.js';
import { checkoutModules } from './workspace/modules.js';
import type { FuncInfo, GoPackage } from './workspace/package.js';
import { Workspace } from './workspace/workspace.js';

export interface ExplainOptions {
  /** A checkout of the profiled program. */
  sourceDir: string;
  /** Go files larger than this are not parsed (default DEFAULT_MAX_FILE_BYTES, 2 MiB). */
  maxFileBytes?: number;
}

/** The last checkout indexed: `--source` indexes it once for the modules and once for the causes. */
let lastIndex: SourceIndex | undefined;
function indexOf(root: string): SourceIndex {
  if (lastIndex?.root !== root) lastIndex = new SourceIndex(root);
  return lastIndex;
}

/**
 * Import-path roots of the frames that map into the checkout: the program's own modules, whatever
 * their import path (feed them to `AnalyzeOptions.userModules`).
 */
export function sourceModules(sourceDir: string, frames: Iterable<Pick<Frame, 'pkg' | 'func' | 'file'>>): string[] {
  return checkoutModules(indexOf(resolvePath(sourceDir)), frames);
}

export interface ExplainResult {
  findings: Finding[];
  /** Human-readable notes: unmatched paths, lines out of range, source that does not match the dump. */
  warnings: string[];
}

const CHANNEL_WAITS = new Set<WaitKind>(['chan-send', 'chan-receive', 'select', 'blocked-forever']);
const LOCK_WAITS = new Set<WaitKind>(['mutex', 'rwmutex']);
const WAITGROUP_WAITS = new Set<WaitKind>(['waitgroup', 'semaphore']);

/** Fill `causeLocations` of channel and lock findings from the Go source under `opts.sourceDir`. */
export async function explainWithSource(findings: Finding[], analyses: Analysis[], opts: ExplainOptions): Promise<ExplainResult> {
  const warnings = new Set<string>();
  const handled = (k: WaitKind) => CHANNEL_WAITS.has(k) || LOCK_WAITS.has(k) || WAITGROUP_WAITS.has(k) || k === 'unknown';
  const wanted = findings.map((f) => {
    const t = target(f, analyses);
    return t && handled(t.waitKind) ? t : undefined;
  });
  // Wait-for findings (inferred from a dump's arguments) are checked against the source too.
  const waitFor = findings.map((f) => (WAIT_FOR_RULES.has(f.ruleId) ? analysisOf(f, analyses) : undefined));
  // Reads of clients that stopped sending wait in IO: their cause is how the servers were started.
  const served = findings.map((f) => (CLIENT_READ_RULES.has(f.ruleId) ? analysisOf(f, analyses) : undefined));
  // Handles' goroutines start in the library: their cause is searched in the whole checkout.
  const opened = findings.map((f) => HANDLE_RULES.get(f.ruleId));
  if (!wanted.some((w) => w) && !waitFor.some((a) => a) && !served.some((a) => a) && !opened.some((o) => o)) return { findings, warnings: [] };
  const root = resolvePath(opts.sourceDir);
  const index = indexOf(root);
  if (index.files.length === 0) return { findings, warnings: [`source: no Go files under ${opts.sourceDir}`] };
  if (index.truncated) warnings.add(`source: ${opts.sourceDir} has too many files; only the first ${index.files.length} were indexed`);
  const files = await GoFiles.open(opts.maxFileBytes);
  const ws = new Workspace(index, files);
  const checks = new WaitForChecks(ws);
  for (const a of analyses) for (const g of a.groups) for (const fr of g.frames) addMethod(ws.stackMethods, fr.func);
  for (const f of findings) for (const fr of f.evidence.stack) addMethod(ws.stackMethods, fr.func);
  try {
    const out = findings.map((finding, i) => {
      const t = wanted[i];
      const a = waitFor[i];
      const srv = served[i];
      const opener = opened[i];
      if (!t && !a && !srv && !opener) return finding;
      try {
        const one = t ? explainOne(t, ws, warnings) : { causes: [] };
        const check = a ? checks.check(finding, a) : undefined;
        const inTest = (c: Cause) => !c.file.rel.endsWith('_test.go') || !!t?.frames.some((fr) => /_test\.go$/.test(fr.file));
        // A re-aligned stack: the wait-for check read the dump's own lines, so it says nothing here.
        const checked = (one.realigned ? [] : check?.causes ?? []).filter(inTest).map((c) => (one.mismatch ? { ...c, confidence: lower(c.confidence, false) } : c));
        // A confirmed lock held while blocked shows the other side alive, queued for the lock: code
        // saying that side is gone (a loop that exited, a receiver that returned) is off the path
        // unless a goroutine of the dump runs it.
        let generic = check?.confirmation?.verdict === 'confirmed' && finding.ruleId === 'core/lock-held-blocked' && t ? one.causes.filter((c) => !GONE.has(c.kind) || onSomeStack(c, t, ws)) : one.causes;
        // A relay stalled by a consumer waits while that consumer lives: a cancellation case would not
        // free it (the finding's fix: deliver without blocking, a write deadline). Its stuck consumer's
        // write comes first.
        if (finding.ruleId === 'core/stalled-relay') generic = [...consumerWrites(finding, ws), ...generic.filter((c) => c.kind !== 'no-cancel-case')];
        // A pool waiter's site is a query, not a channel operation: the paths that leave a connection taken.
        const values = POOL_RULES.get(finding.ruleId);
        if (values) generic = poolLeaks(finding, ws, values);
        // Requests waiting for an answer, and callers sharing one: the calls that wait without a way out.
        if (REQUEST_RULES.has(finding.ruleId)) generic = [...requestWaits(finding, ws), ...generic];
        if (srv) generic = [...unguardedServers(srv, ws, CLIENT_READ_RULES.get(finding.ruleId)!, finding.evidence.goroutines), ...generic];
        if (opener) generic = [...openedPerCall(ws, opener, finding.evidence.goroutines), ...generic];
        // The wait-for check's lines first: at the same line they say more than the generic explanation.
        const causes = check ? settle([...checked, ...generic]) : generic;
        let withCauses = causes.length === 0 ? finding : { ...finding, causeLocations: [...(finding.causeLocations ?? []), ...causes.map((c) => toLocation(c, opts.sourceDir))] };
        if (one.mismatch) withCauses = mismatched(withCauses, one.mismatch);
        if (one.realigned) withCauses = { ...withCauses, evidence: { ...withCauses.evidence, facts: [...withCauses.evidence.facts, `source: ${one.realigned}`] } };
        // A checkout that does not match the dump confirms nothing.
        return a && !one.mismatch && !one.realigned ? withConfirmation(withCauses, check?.confirmation ?? fromCauses(causes)) : withCauses;
      } catch (e) {
        const where = t ? `${t.site.file}:${t.site.line}` : finding.location ? `${finding.location.file}:${finding.location.line}` : finding.ruleId;
        warnings.add(`source: could not analyse ${where}: ${(e as Error).message}`);
        return finding;
      }
    });
    if (files.skipped.size > 0) {
      const list = [...files.skipped].slice(0, 3).map(([rel, n]) => `${rel} (${(n / 1048576).toFixed(1)} MB)`).join(', ');
      const more = files.skipped.size > 3 ? ` and ${files.skipped.size - 3} more` : '';
      warnings.add(`source: skipped ${list}${more}: larger than ${((opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES) / 1048576).toFixed(0)} MB (raise with --source-max-file-size)`);
    }
    for (const n of ws.notes) warnings.add(`source: ${n}`);
    if (ws.limited) warnings.add(`source: ${opts.sourceDir} is large; channels were not followed into every package that uses them`);
    return { findings: out, warnings: [...warnings] };
  } finally {
    files.dispose();
  }
}

/** `LRU.Contains` for a frame `pkg/path.(*LRU).Contains` (methods only; closures inside them too). */
function addMethod(out: Set<string>, func: string): void {
  const m = /\.\(?\*?(\w+)(?:\[[^\]]*\])?\)?\.(\w+)/.exec(func.slice(func.lastIndexOf('/') + 1));
  if (m && /^\(|^[A-Za-z_]/.test(m[1])) out.add(`${m[1]}.${m[2]}`);
}

/** The paths of the waiting site's function that leave a value holding a connection open (Rows, Tx, Conn; a pooled connection; a response). */
function poolLeaks(f: Finding, ws: Workspace, values: PoolValues): Cause[] {
  const site = f.location;
  const file = site?.file ? ws.printedFile(site.file) : undefined;
  return file ? leftOpen(file, site!.line, values) : [];
}

/** The writes a stalled relay's consumers are parked in (its related groups in IO), where no deadline is set. */
function consumerWrites(f: Finding, ws: Workspace): Cause[] {
  const out: Cause[] = [];
  for (const g of f.evidence.groups) {
    if (g.role !== 'related' || g.waitKind !== 'io' || !g.site?.file) continue;
    const file = ws.printedFile(g.site.file);
    const c = file && writeWithoutDeadline(file, g.site.line, g.site.func, g.count);
    if (c) out.push(c);
  }
  return out;
}

/** Findings of pools whose resources are taken and not given back, and which values hold them: their waiters wait in a call that takes one. */
const POOL_RULES = new Map<string, PoolValues>([
  ['core/db-pool-exhausted', 'pool'],
  ['core/pool-exhausted', 'pool'],
  ['core/http-conns-exhausted', 'response'],
]);

/** Findings of goroutines waiting for a server's answer (HTTP, gRPC), directly or through a shared (singleflight) call. */
const REQUEST_RULES = new Set(['core/http-awaiting-response', 'core/coalesced-wait', 'core/coalesced-chan-wait', 'core/grpc-awaiting-response']);

/** The requests without a timeout the finding's roots wait in, and the shared (singleflight) calls its callers wait in. */
function requestWaits(f: Finding, ws: Workspace): Cause[] {
  const out: Cause[] = [];
  const shared = f.ruleId === 'core/coalesced-wait';
  for (const g of f.evidence.groups) {
    if (!g.site?.file || (g.role !== 'root' && !(shared && g.role === 'consequence'))) continue;
    const file = ws.printedFile(g.site.file);
    const c = file && (g.role === 'root' ? requestWithoutTimeout(file, g.site.line, g.count) ?? callWithoutDeadline(file, g.site.line, g.count) : uncancellableShare(file, g.site.line, g.count));
    if (c) out.push(c);
  }
  return out;
}

/** Findings of handles opened again and again, and the calls that open one. */
const HANDLE_RULES = new Map<string, HandleOpener>([
  ['core/sql-db-leak', { calls: /^sql\.(Open|OpenDB)$/, what: 'database handle (*sql.DB)', keeps: 'its goroutine and pooled connections', needle: 'sql.Open' }],
  ['core/fsnotify-watcher-leak', { calls: /^fsnotify\.NewWatcher$/, what: 'file watcher (fsnotify.Watcher)', keeps: 'its goroutine and an inotify instance', needle: 'NewWatcher' }],
]);

/** Findings of goroutines waiting for clients that stopped sending, and what they read. */
const CLIENT_READ_RULES = new Map<string, ClientRead>([
  ['core/request-body-stalled', 'body'],
  ['core/request-headers-stalled', 'headers'],
]);

/** Causes that say the other side of a channel has gone. */
const GONE = new Set<CauseKind>(['consumer-exit', 'receiver-gives-up', 'receiver-returns-early', 'single-receive', 'no-receiver', 'no-sender', 'producer-returns']);

/** Does a goroutine of the dump (the target's or another group's) have a frame in the function around the cause's line? */
function onSomeStack(c: Cause, t: Target, ws: Workspace): boolean {
  const fn = funcAtLine(c.file.root, c.line);
  if (!fn) return false;
  const from = fn.startPosition.row + 1;
  const to = fn.endPosition.row + 1;
  for (const stack of [t.frames, ...t.others]) {
    for (const fr of stack) {
      if (!fr.file || isStd(fr) || fr.line < from || fr.line > to) continue;
      if (ws.index.locate(fr.file, fr.pkg)?.rel === c.file.rel) return true;
    }
  }
  return false;
}

/** The finding with a fact saying the checkout does not match its dump, and its confidence one level lower. */
function mismatched(f: Finding, where: string): Finding {
  const now = LOWER[f.confidence ?? 'medium'];
  return { ...f, confidence: now, evidence: { ...f.evidence, facts: [...f.evidence.facts, `source: the source does not match the dump at ${where}; confidence lowered to ${now}`] } };
}

/** The analysis of the finding's snapshot. */
function analysisOf(f: Finding, analyses: Analysis[]): Analysis | undefined {
  return analyses.find((a) => a.snapshot.source === f.snapshot.source && a.snapshot.index === f.snapshot.index) ?? (analyses.length === 1 ? analyses[0] : undefined);
}

/** Causes that are the pattern itself (not a contributing factor) and certain on the traced path confirm a stuck wait. */
function fromCauses(causes: Cause[]): Confirmation | undefined {
  const c = causes.find((x) => x.confidence === 'high' && x.kind !== 'no-cancel-case' && x.kind !== 'unbuffered-result');
  return c ? { verdict: 'confirmed', causes: [], note: `${c.kind} at ${c.file.rel}:${c.line}`, exact: true } : undefined;
}

const LOWER = { certain: 'certain', high: 'medium', medium: 'low', low: 'low' } as const;

/**
 * The finding's confidence after the source check: confirmed exactly → high; confirmed by lock class
 * only → at least medium; contradicted → one level lower. The `confidence:` fact says why.
 */
function withConfirmation(f: Finding, c: Confirmation | undefined): Finding {
  if (!c || c.verdict === 'unconfirmed') return f;
  const was = f.confidence ?? 'medium';
  const now = c.verdict === 'contradicted' ? LOWER[was] : was === 'certain' || (was === 'high' && !c.exact) ? was : c.exact ? 'high' : was === 'low' ? 'medium' : was;
  const why = c.verdict === 'confirmed' ? `confirmed from source: ${c.note}` : `the source contradicts it: ${c.note}`;
  const fact = `confidence: ${now} (${why})`;
  const facts = f.evidence.facts.some((x) => x.startsWith('confidence:')) ? f.evidence.facts.map((x) => (x.startsWith('confidence:') ? fact : x)) : [...f.evidence.facts, fact];
  return { ...f, confidence: now, evidence: { ...f.evidence, facts } };
}

interface Target {
  readonly waitKind: WaitKind;
  /** Innermost first. */
  readonly frames: readonly Frame[];
  /** Index of the blocking frame in `frames`. */
  readonly at: number;
  readonly site: Frame;
  /** Blocking sites of the other groups of the snapshot that wait on locks (who may hold ours). */
  readonly peers: readonly Frame[];
  /** Stacks of the snapshot's other groups (a lock's holder is among them, when it is visible). */
  readonly others: readonly (readonly Frame[])[];
}

/** Other groups whose stacks are looked at for a lock's holder, and frames of each. */
const MAX_OTHER_GROUPS = 500;
const MAX_OTHER_FRAMES = 32;

/** Frames of the Go runtime and standard library are never mapped into the checkout. */
function isStd(fr: Frame): boolean {
  const origin = (fr as Partial<SiteFrame>).origin;
  if (origin === 'runtime' || origin === 'stdlib') return true;
  return /(^|[\\/])(go|go-[\d.]+|goroot)[\\/]src[\\/](runtime|sync|net|internal|os|io|syscall|time|context)[\\/]/.test(fr.file);
}

/** The root group of a finding: its wait kind, stack and blocking frame. */
function target(f: Finding, analyses: Analysis[]): Target | undefined {
  const rootEv = f.evidence.groups.find((g) => g.role === 'root') ?? f.evidence.groups[0];
  let group: AnalyzedGroup | undefined;
  let analysis: Analysis | undefined;
  if (rootEv) {
    const same = analyses.filter((a) => a.snapshot.source === f.snapshot.source && a.snapshot.index === f.snapshot.index);
    for (const a of same.length > 0 ? same : analyses) {
      group = a.groups.find((g) => g.id === rootEv.id);
      if (group) {
        analysis = a;
        break;
      }
    }
  }
  const peers = (analysis?.groups ?? [])
    .filter((g) => g !== group && LOCK_WAITS.has(g.waitKind) && g.blockingSite)
    .map((g) => g.blockingSite!);
  const others = (analysis?.groups ?? []).filter((g) => g !== group).slice(0, MAX_OTHER_GROUPS).map((g) => g.frames.slice(0, MAX_OTHER_FRAMES));
  const waitKind = rootEv?.waitKind ?? group?.waitKind;
  if (!waitKind) return undefined;
  const stack: readonly Frame[] = group?.frames.length ? group.frames : f.evidence.stack;
  // The `go` statement that started the goroutine is the caller of its outermost function.
  const c = group?.creator;
  const frames: readonly Frame[] = c?.file && !group?.elidedFrames ? [...stack, { func: c.func, pkg: c.pkg, file: c.file, line: c.line, inlined: false }] : stack;
  const siteRef = group?.blockingSite ?? (rootEv?.site ? { ...rootEv.site } : undefined) ?? (f.location ? { ...f.location } : undefined);
  let at = siteRef ? frames.findIndex((fr) => fr.file === siteRef.file && fr.line === siteRef.line) : -1;
  if (at < 0) at = frames.findIndex((fr) => 'origin' in fr && (fr as SiteFrame).origin === 'user');
  if (at < 0 && siteRef && 'file' in siteRef) {
    const site: Frame = { func: 'func' in siteRef ? String(siteRef.func) : '', pkg: '', file: siteRef.file, line: siteRef.line, inlined: false };
    return { waitKind, frames: [site], at: 0, site, peers, others };
  }
  if (at < 0 || isStd(frames[at])) return undefined;
  return { waitKind, frames, at, site: frames[at], peers, others };
}

function explainOne(t0: Target, ws: Workspace, warnings: Set<string>): { causes: Cause[]; mismatch?: string; realigned?: string } {
  let t = t0;
  let mismatch = stackMismatch(t, ws);
  let realigned: string | undefined;
  // A small offset, when it is certain, is re-aligned (explain/realign.ts).
  {
    const fileOf = (i: number) => {
      const fr = t.frames[i];
      return fr.file && !isStd(fr) ? ws.printedFile(fr.file, fr.pkg) : undefined;
    };
    const shifts = realign(t.frames, t.at, t.waitKind, fileOf);
    if (shifts && shifts.length > 0) {
      const by = new Map(shifts.map((s) => [s.index, s.k]));
      const frames = t.frames.map((fr, i) => (by.has(i) ? { ...fr, line: fr.line + by.get(i)! } : fr));
      const moved = { ...t, frames, site: frames[t.at] };
      if (!stackMismatch(moved, ws)) {
        t = moved;
        mismatch = undefined;
        realigned = realignNote(shifts, t0.frames);
        warnings.add(`source: ${realigned}`);
      }
    }
  }
  const causes = explainSite(t, ws, warnings);
  if (mismatch) warnings.add(`source: the source does not match the dump at ${mismatch}`);
  // Code of a test file explains the test's own goroutines only.
  const inTest = t.frames.some((fr) => /_test\.go$/.test(fr.file));
  const kept = inTest ? causes : causes.filter((c) => !c.file.rel.endsWith('_test.go'));
  return { causes: mismatch ? kept.map((c) => ({ ...c, confidence: lower(c.confidence, false) })) : kept, ...(mismatch ? { mismatch } : {}), ...(realigned ? { realigned } : {}) };
}

/** `re-aligned FILE by +k lines in FUNC (dump line L → L+k), …`. */
function realignNote(shifts: readonly Shifted[], frames: readonly Frame[]): string {
  const per = new Map<string, Shifted[]>();
  for (const s of shifts) per.set(`${s.rel}\u0000${s.k}\u0000${topName(frames[s.index].func)}`, [...(per.get(`${s.rel}\u0000${s.k}\u0000${topName(frames[s.index].func)}`) ?? []), s]);
  const parts = [...per.values()].map((g) => {
    const { rel, k } = g[0];
    const lines = g.map((s) => `${frames[s.index].line} → ${frames[s.index].line + k}`).join(', ');
    return `${rel} by ${k > 0 ? '+' : ''}${k} line${Math.abs(k) === 1 ? '' : 's'} in ${topName(frames[g[0].index].func)} (dump line ${lines})`;
  });
  return `the source is offset from the dump; re-aligned ${parts.join('; ')}: the function's lines at that offset do what the frames need`;
}

/** The first frame of the stack whose line cannot be in the checkout's file: `FILE (why)`. */
function stackMismatch(t: Target, ws: Workspace): string | undefined {
  for (const fr of t.frames.slice(t.at)) {
    if (!fr.file || isStd(fr)) continue;
    const file = ws.printedFile(fr.file, fr.pkg);
    const why = file ? frameMismatch(file, fr.line, fr.func) : undefined;
    if (why) return `${file!.rel} (${why}, where the dump has ${fr.func || 'a frame'})`;
  }
  return undefined;
}

function explainSite(t: Target, ws: Workspace, warnings: Set<string>): Cause[] {
  const located = t.frames.map((fr) => (fr.file && !isStd(fr) ? ws.index.locate(fr.file, fr.pkg) : undefined));
  const loc = located[t.at];
  if (!loc) {
    warnings.add(`source: no file under the source directory matches ${t.site.file} (${t.site.func || 'blocking frame'})`);
    return [];
  }
  if (loc.ambiguous) warnings.add(`source: ${t.site.file} matches several files; using ${loc.rel}`);
  const file = ws.file(loc.rel);
  if (!file) {
    if (!ws.files.skipped.has(loc.rel)) warnings.add(`source: cannot read ${loc.rel}`);
    return [];
  }
  if (t.site.line < 1 || t.site.line > file.lines.length) return [];
  const mismatch = functionMismatch(file, t.site);
  if (mismatch) warnings.add(mismatch);
  const pkg = ws.pkgOf(file);
  if (!pkg) return [];
  const stack = located.slice(t.at + 1).map((l, k) => (l ? { rel: l.rel, line: t.frames[t.at + 1 + k].line } : { rel: '', line: 0 }));
  const hint = (fn: FuncInfo) => {
    for (let k = t.at; k < located.length - 1; k++) {
      const l = located[k];
      if (l?.rel !== fn.file.rel) continue;
      const f = funcAtLine(fn.file.root, t.frames[k].line);
      const next = located[k + 1];
      if (f && f.startIndex === fn.node.startIndex && next) return { rel: next.rel, line: t.frames[k + 1].line };
    }
    return undefined;
  };
  const peers = t.peers.flatMap((p) => {
    const f = isStd(p) ? undefined : ws.printedFile(p.file, p.pkg);
    return f ? [{ file: f, line: p.line }] : [];
  });
  const others = LOCK_WAITS.has(t.waitKind) || CHANNEL_WAITS.has(t.waitKind) || t.waitKind === 'unknown' ? t.others.map((st) => locateStack(ws, st)) : [];
  const site: Site = { ws, pkg, file, line: t.site.line, waitKind: t.waitKind, hint, stack, peers, others };
  let result: SiteResult;
  if (LOCK_WAITS.has(t.waitKind)) result = explainLockSite(site);
  else if (CHANNEL_WAITS.has(t.waitKind)) result = explainChannelSite(site);
  else if (WAITGROUP_WAITS.has(t.waitKind)) result = explainWaitSite(site);
  else {
    result = explainChannelSite(site);
    if (!result.found) result = explainLockSite(site);
    if (!result.found) result = explainWaitSite(site);
  }
  for (const w of result.warnings) warnings.add(w);
  if (!result.found && !hasCall(file, t.site.line)) {
    const what = LOCK_WAITS.has(t.waitKind) ? 'lock call' : WAITGROUP_WAITS.has(t.waitKind) ? 'Wait call' : t.waitKind === 'unknown' ? 'channel operation, lock or Wait call' : 'channel operation';
    warnings.add(`source: ${loc.rel}:${t.site.line}: no ${what} at the line the dump reports for ${t.site.func || 'the blocking frame'}: the source may not match the dump`);
  }
  return settle(result.causes);
}

/** A stack's frames that are in the checkout (and within their file), with their file and package. */
function locateStack(ws: Workspace, frames: readonly Frame[]): { file: GoFile; pkg: GoPackage; line: number }[] {
  return frames.flatMap((fr) => {
    const file = fr.file && !isStd(fr) ? ws.printedFile(fr.file, fr.pkg) : undefined;
    const pkg = file ? ws.pkgOf(file) : undefined;
    return file && pkg && fr.line >= 1 && fr.line <= file.lines.length ? [{ file, pkg, line: fr.line }] : [];
  });
}

/** A call at the line: the goroutine blocks inside the callee (library code), which is fine. */
function hasCall(file: GoFile, line: number): boolean {
  return nodesAtLine(file.root, line, new Set(['call_expression'])).some((c) => lineOf(c) === line);
}

/** The dump's function name vs the function declared around the line (`proxy.(*T).m.func2` → `m`). */
function functionMismatch(file: GoFile, site: Frame): string | undefined {
  if (!site.func) return undefined;
  const local = site.func.slice(site.func.lastIndexOf('/') + 1).replace(/\[[^\]]*\]/g, '');
  const parts = local.split('.').slice(1).filter((p) => p && !/^(func\d+|gowrap\d+|\d+|\(\*?[\w]+\)|glob|init)$/.test(p));
  const fn = funcAtLine(file.root, site.line);
  let decl = fn;
  while (decl && decl.type === 'func_literal') {
    let p = decl.parent;
    while (p && !FUNC_TYPES.has(p.type)) p = p.parent;
    decl = p ?? undefined;
  }
  if (!decl || parts.length === 0) return undefined; // package-level literal (glob..funcN) or unnamed
  const name = decl.childForFieldName('name')?.text ?? '';
  if (parts.includes(name)) return undefined;
  return `source: ${file.rel}:${site.line} is in ${name}, but the dump says ${site.func}: the source may not match the dump`;
}

function toLocation(c: Cause, sourceDir: string): CauseLocation {
  return {
    file: join(sourceDir, c.file.rel),
    line: c.line,
    excerpt: excerpt(c.file.lines, c.line, c.from),
    message: c.message,
    confidence: c.confidence,
    kind: c.kind,
    ...(c.func ? { function: c.func } : {}),
  };
}

export { SourceIndex, pathParts } from './workspace/locate.js';
export { DEFAULT_MAX_FILE_BYTES } from './syntax/parser.js';
export type { Cause, CauseKind, Confidence } from './explain/cause.js';
