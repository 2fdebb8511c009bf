/** Where tests find the repo, its samples and the shared corpus of real dumps. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SAMPLES = join(REPO, 'samples');
/** `../shared/corpus` beside the checkout (CI lays a copy of shared/ there). */
export const CORPUS = resolve(REPO, '..', 'shared', 'corpus');

/** Under CI a missing corpus is a failure, not a skip. */
export function corpusAvailable(): boolean {
  const ok = existsSync(CORPUS);
  if (!ok && process.env.CI) throw new Error(`corpus folder missing under CI: ${CORPUS}`);
  return ok;
}

/** Every corpus file, relative to CORPUS (`debug2/x.txt`), excluding README.md and SOURCES.tsv. */
export function corpusFiles(): string[] {
  if (!corpusAvailable()) return [];
  const out: string[] = [];
  for (const dir of readdirSync(CORPUS)) {
    const p = join(CORPUS, dir);
    if (!statSync(p).isDirectory()) continue;
    // A folder's README.md (tests/) describes its dumps; it is none.
    for (const f of readdirSync(p)) if (f !== 'README.md') out.push(`${dir}/${f}`);
  }
  return out.sort();
}

/** Sample case folders (samples/<case>/ with an expected.json). */
export function sampleCases(): string[] {
  if (!existsSync(SAMPLES)) return [];
  return readdirSync(SAMPLES)
    .filter((d) => existsSync(join(SAMPLES, d, 'expected.json')))
    .sort();
}

/**
 * The folder that held `samples/` when the soak series were written (`/work/main` when built there):
 * those dumps carry the absolute paths of the machine that ran the programs, not of this checkout.
 * (The other samples are built with -trimpath and carry module paths: `example.com/apiproxy/pkg/…`.)
 */
export function sampleBuildRoot(): string {
  const dir = join(SAMPLES, 'soak-leak', 'series');
  const file = readdirSync(dir).filter((f) => f.endsWith('.txt')).sort()[0];
  const text = readFileSync(join(dir, file), 'utf8');
  const m = /\t(\S*)\/samples\/soak-leak\//.exec(text);
  if (!m) throw new Error(`no samples/ path in samples/soak-leak/series/${file}`);
  return m[1];
}

/** Files below `dir` (at any depth) whose names match `name`, in directory order. */
export function filesUnder(dir: string, name: RegExp): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p, name));
    else if (name.test(e)) out.push(p);
  }
  return out;
}

/** Text and protobuf dumps of the samples (but the pasted excerpts) and, when present, the corpus. */
export function sampleAndCorpusDumps(): string[] {
  const dumps = /\.(txt|pb\.gz)$/;
  const paths = filesUnder(SAMPLES, dumps).filter((p) => !p.includes('/excerpts/'));
  if (corpusAvailable()) paths.push(...filesUnder(CORPUS, dumps));
  return paths;
}
