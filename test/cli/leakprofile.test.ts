/**
 * The goroutineleak profile through every input and command (samples/leakprofile/fetch-fanout, Go 1.26):
 * stdin, a URL shaped like /debug/pprof/goroutineleak?debug=N, `watch` on such an endpoint, `check`
 * (also inside a support bundle), `diff` and `trend` over leak profiles, and the HTML report, which
 * shows that the runtime proved the finding.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES } from '../helpers/paths.js';
import { ensureBuilt, run } from './run.js';

const DIR = join(SAMPLES, 'leakprofile', 'fetch-fanout');
const FILE: Record<string, string> = {
  '0': join(DIR, 'goroutineleak.debug0.pb.gz'),
  '1': join(DIR, 'goroutineleak.debug1.txt'),
  '2': join(DIR, 'goroutineleak.debug2.txt'),
};
const SERIES = [1, 2, 3, 4, 5].map((i) => join(DIR, 'series', `leak-${i}.debug0.pb.gz`));
const SEND = 'example.com/fetchgw/internal/fetch.(*Gateway).FirstAnswer.func1';

interface Doc {
  command: string;
  findings: { ruleId: string; severity: string; confidence?: string; title: string; location?: { func: string; line: number } }[];
  trend?: { verdict: string };
  gate?: { passed: boolean };
  diff?: { groups: { blockingSite?: { func: string; line: number }; before: number; after: number }[] };
}

function provenOnly(doc: Doc): void {
  const blamed = doc.findings.filter((f) => f.severity !== 'info' && !f.ruleId.startsWith('trend/'));
  expect(blamed.map((f) => f.ruleId)).toEqual(['core/leaked']);
  expect(blamed[0]).toMatchObject({ severity: 'error', confidence: 'certain', location: { func: SEND, line: 48 } });
}

const servers: Server[] = [];

/** /debug/pprof/goroutineleak?debug=N answers with the sample of that level; `series` replays. */
async function endpoint(series?: string[]): Promise<string> {
  let i = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/debug/pprof/goroutineleak') return void res.writeHead(404).end('404 page not found\n');
    const file = series ? series[Math.min(i++, series.length - 1)] : FILE[url.searchParams.get('debug') ?? '0'];
    const binary = file.endsWith('.gz');
    res.writeHead(200, { 'content-type': binary ? 'application/octet-stream' : 'text/plain; charset=utf-8' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/debug/pprof/goroutineleak`;
}

beforeAll(async () => {
  await ensureBuilt();
});

afterAll(() => {
  for (const s of servers) s.close();
});

describe('goroutineleak profiles through the CLI', () => {
  it('stdin: debug=0 (binary) and debug=2', async () => {
    for (const f of [FILE['0'], FILE['2']]) {
      const r = await run(['inspect', '-', '-f', 'json'], { input: readFileSync(f) });
      expect(r.status, r.stderr).toBe(0);
      provenOnly(JSON.parse(r.stdout) as Doc);
    }
  });

  it('a URL at every debug level', async () => {
    const base = await endpoint();
    for (const level of ['0', '1', '2']) {
      const r = await run(['inspect', `${base}?debug=${level}`, '-f', 'json']);
      expect(r.status, r.stderr).toBe(0);
      provenOnly(JSON.parse(r.stdout) as Doc);
    }
  });

  it('check fails on the proven leak, also inside a support bundle', async () => {
    const r = await run(['check', FILE['1'], '-f', 'json']);
    expect(r.status).toBe(1);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.gate?.passed).toBe(false);
    provenOnly(doc);

    const tmp = mkdtempSync(join(tmpdir(), 'leakscope-leakprofile-'));
    mkdirSync(join(tmp, 'fetchgw-0'));
    copyFileSync(FILE['0'], join(tmp, 'fetchgw-0', 'goroutineleak.pb.gz'));
    copyFileSync(join(DIR, 'goroutine.debug2.txt'), join(tmp, 'fetchgw-0', 'goroutine.txt'));
    execFileSync('tar', ['cf', join(tmp, 'bundle.tar'), '-C', tmp, 'fetchgw-0']);
    const b = await run(['check', join(tmp, 'bundle.tar')]);
    expect(b.status, b.stderr).toBe(1);
    expect(b.stdout).toContain('60 goroutines proven leaked at gateway.go:48');
    // The process's leak profiles are a series of their own, not mixed with its goroutine profiles.
    expect(b.stdout).toMatch(/│ fetchgw-0 \(goroutineleak\) +│ leaking +│ +1 │ +80 → 80 │/);
  });

  it('diff between two leak profiles (debug=1 → debug=0): the proven groups grew', async () => {
    const r = await run(['diff', join(DIR, 'series', 'leak-1.debug1.txt'), SERIES[4], '-f', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    const send = doc.diff!.groups.find((g) => g.blockingSite?.func === SEND);
    expect(send).toMatchObject({ before: 60, after: 180 });
  });

  it('trend over leak profiles: steady growth at the proven site, and the proof on the latest', async () => {
    const r = await run(['trend', ...SERIES, '-f', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.trend?.verdict).toBe('growing');
    expect(doc.findings.some((f) => f.ruleId === 'trend/steady-growth' && f.location?.func === SEND)).toBe(true);
  });

  it('watch on a live /debug/pprof/goroutineleak endpoint', async () => {
    const base = await endpoint(SERIES);
    const r = await run(['watch', `${base}?debug=0`, '--every', '150ms', '--for', '1050ms', '-f', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.command).toBe('watch');
    expect(doc.trend?.verdict).toBe('growing');
    expect(doc.findings.some((f) => f.ruleId === 'core/leaked' && f.confidence === 'certain')).toBe(true);
  });

  it('the HTML report marks what the runtime proved', async () => {
    const r = await run(['report', FILE['2'], '-f', 'html']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('<span class="badge proven" title="proven by the runtime&#39;s leak-detecting GC');
    expect(r.stdout).toContain('The finding is proven by the runtime&#39;s leak-detecting GC.');
    const plain = await run(['report', join(DIR, 'goroutine.debug2.txt'), '-f', 'html']);
    expect(plain.stdout).not.toContain('badge proven');
  });
});
