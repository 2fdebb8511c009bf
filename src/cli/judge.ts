/**
 * What the commands judge, and how findings are presented, when there are several snapshots:
 *
 * - a series of one process (`report`, `check`, `watch`): the rules judge the LATEST snapshot (the
 *   current state), and the trend adds its findings (a rule finding and a trend finding on one site
 *   are two views of one problem: `--format github` gives them one annotation, the HTML verdict
 *   counts them once).
 * - `inspect` with several inputs: each snapshot is judged on its own (the inputs need not be one
 *   process), and the same finding repeated in several snapshots (same rule, same site) is shown once,
 *   from the latest snapshot it is in, with a fact naming the others.
 *
 * Also `--source DIR` paths: findings located in the checkout are reported relative to DIR.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Analysis } from '../analyze/types.js';
import type { PathMapping } from '../report/types.js';
import { escalateGrowth } from '../rules/growth.js';
import type { Finding } from '../rules/types.js';
import { findingsFor, type LoadedInput, type Setup } from './pipeline.js';

/**
 * Rule findings of the latest snapshot only (with its dump's race reports); with the `series` it ends
 * (oldest first), a count that grew across it raises its finding (rules/growth.ts).
 */
export function latestFindings(loaded: readonly LoadedInput[], latest: Analysis | undefined, s: Setup, series: readonly Analysis[] = []): Finding[] {
  if (!latest) return findingsFor(loaded.filter((l) => l.analyses.length === 0), s);
  const input = loaded.filter((l) => l.analyses.includes(latest)).map((l) => ({ dump: l.dump, analyses: [latest] }));
  return escalateGrowth(findingsFor(input, s), series);
}

function siteKey(f: Finding): string | undefined {
  return f.location ? `${f.location.file}\u0000${f.location.line}` : undefined;
}

/** The same finding in several snapshots (same rule and site, or same rule and title) shown once. */
export function collapseRepeats(findings: readonly Finding[]): Finding[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.ruleId}\u0000${siteKey(f) ?? f.title}`;
    const list = groups.get(key);
    if (list) list.push(f);
    else groups.set(key, [f]);
  }
  const out: Finding[] = [];
  const snap = (f: Finding) => (f.snapshot.index > 0 ? `${f.snapshot.source} #${f.snapshot.index + 1}` : f.snapshot.source);
  for (const list of groups.values()) {
    if (list.length === 1) {
      out.push(list[0]);
      continue;
    }
    // Findings of the latest snapshot stay (several on one site in one snapshot are different sets,
    // not repeats); the one that counts most there carries the note about the earlier snapshots.
    const last = snap(list[list.length - 1]);
    const latest = list.filter((f) => snap(f) === last);
    const keep = latest.reduce((m, f) => (f.evidence.goroutines > m.evidence.goroutines ? f : m));
    const others = [...new Set(list.map(snap))].filter((s) => s !== last);
    if (!others.length) {
      out.push(...latest);
      continue;
    }
    const fact = `also found in ${others.length} earlier snapshot${others.length === 1 ? '' : 's'}: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}`;
    for (const f of latest) out.push(f === keep ? { ...keep, evidence: { ...keep.evidence, facts: [...keep.evidence.facts, fact] } } : f);
  }
  return out;
}

/**
 * `--source DIR`: paths under DIR, and frame paths of the dump whose tail names a file in DIR, become
 * relative to DIR (so `--source .` at the repository root gives repository-relative paths). Returned
 * as path mappings (applied after the user's `--path-prefix`) and DIR's absolute file URI, the SARIF
 * `%SRCROOT%` base.
 */
export function sourcePaths(findings: readonly Finding[], sourceDir: string | undefined): { mappings: PathMapping[]; srcRoot?: string } {
  if (!sourceDir) return { mappings: [] };
  const dir = normalize(sourceDir).replace(/[\\/]+$/, '') || sep;
  const abs = resolve(dir);
  const mappings: PathMapping[] = [];
  const add = (from: string) => {
    if (from && !mappings.some((m) => m.from === from)) mappings.push({ from, to: '' });
  };
  if (dir !== '.') add(dir + '/');
  add(abs + '/');
  const files = new Set<string>();
  for (const f of findings) {
    if (f.location) files.add(f.location.file);
    for (const g of f.evidence.groups) if (g.site) files.add(g.site.file);
    for (const fr of f.evidence.stack) if (fr.file) files.add(fr.file);
  }
  for (const file of [...files].sort()) {
    // Absolute paths, and the module paths of a -trimpath build (example.com/app/pkg/x.go).
    if (file.startsWith(abs + '/') || (!isAbsolute(file) && isFile(join(abs, file)))) continue;
    const parts = file.split('/');
    // The longest tail of the path that is a file in DIR: the prefix before it maps to DIR.
    for (let i = 1; i < parts.length - 1; i++) {
      const tail = parts.slice(i).join('/');
      if (isFile(join(abs, tail))) {
        add(parts.slice(0, i).join('/') + '/');
        break;
      }
    }
  }
  // Longest prefix first, so a nested mapping wins.
  mappings.sort((a, b) => b.from.length - a.from.length);
  return { mappings, srcRoot: pathToFileURL(abs + '/').href };
}

function isFile(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isFile();
  } catch {
    return false;
  }
}
