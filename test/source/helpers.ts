/** Findings built by hand for source-analysis tests: a blocking site in a Go file, nothing else. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Analysis, AnalyzedGroup, SiteFrame } from '../../src/analyze/types.js';
import type { WaitKind } from '../../src/model/dump.js';
import type { Finding } from '../../src/rules/types.js';

export const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

/** Lines (1-based) carrying `// NAME` markers in a file: { BLOCKED: [12], CAUSE: [20] }. */
export function markers(path: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      for (const m of text.matchAll(/\/\/ ([A-Z][A-Z0-9]+)\b/g)) (out[m[1]] ??= []).push(i + 1);
    });
  return out;
}

export interface SiteSpec {
  /** The file as the dump prints it (any path form). */
  file: string;
  line: number;
  waitKind: WaitKind;
  func?: string;
  /** Frames above the blocking one (callers), innermost first. */
  callers?: { func: string; file: string; line: number }[];
  /** The `go` statement that started the goroutine (`created by`). */
  creator?: { func: string; file: string; line: number };
}

function frame(f: { func: string; file: string; line: number }, index: number): SiteFrame {
  return { func: f.func, pkg: f.func.replace(/\.[^/]*$/, ''), file: f.file, line: f.line, inlined: false, origin: 'user', index };
}

/** A finding whose root group blocks at `spec` (no analyses needed). */
export function findingAt(spec: SiteSpec): Finding {
  const func = spec.func ?? '';
  const stack = [frame({ func, file: spec.file, line: spec.line }, 0), ...(spec.callers ?? []).map((c, i) => frame(c, i + 1))];
  return {
    ruleId: 'test/blocked',
    severity: 'warning',
    title: 'blocked',
    explanation: '',
    cause: '',
    fix: '',
    evidence: {
      groups: [{ id: 'g1', count: 10, share: 1, waitKind: spec.waitKind, state: '', site: { func, file: spec.file, line: spec.line }, role: 'root' }],
      goroutines: 10,
      stack,
      facts: [],
    },
    location: { file: spec.file, line: spec.line, func },
    snapshot: { source: 'test', index: 0 },
  };
}

/** A fixture file path, as a dump built in `/build/app` would print it. */
export function fixture(name: string, file: string): { dir: string; path: string; printed: string } {
  return { dir: join(FIXTURES, name), path: join(FIXTURES, name, file), printed: `/build/app/${file}` };
}

/** The finding plus an analysis holding its root group (frames, blocking site, creator). */
export function caseAt(spec: SiteSpec): { finding: Finding; analyses: Analysis[] } {
  const finding = findingAt(spec);
  const frames = finding.evidence.stack;
  const group: AnalyzedGroup = {
    key: 'k', id: 'g1', count: 10, share: 1, waitKind: spec.waitKind, states: [], frames, blockingSite: frames[0],
    creator: spec.creator ? { ...spec.creator, pkg: '', goroutineIds: [] } : undefined,
    labels: {}, labelSets: 1, goroutineIds: [], flags: {}, elidedFrames: 0, partial: false, members: [0],
  };
  const snapshot = { source: 'test', index: 0, format: 'debug2' as const, profile: 'goroutine' as const, total: 10, truncated: false, groups: [], links: [], warnings: [] };
  return { finding, analyses: [{ snapshot, level: 'exact', total: 10, groups: [group], byWaitKind: {}, links: [] }] };
}
