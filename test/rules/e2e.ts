/** Shared by the end-to-end rule tests: read → analyze → runRules on real files. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { diagnoseRaces, runRules, type Finding } from '../../src/rules/index.js';
import { SAMPLES } from '../helpers/paths.js';

/** Findings of every snapshot of a file (races with the first snapshot, or alone). */
export async function findingsOf(path: string): Promise<Finding[][]> {
  const dump = await readDump(path);
  if (!dump.snapshots.length) return [diagnoseRaces(dump.races)];
  return dump.snapshots.map((s, i) => runRules(analyze(s), { races: i === 0 ? dump.races : [] }));
}

export interface FrameRef {
  function: string;
  file: string;
  line: number;
  count: number;
  state?: string;
}

export interface Expected {
  case: string;
  verdict: string;
  files?: string[];
  leak?: { root: FrameRef; consequences?: FrameRef[] };
  groups?: (FrameRef & { id: string; role?: string })[];
  traces?: Record<string, { groups?: (FrameRef & { id: string; role?: string })[] }>;
}

export function expectedOf(name: string): Expected {
  return JSON.parse(readFileSync(join(SAMPLES, name, 'expected.json'), 'utf8')) as Expected;
}

/** The group of a finding at a function and line (any role). */
export function groupAt(f: Finding, ref: Pick<FrameRef, 'function' | 'line'>) {
  return f.evidence.groups.find((g) => g.site?.func === ref.function && g.site.line === ref.line);
}

/** The finding whose root group sits at `ref` (function, line, file suffix). */
export function rootedAt(findings: Finding[], ref: FrameRef): Finding | undefined {
  return findings.find((f) =>
    f.evidence.groups.some(
      (g) => g.role === 'root' && g.site?.func === ref.function && g.site.line === ref.line && g.site.file.replace(/\\/g, '/').endsWith(ref.file),
    ),
  );
}

export const errorsOf = (fs: Finding[]) => fs.filter((f) => f.severity === 'error');

/** One line per finding, for readable failure messages. */
export function summary(fs: Finding[]): string {
  return fs.map((f) => `${f.severity} ${f.ruleId}: ${f.title}`).join('\n');
}
