/**
 * The planted bugs of samples/planted: each case's checkout is rebuilt at test time from the Debian
 * package's source (/usr/share/gocode/src/<tree>) with the case's bug.patch applied and its driver
 * files copied in; nothing of the Debian source is in the repository. Then the CLI's pipeline:
 * read → analyze (with the checkout's modules as the program's) → rules → source.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { runRules } from '../../src/rules/index.js';
import type { Finding } from '../../src/rules/types.js';
import { explainWithSource, sourceModules } from '../../src/source/index.js';
import { SAMPLES } from '../helpers/paths.js';

export const PLANTED = join(SAMPLES, 'planted');
export const GOCODE = '/usr/share/gocode/src';

export interface PlantedCase {
  case: string;
  debian: string;
  tree: string;
  driver: { dir: string; test: string; timeout: string };
  description: string;
  bug: { file: string; line: number; what: string }[];
}

export function plantedCases(): PlantedCase[] {
  if (!existsSync(PLANTED)) return [];
  return readdirSync(PLANTED)
    .filter((d) => existsSync(join(PLANTED, d, 'case.json')))
    .sort()
    .map((d) => JSON.parse(readFileSync(join(PLANTED, d, 'case.json'), 'utf8')) as PlantedCase);
}

/** Is the Debian package's source installed? (Under CI it must be: .ci/run installs it.) */
export function packageAvailable(c: PlantedCase): boolean {
  const ok = existsSync(join(GOCODE, c.tree));
  if (!ok && process.env.CI) throw new Error(`${c.case}: ${join(GOCODE, c.tree)} missing under CI (apt-get install ${c.debian})`);
  return ok;
}

/** A fresh checkout: the package's source, the bug applied, the driver copied in. Returns its root (the tree). */
export function buildCheckout(c: PlantedCase): { root: string; dispose: () => void } {
  const tmp = mkdtempSync(join(tmpdir(), `planted-${c.case}-`));
  const root = join(tmp, 'src', c.tree);
  cpSync(join(GOCODE, c.tree), root, { recursive: true });
  writable(root);
  // A case without bug.patch is a real bug of the Debian version as shipped.
  const patch = join(PLANTED, c.case, 'bug.patch');
  if (existsSync(patch)) execFileSync('patch', ['-s', '-p1', '-d', root, '-i', patch]);
  for (const f of readdirSync(join(PLANTED, c.case)).filter((x) => x.endsWith('.go'))) cpSync(join(PLANTED, c.case, f), join(root, c.driver.dir, f));
  return { root, dispose: () => rmSync(tmp, { recursive: true, force: true }) };
}

function writable(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    chmodSync(p, e.isDirectory() ? 0o755 : 0o644);
    if (e.isDirectory()) writable(p);
  }
}

export interface PlantedRun {
  findings: Finding[];
  warnings: string[];
  modules: string[];
  verdict: 'hit' | 'wrong' | 'silent';
  /** Cause lines that are not a line of the bug (`file:line`). */
  wrongLines: string[];
}

/** The pipeline as `leakscope inspect DUMP --source CHECKOUT` runs it, and the verdict against the case's bug lines. */
export async function runPlanted(c: PlantedCase, dump: string, root: string): Promise<PlantedRun> {
  const d = await readDump(join(PLANTED, c.case, dump));
  const first = d.snapshots.map((s) => analyze(s));
  const modules = sourceModules(root, first.flatMap((a) => a.groups.flatMap((g) => g.frames)));
  const analyses = d.snapshots.map((s) => analyze(s, { userModules: modules }));
  const findings = analyses.flatMap((a) => runRules(a));
  const r = await explainWithSource(findings, analyses, { sourceDir: root });
  const causes = r.findings.flatMap((f) => f.causeLocations ?? []);
  const isBug = (file: string, line: number) => c.bug.some((b) => file === join(root, b.file) && line === b.line);
  const wrongLines = causes.filter((x) => !isBug(x.file, x.line)).map((x) => `${x.file.slice(root.length + 1)}:${x.line}`);
  const verdict = causes.some((x) => isBug(x.file, x.line)) ? 'hit' : causes.length > 0 ? 'wrong' : 'silent';
  return { findings: r.findings, warnings: r.warnings, modules, verdict, wrongLines };
}

/** Dumps of a case (CASE/go1.xx/*.txt), relative to the case folder. */
export function dumpsOf(c: PlantedCase): string[] {
  const dir = join(PLANTED, c.case);
  return readdirSync(dir)
    .filter((v) => /^go1\.\d+$/.test(v) && statSync(join(dir, v)).isDirectory())
    .flatMap((v) => readdirSync(join(dir, v)).filter((f) => f.endsWith('.txt')).map((f) => `${v}/${f}`));
}
