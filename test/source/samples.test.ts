/**
 * The samples' own Go source: the API-proxy leak shape must point at the consumer loop's early
 * `return`; the renamed variant the same; the fixed variant gets no cause claimed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { readDump } from '../../src/read/index.js';
import { runRules } from '../../src/rules/index.js';
import type { Finding } from '../../src/rules/types.js';
import { explainWithSource } from '../../src/source/index.js';
import { SAMPLES } from '../helpers/paths.js';
import { findingAt } from './helpers.js';

interface Expected {
  leak?: { root: { function: string; file: string; line: number; state: string } };
  groups: { id: string; role?: string; function: string; file: string; line: number; state?: string }[];
}

const expected = (c: string): Expected => JSON.parse(readFileSync(join(SAMPLES, c, 'expected.json'), 'utf8'));
const have = (c: string) => existsSync(join(SAMPLES, c, 'expected.json'));
const sourceLine = (file: string, line: number) => readFileSync(file, 'utf8').split('\n')[line - 1].trim();

/** The finding built from expected.json's leak root: function, file (module-relative) and line. */
function rootFinding(c: string): Finding {
  const r = expected(c).leak!.root;
  return findingAt({ file: r.file, line: r.line, waitKind: 'chan-send', func: r.function });
}

/** The real pipeline: read → analyze → rules → source. */
async function pipeline(c: string, dump: string) {
  const d = await readDump(join(SAMPLES, c, dump));
  const analyses = d.snapshots.map((s) => analyze(s));
  const findings = analyses.flatMap((a) => runRules(a));
  return explainWithSource(findings, analyses, { sourceDir: join(SAMPLES, c) });
}

/** The consumer's early return: high confidence, the loop above it, the line marked in the excerpt. */
function expectConsumerReturn(f: Finding | undefined, c: string, file: string) {
  const cause = f?.causeLocations?.[0];
  expect(cause, `${c}: a cause`).toBeDefined();
  expect(cause!).toMatchObject({ kind: 'consumer-exit', confidence: 'high' });
  expect(cause!.file).toBe(join(SAMPLES, c, file));
  expect(sourceLine(cause!.file, cause!.line)).toBe('return');
  expect(cause!.excerpt).toMatch(/for \w+ := range \w+ \{/);
  expect(cause!.excerpt).toContain(`> ${cause!.line} |`);
  expect(cause!.message).toMatch(/exits here \(return\) before the channel is closed/);
  return cause!;
}

const LEAKS = [
  { c: 'apiproxy-leak', consumer: 'pkg/stores/proxy/proxy_store.go' },
  { c: 'apiproxy-leak-renamed', consumer: 'internal/feed/filtered.go' },
];

describe.each(LEAKS)('$c', ({ c, consumer }) => {
  it.runIf(have(c))('from expected.json: the blocked send is explained by the consumer loop’s early return', async () => {
    const r = await explainWithSource([rootFinding(c)], [], { sourceDir: join(SAMPLES, c) });
    expect(r.warnings).toEqual([]);
    expectConsumerReturn(r.findings[0], c, consumer);
  });

  for (const dump of ['goroutine.debug2.txt', 'goroutine.debug0.pb.gz']) {
    it.runIf(have(c) && existsSync(join(SAMPLES, c, dump)))(`through the pipeline (${dump})`, async () => {
      const r = await pipeline(c, dump);
      const root = expected(c).leak!.root;
      const f = r.findings.find((x) => x.location?.line === root.line && x.location.file.endsWith(root.file));
      const cause = expectConsumerReturn(f, c, consumer);
      // The bare send is named too, but after the consumer and less sure.
      expect(f!.causeLocations!.find((x) => x.kind === 'no-cancel-case')).toMatchObject({ line: root.line, confidence: 'medium' });
      expect(f!.causeLocations!.indexOf(cause)).toBe(0);
      // No other finding of the sample (healthy receivers) gets a cause with any confidence.
      expect(r.findings.filter((x) => x !== f && x.causeLocations?.length)).toEqual([]);
    });
  }
});

describe('apiproxy-fixed', () => {
  const c = 'apiproxy-fixed';
  it.runIf(have(c))('the same send site gets no cause: the consumer continues and drains', async () => {
    const site = expected(c).groups.find((g) => g.state === 'chan send')!;
    const f = findingAt({ file: site.file, line: site.line, waitKind: 'chan-send', func: site.function });
    const r = await explainWithSource([f], [], { sourceDir: join(SAMPLES, c) });
    expect(r.warnings).toEqual([]);
    expect(r.findings[0].causeLocations ?? []).toEqual([]);
  });

  it.runIf(have(c))('through the pipeline: no finding gets a cause', async () => {
    const r = await pipeline(c, 'goroutine.debug2.txt');
    expect(r.findings.filter((x) => x.causeLocations?.length)).toEqual([]);
  });
});

describe('other samples with a cause only the source shows', () => {
  it.runIf(have('blocked-receive'))('blocked-receive: the producer goroutine returns without sending (another package)', async () => {
    const r = await pipeline('blocked-receive', 'goroutine.debug2.txt');
    const want = (expected('blocked-receive').leak as unknown as { cause: { file: string; line: number } }).cause;
    const all = r.findings.flatMap((f) => f.causeLocations ?? []);
    expect(all.find((x) => x.file.endsWith(want.file) && x.line === want.line)).toMatchObject({ kind: 'producer-returns', confidence: 'high' });
  });

  it.runIf(have('nil-channel'))('nil-channel: the struct literal without the channel field', async () => {
    const r = await pipeline('nil-channel', 'goroutine.debug2.txt');
    const nil = r.findings.flatMap((f) => f.causeLocations ?? []).filter((x) => x.kind === 'nil-channel');
    expect(nil.length).toBeGreaterThan(0);
    for (const n of nil) expect(sourceLine(n.file, n.line)).toMatch(/&\w+\{\}/);
  });

  it.runIf(have('lock-inversion'))('lock-inversion: two locks of one kind taken in argument order', async () => {
    const r = await pipeline('lock-inversion', 'goroutine.debug2.txt');
    const root = expected('lock-inversion').leak!.root;
    const all = r.findings.flatMap((f) => f.causeLocations ?? []);
    expect(all.find((x) => x.kind === 'lock-order' && x.line === root.line)).toMatchObject({ confidence: 'high' });
  });
});
