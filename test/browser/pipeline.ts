/**
 * Report inputs for the HTML tests, made the way the CLI makes them: readDump → analyze → runRules.
 * While a stage is still missing (the readers, the rule packs land concurrently), a developer machine
 * falls back to the hand-built analyses of fixtures.ts with a warning; under CI the real pipeline is required.
 */
import { join } from 'node:path';
import { analyze } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/analyze/types.js';
import type { RaceReport } from '../../src/model/dump.js';
import { readDump } from '../../src/read/index.js';
import type { ReportInput } from '../../src/report/types.js';
import type { Finding } from '../../src/rules/types.js';
import { diagnoseRaces, runRules } from '../../src/rules/index.js';
import { explainWithSource } from '../../src/source/index.js';
import { SAMPLES } from '../helpers/paths.js';
import { apiproxyAnalysis, apiproxyFinding } from './fixtures.js';

export const LEAK_SAMPLE = join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt');

/** Every snapshot of every input, analyzed, with the findings of the rules. */
export async function pipeline(paths: readonly string[], opts: { sourceDir?: string } = {}): Promise<ReportInput> {
  const analyses: Analysis[] = [];
  const findings: Finding[] = [];
  const races: RaceReport[] = [];
  for (const p of paths) {
    const dump = await readDump(p);
    races.push(...dump.races);
    dump.snapshots.forEach((s, i) => {
      const a = analyze(s);
      analyses.push(a);
      findings.push(...runRules(a, i === 0 ? { races: dump.races } : {}));
    });
    if (dump.snapshots.length === 0) findings.push(...diagnoseRaces(dump.races, { source: dump.source }));
  }
  const explained = opts.sourceDir ? (await explainWithSource(findings, analyses, { sourceDir: opts.sourceDir })).findings : findings;
  return { command: 'inspect', analyses, findings: explained, ...(races.length ? { races } : {}) };
}

export interface Made {
  readonly input: ReportInput;
  /** false: the hand-built fallback was used. */
  readonly real: boolean;
}

/** The real pipeline, or (outside CI, while a stage is missing) `fallback()` with a warning. */
export async function viaPipeline(paths: readonly string[], fallback: () => ReportInput, opts: { sourceDir?: string } = {}): Promise<Made> {
  try {
    return { input: await pipeline(paths, opts), real: true };
  } catch (e) {
    if (process.env.CI) throw e;
    console.warn(`HTML tests: pipeline unavailable (${String(e).split('\n')[0]}); using hand-built analyses`);
    return { input: fallback(), real: false };
  }
}

/** The API-proxy leak sample, with its Go source for cause locations (`--source`). */
export function leakSampleInput(): Promise<Made> {
  return viaPipeline([LEAK_SAMPLE], () => {
    const a = apiproxyAnalysis(LEAK_SAMPLE);
    return { command: 'inspect', analyses: [a], findings: [apiproxyFinding(a)] };
  }, { sourceDir: join(SAMPLES, 'apiproxy-leak') });
}
