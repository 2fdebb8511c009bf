/**
 * samples/<case>/expected.json (schema `leakscope-sample/v1`, see samples/README.md) and the
 * membership rule it defines, implemented over the read MODEL (Snapshot.groups / Group.frames) and
 * independently of the analyze stage, so that a reader bug cannot hide behind an analyzer that
 * compensates for it (and the other way round).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Group, Snapshot } from '../../src/model/dump.js';
import { SAMPLES } from '../helpers/paths.js';

export interface ExpectedGroup {
  id: string;
  role?: string;
  function: string;
  file: string;
  /** 0: any line of that function (crash traces only). */
  line: number;
  state?: string;
  count: number;
  stack?: string[];
  createdBy?: string;
  labels?: Record<string, string>;
}

export interface ExpectedTrace {
  kind: 'sigquit' | 'fatal' | 'go-test-timeout' | 'race';
  gotraceback?: string;
  total?: number;
  totalAtLeast?: number;
  groups?: ExpectedGroup[];
  contains?: string[];
}

export interface ExpectedRaceAccess {
  op: string;
  top?: string;
  function: string;
  file: string;
  line: number;
}

export interface Expected {
  schema: string;
  case: string;
  verdict: string;
  files: string[];
  total?: number;
  totalAtLeast?: number;
  groups?: ExpectedGroup[];
  traces?: Record<string, ExpectedTrace>;
  race?: {
    reports: number;
    races: Array<{ access: ExpectedRaceAccess; previous: ExpectedRaceAccess }>;
    goroutines?: Array<{ role: string; state: string; createdAt: { function: string; file: string; line: number } }>;
  };
}

export function loadExpected(name: string): Expected {
  return JSON.parse(readFileSync(join(SAMPLES, name, 'expected.json'), 'utf8')) as Expected;
}

/** The pprof captures a sample can have, by the model's format name. */
export const PPROF_FILES = {
  pprof: 'goroutine.debug0.pb.gz',
  debug1: 'goroutine.debug1.txt',
  debug2: 'goroutine.debug2.txt',
} as const;
export type PprofFormat = keyof typeof PPROF_FILES;

/** `file` (module- or GOROOT-relative) names the printed path: equal, or a suffix after `/`. */
export function fileMatches(printed: string, file: string): boolean {
  // A -trimpath build prints a dependency as module@version/file: the version is ignored on both sides.
  const p = printed.replace(/\\/g, '/').replace(/@v[^/]*\//g, '/');
  const f = file.replace(/@v[^/]*\//g, '/');
  return p === f || p.endsWith(`/${f}`);
}

/** The membership rule of samples/README.md for one frame. */
export function frameMatches(f: Frame, e: Pick<ExpectedGroup, 'function' | 'file' | 'line'>): boolean {
  return f.func === e.function && (e.line === 0 || f.line === e.line) && fileMatches(f.file, e.file);
}

/** A goroutine group belongs to an expected group when ANY of its frames matches. */
export function groupMatches(g: Group, e: ExpectedGroup): boolean {
  return g.frames.some((f) => frameMatches(f, e));
}

/** Function names innermost first without `runtime.*` frames: identical in debug=0/1/2. */
export function userStack(g: Group): string[] {
  return g.frames.filter((f) => !f.func.startsWith('runtime.')).map((f) => f.func);
}

export interface Membership {
  /** Goroutines per expected group id. */
  counts: Record<string, number>;
  /** Model groups that matched more than one expected group (the expected groups are disjoint). */
  overlaps: string[];
  /** Goroutines in no expected group. */
  unmatched: number;
  /** Model group indices per expected group id. */
  members: Record<string, number[]>;
}

export function membership(s: Snapshot, groups: ExpectedGroup[]): Membership {
  const counts: Record<string, number> = Object.fromEntries(groups.map((e) => [e.id, 0]));
  const members: Record<string, number[]> = Object.fromEntries(groups.map((e) => [e.id, []]));
  const overlaps: string[] = [];
  let unmatched = 0;
  s.groups.forEach((g, i) => {
    const hit = groups.filter((e) => groupMatches(g, e));
    if (hit.length === 0) unmatched += g.count;
    if (hit.length > 1) overlaps.push(`model group ${i} (${g.frames[0]?.func}) matches ${hit.map((e) => e.id).join(' and ')}`);
    for (const e of hit) {
      counts[e.id] += g.count;
      members[e.id].push(i);
    }
  });
  return { counts, overlaps, unmatched, members };
}

/**
 * Everything a sample's expected group says about its members in this snapshot, as a list of
 * human-readable mismatches (empty when all hold). States and creators exist only in tracebacks.
 */
export function groupMismatches(s: Snapshot, e: ExpectedGroup, members: number[]): string[] {
  const out: string[] = [];
  const traceback = s.format === 'debug2';
  for (const i of members) {
    const g = s.groups[i];
    const where = `${s.format} ${e.id} model group ${i}`;
    if (traceback && e.state !== undefined && g.state !== e.state) out.push(`${where}: state ${JSON.stringify(g.state)}, want ${JSON.stringify(e.state)}`);
    if (traceback && e.createdBy !== undefined && g.creator?.func !== e.createdBy) {
      out.push(`${where}: created by ${JSON.stringify(g.creator?.func)}, want ${JSON.stringify(e.createdBy)}`);
    }
    if (e.stack) {
      const got = userStack(g);
      if (got.join('\n') !== e.stack.join('\n')) out.push(`${where}: stack\n    ${got.join('\n    ')}\n  want\n    ${e.stack.join('\n    ')}`);
    }
    if (!traceback && e.labels) {
      for (const [k, v] of Object.entries(e.labels)) {
        if (g.labels[k] !== v) out.push(`${where}: label ${k}=${JSON.stringify(g.labels[k])}, want ${JSON.stringify(v)}`);
      }
    }
  }
  return out;
}

/** `goroutine N [` headers, the independent count a traceback's total is checked against. */
export function countHeaders(text: string): number {
  return (text.match(/^goroutine \d+ \[/gm) ?? []).length;
}

/** A `go test -json` stream's text: the events' Output fields concatenated. */
export function jsonlOutput(text: string): string {
  let out = '';
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const ev = JSON.parse(line) as { Output?: string };
    if (ev.Output) out += ev.Output;
  }
  return out;
}
