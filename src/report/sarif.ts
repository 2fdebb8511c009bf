/**
 * `--format sarif`: SARIF 2.1.0 for code scanning. One result per finding, located at the root
 * group's blocking site (file:line); consequence groups and likely-cause lines are
 * `relatedLocations`; the representative stack is a SARIF `stack`. A failed gate limit is a result
 * too (rule `gate/<limit>`). `--path-prefix OLD=NEW` maps module-cache/GOPATH/build paths to
 * repository-relative ones. Rules and results are sorted, so output is byte-identical per input.
 */
import type { SiteFrame } from '../analyze/types.js';
import type { Frame } from '../model/dump.js';
import type { Finding, Severity } from '../rules/types.js';
import { textOrder } from '../rules/collate.js';
import { mapPath, shortSite, sortFindings } from './text.js';
import type { FleetProcess, GateLimit, PathMapping, RenderOptions, ReportInput } from './types.js';
import { fleetCounts, processStatusText } from './fleet.js';

export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

type Json = Record<string, unknown>;

interface Item {
  readonly ruleId: string;
  readonly level: 'error' | 'warning' | 'note';
  readonly title: string;
  readonly text: string;
  readonly file?: string;
  readonly line?: number;
  readonly func?: string;
  readonly related: { file: string; line: number; text: string }[];
  readonly stack: readonly (Frame | SiteFrame)[];
  readonly fingerprint: string;
  readonly properties: Json;
  readonly rule: { category?: string; pack?: string; severity: Severity };
}

const LEVEL: Readonly<Record<Severity, Item['level']>> = { error: 'error', warning: 'warning', info: 'note' };

export function renderSarif(input: ReportInput, opts: RenderOptions = {}): string {
  const items = [
    ...sortFindings(input.findings).map(fromFinding),
    ...(input.gate?.limits ?? []).filter((l) => !l.passed).map(fromGate),
    ...(input.fleet?.processes ?? []).filter((p) => p.status !== 'healthy').map(fromProcess),
  ];
  const map = opts.pathPrefixes ?? [];
  const base = opts.srcRoot;
  const ruleIds = [...new Set(items.map((i) => i.ruleId))].sort(textOrder);
  const rules = ruleIds.map((id) => ruleDescriptor(id, items.find((i) => i.ruleId === id)!));
  const results = items
    .map((i) => ({ item: i, uri: i.file ? toUri(i.file, map) : '' }))
    .sort((a, b) => textOrder(a.uri, b.uri) || (a.item.line ?? 0) - (b.item.line ?? 0) || textOrder(a.item.ruleId, b.item.ruleId) || textOrder(a.item.text, b.item.text))
    .map(({ item }) => result(item, ruleIds.indexOf(item.ruleId), map, base));
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'leakscope',
            semanticVersion: opts.toolVersion ?? '0.0.0',
            version: opts.toolVersion ?? '0.0.0',
            rules,
          },
        },
        ...(base ? { originalUriBaseIds: { [SRCROOT]: { uri: base, description: { text: 'The --source folder: the checkout of the program.' } } } } : {}),
        results,
        columnKind: 'utf16CodeUnits',
        ...(runProperties(input) ? { properties: runProperties(input) } : {}),
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}

function fromFinding(f: Finding): Item {
  const root = f.evidence.groups.find((g) => g.role === 'root') ?? f.evidence.groups[0];
  const loc = f.location ?? root?.site ?? f.evidence.stack.find((s) => s.file !== '');
  const related: Item['related'] = [];
  for (const g of f.evidence.groups) {
    if (g === root || !g.site?.file) continue;
    related.push({ file: g.site.file, line: g.site.line, text: `${g.role}: ${g.count} goroutines ${g.state || g.waitKind} in ${g.site.func}` });
  }
  for (const c of f.causeLocations ?? []) {
    related.push({ file: c.file, line: c.line, text: `likely cause (${c.confidence} confidence): ${c.message}` });
  }
  const text = [f.title, f.explanation, `Likely cause: ${f.cause}`, `Fix: ${f.fix}`].filter((s) => s.trim() !== '').join('\n');
  return {
    ruleId: f.ruleId,
    level: LEVEL[f.severity],
    title: f.title,
    text,
    ...(loc ? { file: loc.file, line: loc.line, func: loc.func } : {}),
    related,
    stack: f.evidence.stack,
    fingerprint: `${f.ruleId}:${root?.id ?? (loc ? `${loc.func}@${shortSite(loc)}` : f.title)}`,
    properties: { goroutines: f.evidence.goroutines, snapshot: f.snapshot.source, ...(f.category ? { category: f.category } : {}), ...(f.confidence ? { confidence: f.confidence } : {}) },
    rule: { severity: f.severity, ...(f.category ? { category: f.category } : {}), ...(f.pack ? { pack: f.pack } : {}) },
  };
}

function fromGate(l: GateLimit): Item {
  const s = l.subject;
  return {
    ruleId: `gate/${l.name}`,
    level: 'error',
    title: `Gate ${l.name} failed`,
    text: `Gate ${l.name} failed (allowed: ${l.limit}): ${l.message}`,
    ...(s?.file ? { file: s.file, line: s.line ?? 0, func: s.func ?? '' } : {}),
    related: [],
    stack: [],
    fingerprint: `gate/${l.name}:${s?.groupId ?? ''}`,
    properties: { actual: l.actual },
    rule: { severity: 'error', category: 'gate', pack: 'gate' },
  };
}

/**
 * A process of a fleet that is not healthy, by the headline's rule: `fleet/leaking` (error) or
 * `fleet/suspect` (warning), with its trend state.
 */
function fromProcess(p: FleetProcess): Item {
  const leaking = p.status === 'leaking';
  const text = `${p.name} ${processStatusText(p)}; goroutines ${p.first} → ${p.last} over ${p.snapshots} snapshots; latest snapshot: ${p.latest}`;
  return {
    ruleId: `fleet/${p.status}`,
    level: leaking ? 'error' : 'warning',
    title: `${p.name}: ${p.status}`,
    text,
    related: [],
    stack: [],
    fingerprint: `fleet/${p.status}:${p.name}`,
    properties: { process: p.name, status: p.status, trend: p.verdict, ...(p.needed !== undefined ? { needed: p.needed } : {}) },
    rule: { severity: leaking ? 'error' : 'warning', category: 'leak', pack: 'fleet' },
  };
}

/** The run's trend state (one series) and the fleet's counts, under `runs[0].properties`. */
function runProperties(input: ReportInput): Json | undefined {
  const props: Json = {};
  if (input.trend) props.trend = { verdict: input.trend.verdict, ...(input.trend.needed !== undefined ? { needed: input.trend.needed } : {}) };
  if (input.fleet) props.fleet = fleetCounts(input.fleet);
  return Object.keys(props).length ? props : undefined;
}

function ruleDescriptor(id: string, sample: Item): Json {
  const name = (id.split('/').pop() ?? id).replace(/(^|[-_.])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
  const tags = [sample.rule.category, sample.rule.pack].filter((t): t is string => !!t);
  return {
    id,
    name,
    shortDescription: { text: id.startsWith('gate/') ? `leakscope check limit ${id.slice(5)}` : id.startsWith('fleet/') ? `leakscope fleet: a ${id.slice(6)} process` : `leakscope rule ${id}` },
    defaultConfiguration: { level: LEVEL[sample.rule.severity] },
    properties: tags.length ? { tags: [...new Set(tags)] } : {},
  };
}

/** The base of relative uris when `--source` gave one (GitHub code scanning resolves it to the checkout). */
export const SRCROOT = '%SRCROOT%';

function result(i: Item, ruleIndex: number, map: readonly PathMapping[], base?: string): Json {
  const r: Json = { ruleId: i.ruleId, ruleIndex, level: i.level, message: { text: i.text } };
  if (i.file) r.locations = [location(i.file, i.line ?? 0, map, i.func, base)];
  const seen = new Set<string>();
  const related = i.related.filter((x) => {
    const k = `${x.file}:${x.line}:${x.text}`;
    return !seen.has(k) && (seen.add(k), true);
  });
  if (related.length) {
    r.relatedLocations = related.map((x, n) => ({ id: n, ...location(x.file, x.line, map, undefined, base), message: { text: x.text } }));
  }
  const frames = i.stack.filter((f) => f.file !== '');
  if (frames.length) {
    r.stacks = [{
      message: { text: 'Representative goroutine stack, innermost frame first' },
      frames: frames.map((f) => ({ location: location(f.file, f.line, map, f.func, base), module: f.pkg })),
    }];
  }
  r.partialFingerprints = { 'leakscopeGroup/v1': i.fingerprint };
  r.properties = i.properties;
  return r;
}

function location(file: string, line: number, map: readonly PathMapping[], func?: string, base?: string): Json {
  const uri = toUri(file, map);
  // Relative paths are relative to the --source folder when there is one.
  const artifact: Json = base && !/^file:/.test(uri) ? { uri, uriBaseId: SRCROOT } : { uri };
  const physical: Json = { artifactLocation: artifact };
  if (line > 0) physical.region = { startLine: line };
  const loc: Json = { physicalLocation: physical };
  if (func) loc.logicalLocations = [{ fullyQualifiedName: func, kind: 'function' }];
  return loc;
}

/**
 * A file path as printed in a dump → a SARIF uri: mapped by `--path-prefix`, `\` → `/`, absolute
 * paths as `file:///…`, relative ones relative (repository-relative after mapping), and every
 * character outside RFC 3986 `pchar` percent-encoded (spaces, `%`, non-ASCII, `#`, `?`…).
 */
export function toUri(file: string, map: readonly PathMapping[] = []): string {
  let p = mapPath(file, map).replace(/\\/g, '/');
  let prefix = '';
  if (/^[A-Za-z]:\//.test(p)) {
    prefix = 'file:///';
  } else if (p.startsWith('/')) {
    prefix = 'file://';
  } else if (p.startsWith('./')) {
    p = p.slice(2);
  }
  const segments = p.split('/').map((seg, i) => encodeSegment(seg, prefix === '' && i === 0));
  return prefix + segments.join('/');
}

function encodeSegment(seg: string, firstRelative: boolean): string {
  let out = '';
  for (const byte of Buffer.from(seg, 'utf8')) {
    const c = String.fromCharCode(byte);
    const keep = /[A-Za-z0-9\-._~!$&'()*+,;=@]/.test(c) || (c === ':' && !firstRelative);
    out += keep ? c : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}
