/**
 * `--format json`: the model as a documented, versioned document (`schemaVersion: 1`, described by
 * `json-schema.ts` and docs/cli.md). Every object is built field by field in a fixed order, so the
 * output is byte-identical for the same input and new internal fields never leak out unannounced.
 * All groups are included (`--top` does not apply); `--match` does. `trend` holds only the latest
 * snapshot (the series is in `trend`).
 */
import { aggregateInputs } from './aggregates.js';
import type { DiffResult } from '../analyze/compare.js';
import type { SeriesTrend, TrendResult } from '../analyze/trend.js';
import type { Analysis, AnalyzedGroup, SiteFrame } from '../analyze/types.js';
import { WAIT_KINDS, type Frame, type RaceReport } from '../model/dump.js';
import type { Finding } from '../rules/types.js';
import { fleetJson } from './fleet.js';
import { Memoized, writeJsonText, type JsonSink, type MemoTexts } from './json-text.js';
import { selectGroups, sortFindings } from './text.js';
import type { GateResult, RenderOptions, ReportInput } from './types.js';

export const JSON_SCHEMA_VERSION = 1;
/** A report over several processes (`fleet`, snapshots = each process's latest, merged findings). */
export const JSON_FLEET_SCHEMA_VERSION = 2;

type J = unknown;

export function renderJson(input: ReportInput, opts: RenderOptions = {}): string {
  const parts: string[] = [];
  writeJson(input, opts, (text) => parts.push(text));
  return parts.join('');
}

/**
 * `renderJson`'s text, handed to `sink` in pieces as it is made (json-text.ts): the CLI writes a
 * large report without ever holding it whole.
 */
export function writeJson(input: ReportInput, opts: RenderOptions, sink: JsonSink): void {
  const doc: Record<string, J> = {
    schemaVersion: input.fleet ? JSON_FLEET_SCHEMA_VERSION : JSON_SCHEMA_VERSION,
    tool: { name: 'leakscope', version: opts.toolVersion ?? '0.0.0' },
    command: input.command,
    snapshots: snapshotsShown(input).map((a) => snapshot(a, opts)),
    findings: sortFindings(input.findings).map(finding),
    races: (input.races ?? []).map(race),
  };
  const aggregates = aggregateInputs(input);
  if (aggregates.length) doc.aggregates = aggregates.map((x) => ({ source: x.source, index: x.index, kind: x.kind, groups: x.groups }));
  if (input.diff) doc.diff = diff(input.diff, opts);
  if (input.trend) doc.trend = trend(input.trend, opts);
  if (input.gate) doc.gate = gate(input.gate);
  if (input.fleet) doc.fleet = fleetJson(input.fleet);
  writeJsonText(doc, sink);
}

/**
 * `trend` holds the latest snapshot only: each group's series of counts is in `trend.groups[].counts`
 * and each snapshot's source, time and total in `trend.points`, so a long series (hundreds of dumps)
 * does not repeat every group of every snapshot. The other commands hold every snapshot.
 */
function snapshotsShown(input: ReportInput): readonly Analysis[] {
  return input.command === 'trend' ? input.analyses.slice(-1) : input.analyses;
}

/** Copy only defined optional fields, in the order given. */
function obj(entries: [string, J][]): Record<string, J> {
  const o: Record<string, J> = {};
  for (const [k, v] of entries) if (v !== undefined) o[k] = v;
  return o;
}

function sortedRecord<T>(r: Readonly<Record<string, T>>): Record<string, T> {
  // (Most groups have no labels and no flags: one shared empty object, written `{}`.)
  if (isEmpty(r)) return NONE as Record<string, T>;
  const o: Record<string, T> = {};
  for (const k of Object.keys(r).sort()) o[k] = r[k];
  return o;
}

const NONE = Object.freeze({});

function isEmpty(r: object): boolean {
  for (const k in r) if (Object.prototype.hasOwnProperty.call(r, k)) return false;
  return true;
}

function snapshot(a: Analysis, opts: RenderOptions): J {
  const s = a.snapshot;
  const byWaitKind: Record<string, number> = {};
  for (const k of WAIT_KINDS) if ((a.byWaitKind[k] ?? 0) > 0) byWaitKind[k] = a.byWaitKind[k]!;
  const groups = selectGroups(a.groups, opts);
  return obj([
    ['source', s.source],
    ['index', s.index],
    ['format', s.format],
    ['profile', s.profile],
    ['capturedAt', s.capturedAt],
    ['headline', s.headline ? { kind: s.headline.kind, message: s.headline.message, lines: [...s.headline.lines] } : undefined],
    ['context', s.context ? obj([
      ['kind', s.context.kind], ['summary', s.context.summary], ['checker', s.context.checker],
      ['timeoutSeconds', s.context.timeoutSeconds], ['tests', s.context.tests ? [...s.context.tests] : undefined],
      ['excerpt', s.context.excerpt ? [...s.context.excerpt] : undefined],
    ]) : undefined],
    ['listing', s.listing ? obj([
      ['kind', s.listing.kind], ['groups', s.listing.groups], ['header', s.listing.header], ['lines', s.listing.lines],
      ['droppedNodes', s.listing.droppedNodes], ['droppedBelow', s.listing.droppedBelow], ['program', s.listing.program],
    ]) : undefined],
    ['total', a.total],
    ['declaredTotal', s.declaredTotal],
    ['truncated', s.truncated],
    ['level', a.level],
    ['groupCount', a.groups.length],
    ['byWaitKind', byWaitKind],
    ['groups', groups.map(group)],
    ['links', a.links.map((l) => ({ child: l.child, parent: l.parent, count: l.count, via: l.via }))],
    ['warnings', s.warnings.map((w) => obj([['severity', w.severity], ['code', w.code], ['message', w.message], ['line', w.line]]))],
    ['programModules', a.programModules ? a.programModules.map((m) => ({ module: m.module, why: m.why })) : undefined],
  ]);
}

// The hottest builder (every frame of every group): a literal, as `obj` would build it. JSON.stringify
// leaves out properties whose value is undefined, so the text is the same.
function frame(f: Frame | SiteFrame): J {
  return {
    func: f.func,
    pkg: f.pkg,
    file: f.file,
    line: f.line,
    inlined: f.inlined,
    origin: 'origin' in f ? f.origin : undefined,
  };
}

/** Frames' texts (`frame`), by depth and frame: the frames of a dump's groups are shared objects (origin.ts). */
const frameTexts: MemoTexts = new Map();

/** `frames` as `frames.map(frame)` is written, each frame's text made once. */
function frameList(frames: readonly (Frame | SiteFrame)[]): J {
  return new Memoized(frames, frame, frameTexts);
}

// One per group (tens of thousands for a dump of distinct stacks): a literal, written in this key
// order; the writer leaves out the fields that are undefined, as `obj` would. Arrays are written as
// they are, not copied (nothing writes to them).
function group(g: AnalyzedGroup): J {
  const c = g.creator;
  return {
    id: g.id,
    key: g.key,
    count: g.count,
    share: g.share,
    waitKind: g.waitKind,
    states: g.states,
    wait: g.wait ? { min: g.wait.min, max: g.wait.max, stamped: g.wait.stamped } : undefined,
    blockingSite: g.blockingSite ? frame(g.blockingSite) : undefined,
    frames: frameList(g.frames),
    elidedFrames: g.elidedFrames,
    creator: c ? { func: c.func, pkg: c.pkg, file: c.file, line: c.line, goroutineIds: c.goroutineIds } : undefined,
    labels: sortedRecord(g.labels),
    labelSets: g.labelSets,
    goroutineIds: g.goroutineIds,
    flags: sortedRecord(g.flags as Record<string, boolean | number>),
    partial: g.partial,
  };
}

function finding(f: Finding): J {
  return obj([
    ['ruleId', f.ruleId],
    ['severity', f.severity],
    ['category', f.category],
    ['confidence', f.confidence],
    ['pack', f.pack],
    ['title', f.title],
    ['explanation', f.explanation],
    ['cause', f.cause],
    ['fix', f.fix],
    ['location', f.location ? { func: f.location.func, file: f.location.file, line: f.location.line } : undefined],
    ['causeLocations', f.causeLocations?.map((c) => obj([
      ['file', c.file], ['line', c.line], ['excerpt', c.excerpt], ['message', c.message], ['confidence', c.confidence],
      ['kind', c.kind], ['function', c.function],
    ]))],
    ['snapshot', { source: f.snapshot.source, index: f.snapshot.index }],
    ['evidence', {
      goroutines: f.evidence.goroutines,
      groups: f.evidence.groups.map((g) => ({
        id: g.id, role: g.role, count: g.count, share: g.share, waitKind: g.waitKind, state: g.state,
        site: g.site ? { func: g.site.func, file: g.site.file, line: g.site.line } : undefined,
        wait: g.wait ? { min: g.wait.min, max: g.wait.max } : undefined,
      })),
      facts: f.evidence.facts,
      stack: frameList(f.evidence.stack),
    }],
  ]);
}

function race(r: RaceReport): J {
  return obj([
    ['source', r.source],
    ['line', r.line],
    ['accesses', r.accesses.map((a) => ({
      op: a.op, previous: a.previous, address: a.address, goroutineId: a.goroutineId, frames: a.frames.map(frame),
    }))],
    ['goroutines', r.goroutines.map((g) => ({ id: g.id, status: g.status, createdAt: g.createdAt.map(frame) }))],
  ]);
}

function ref(r: DiffResult['before']): J {
  return obj([['source', r.source], ['index', r.index], ['total', r.total], ['capturedAt', r.capturedAt]]);
}

function diff(d: DiffResult, opts: RenderOptions): J {
  const keep = new Set(selectGroups(d.groups.map((g) => g.group), opts));
  return {
    level: d.level,
    before: ref(d.before),
    after: ref(d.after),
    totalDelta: d.totalDelta,
    totalGrowth: d.totalGrowth,
    newGroups: d.newGroups,
    vanishedGroups: d.vanishedGroups,
    groups: d.groups.filter((g) => keep.has(g.group)).map((g) => obj([
      ['id', g.id], ['key', g.key], ['change', g.change], ['before', g.before], ['after', g.after], ['delta', g.delta],
      ['growth', g.growth], ['waitKind', g.waitKind], ['blockingSite', g.blockingSite ? frame(g.blockingSite) : undefined],
    ])),
  };
}

function series(s: SeriesTrend): [string, J][] {
  const mk = s.mannKendall;
  return [
    ['verdict', s.verdict],
    ['counts', [...s.counts]],
    ['first', s.first],
    ['last', s.last],
    ['min', s.min],
    ['max', s.max],
    ['perMinute', s.perMinute],
    ['perSnapshot', s.perSnapshot],
    ['mannKendall', { n: mk.n, s: mk.s, tau: mk.tau, pIncreasing: mk.pIncreasing, pDecreasing: mk.pDecreasing, exact: mk.exact }],
    ['pAdjusted', s.pAdjusted],
    ['material', s.material],
    ['needed', s.needed],
    ['sparkline', s.sparkline],
  ];
}

function trend(t: TrendResult, opts: RenderOptions): J {
  const keep = new Set(selectGroups(t.groups.map((g) => g.group), opts));
  return {
    level: t.level,
    alpha: t.alpha,
    verdict: t.verdict,
    ...(t.needed !== undefined ? { needed: t.needed } : {}),
    leaks: t.leaks,
    rising: t.rising,
    family: t.family,
    durationMs: t.durationMs,
    points: t.points.map((p) => obj([['source', p.source], ['index', p.index], ['time', p.time], ['capturedAt', p.capturedAt], ['total', p.total]])),
    total: obj(series(t.total)),
    groups: t.groups.filter((g) => keep.has(g.group)).map((g) => obj([
      ['id', g.id], ['key', g.key], ['waitKind', g.waitKind], ['blockingSite', g.blockingSite ? frame(g.blockingSite) : undefined],
      ...series(g),
    ])),
  };
}

function gate(g: GateResult): J {
  return {
    passed: g.passed,
    failOn: g.failOn,
    limits: g.limits.map((l) => obj([
      ['name', l.name], ['limit', l.limit], ['actual', l.actual], ['passed', l.passed], ['message', l.message],
      ['subject', l.subject ? obj([
        ['groupId', l.subject.groupId], ['func', l.subject.func], ['file', l.subject.file], ['line', l.subject.line], ['source', l.subject.source],
      ]) : undefined],
    ])),
  };
}
