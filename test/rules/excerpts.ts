/**
 * Scores leakscope on the excerpts of samples/excerpts (cut.mjs) and samples/module-bugs: an excerpt of
 * a buggy program is named when a warning or error names one of its stuck sites (as its location or as
 * a group of its evidence); a healthy excerpt must get no warning at all.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../../src/rules/index.js';
import { findingsOf } from './e2e.js';

export interface ExcerptCase {
  readonly path: string;
  readonly from: string;
  readonly shape: string;
  readonly verdict: string;
  readonly stuck?: readonly { readonly function: string; readonly line: number }[];
}

export function excerptCases(dir: string): ExcerptCase[] {
  const p = join(dir, 'excerpts.json');
  if (!existsSync(p)) return [];
  return (JSON.parse(readFileSync(p, 'utf8')) as { excerpts: ExcerptCase[] }).excerpts;
}

const loud = (fs: Finding[]) => fs.filter((f) => f.severity !== 'info');

export function namesSite(f: Finding, s: { function: string; line: number }): boolean {
  if (f.location?.func === s.function && f.location.line === s.line) return true;
  return f.evidence.groups.some((g) => g.site?.func === s.function && g.site.line === s.line);
}

export interface ExcerptScore {
  readonly c: ExcerptCase;
  readonly ok: boolean;
  readonly context?: string;
  readonly findings: Finding[];
}

export async function scoreExcerpt(dir: string, c: ExcerptCase): Promise<ExcerptScore> {
  const fs = (await findingsOf(join(dir, c.path))).flat();
  const l = loud(fs);
  const ok = c.verdict === 'healthy' ? l.length === 0 : (c.stuck ?? []).some((s) => l.some((f) => namesSite(f, s)));
  return { c, ok, findings: fs };
}
