/**
 * core/http-awaiting-response on the real quote-gateway dumps (samples/servers/quote-gateway; what
 * each dump holds: test/rules/servers.test.ts), changed one fact at a time: requests that carry an
 * http.Client timeout (net/http's per-request timer goroutines) are said to; a count that grew across
 * a series is an error; with the source, the request made through http.DefaultClient is pointed at.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, explainWithSource, readDump, runRules } from '../../src/index.js';
import type { Analysis, AnalyzedGroup, SiteFrame } from '../../src/analyze/types.js';
import { escalateGrowth } from '../../src/rules/growth.js';
import { SAMPLES } from '../helpers/paths.js';

const DUMPS = join(SAMPLES, 'servers', 'quote-gateway', 'dumps');

async function analysisOf(file: string): Promise<Analysis> {
  const dump = await readDump(join(DUMPS, file));
  return analyze(dump.snapshots[0]);
}

const awaiting = (a: Analysis) => runRules(a).find((f) => f.ruleId === 'core/http-awaiting-response');

describe('core/http-awaiting-response', () => {
  it('requests with a client timeout: the per-request timers are counted, the title says nothing of a missing timeout', async () => {
    const a = await analysisOf('hung.debug2.txt.gz');
    expect(awaiting(a)?.title).toBe('8 HTTP requests wait for a response at main.go:43, with no client timeout');
    // net/http's timer goroutine of a request with Client.Timeout: `setRequestCancel.func4` under the runtime's select.
    const w = a.groups.find((g) => g.blockingSite?.func === 'main.(*gatewayServer).quote')!;
    const timer: SiteFrame = { ...w.frames[0], func: 'net/http.setRequestCancel.func4', pkg: 'net/http', file: 'net/http/client.go', line: 398, index: 0, origin: 'stdlib' };
    const timers: AnalyzedGroup = { ...w, id: 'timers', key: 'timers', count: 8, waitKind: 'select', frames: [timer], blockingSite: undefined };
    const f = awaiting({ ...a, groups: [...a.groups, timers], waits: undefined });
    expect(f?.title).toBe('8 HTTP requests wait for a response at main.go:43');
    expect(f?.evidence.facts).toContain('8 per-request timer goroutines (http.Client timeouts) for 8 requests waiting');
  });

  it('info in one snapshot, a warning after a minute, an error when the number grew across the series', async () => {
    const healthy = await analysisOf('healthy.debug2.txt.gz');
    const hung = await analysisOf('hung.debug2.txt.gz');
    const later = await analysisOf('hung-1m.debug2.txt.gz');
    expect(awaiting(hung)?.severity).toBe('info');
    expect(awaiting(later)?.severity).toBe('warning');
    const raised = escalateGrowth(runRules(hung), [healthy, hung]).find((f) => f.ruleId === 'core/http-awaiting-response');
    expect(raised?.severity).toBe('error');
    expect(raised?.evidence.facts.some((x) => / → 8 HTTP requests waiting for a response: the answers do not come and more requests wait$/.test(x))).toBe(true);
  });
});

describe('core/http-awaiting-response with the source', () => {
  const SOURCE = join(SAMPLES, 'servers', 'quote-gateway');
  const causes = async (dir: string) => {
    const a = await analysisOf('hung-1m.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: dir });
    return findings.find((f) => f.ruleId === 'core/http-awaiting-response')?.causeLocations ?? [];
  };

  it('points at the http.Get the requests wait in: http.DefaultClient has no timeout', async () => {
    const [c, ...more] = await causes(SOURCE);
    expect(more).toEqual([]);
    expect(c).toMatchObject({ kind: 'request-without-timeout', line: 43 });
    expect(c.message).toMatch(/^http\.Get sends the request with http\.DefaultClient, which has no timeout \(8 goroutines wait here/);
  });

  it('nothing when the request goes through a client of the program (its timeout is not judged)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-http-'));
    const src = readFileSync(join(SOURCE, 'main.go'), 'utf8');
    const edited = src.replace('res, err := http.Get(', 'res, err := quoteClient.Get(');
    expect(edited).not.toBe(src);
    writeFileSync(join(dir, 'main.go'), `${edited}\nvar quoteClient = &http.Client{Timeout: 5 * time.Second}\n`);
    expect(await causes(dir)).toEqual([]);
  });
});
