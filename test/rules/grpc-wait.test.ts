/**
 * core/grpc-awaiting-response on the real price-gateway dumps (samples/servers/price-gateway; what
 * each dump holds: test/rules/servers.test.ts), changed one fact at a time: a stream's reader waiting
 * for its next message is no call waiting for an answer; a count that grew across a series is an
 * error; pasted, the waits are not "a channel operation nothing will complete"; with the source, the
 * call given a context without a deadline is pointed at, and nothing when the call gets the caller's.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, explainWithSource, readDump, readDumpFrom, runRules } from '../../src/index.js';
import type { Analysis, AnalyzedGroup } from '../../src/analyze/types.js';
import type { Finding } from '../../src/rules/types.js';
import { escalateGrowth } from '../../src/rules/growth.js';
import { SAMPLES } from '../helpers/paths.js';

const DIR = join(SAMPLES, 'servers', 'price-gateway');

async function analysisOf(file: string): Promise<Analysis> {
  return analyze((await readDump(join(DIR, 'dumps', file))).snapshots[0]);
}

const grpc = (fs: Finding[]) => fs.filter((f) => f.ruleId === 'core/grpc-awaiting-response');
const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.ruleId} ${f.title}`).join('\n');

describe('core/grpc-awaiting-response', () => {
  it('a unary call only: the same waits without Invoke on the stack (a stream reading its next message) are not counted', async () => {
    const a = await analysisOf('hung.debug2.txt.gz');
    expect(grpc(runRules(a))).toHaveLength(1);
    const unary = (g: AnalyzedGroup) => g.frames.some((f) => f.func === 'google.golang.org/grpc.(*ClientConn).Invoke');
    const groups = a.groups.map((g) => (unary(g) ? { ...g, frames: g.frames.filter((f) => !/^google\.golang\.org\/grpc\.(\(\*ClientConn\)\.Invoke|invoke)$/.test(f.func)) } : g));
    expect(grpc(runRules({ ...a, groups, waits: undefined }))).toEqual([]);
  });

  it('info in one snapshot, a warning after a minute, an error when the number grew across the series', async () => {
    const healthy = await analysisOf('healthy.debug2.txt.gz');
    const hung = await analysisOf('hung.debug2.txt.gz');
    expect(grpc(runRules(hung))[0].severity).toBe('info');
    expect(grpc(runRules(await analysisOf('hung-1m.debug2.txt.gz')))[0].severity).toBe('warning');
    const raised = grpc(escalateGrowth(runRules(hung), [healthy, hung]))[0];
    expect(raised.severity).toBe('error');
    expect(raised.evidence.facts.some((x) => / → 8 gRPC calls waiting for a response: the answers do not come and more calls wait$/.test(x)), raised.evidence.facts.join('\n')).toBe(true);
  });

  it('two waiting handlers pasted: below the count, and no "channel operation nothing will complete"', async () => {
    const text = gunzipSync(readFileSync(join(DIR, 'dumps', 'hung.debug2.txt.gz'))).toString('utf8');
    const cut = text.split(/\n\n+/).filter((b) => b.includes('grpc.(*ClientConn).Invoke')).slice(0, 2);
    expect(cut).toHaveLength(2);
    const fs = runRules(analyze((await readDumpFrom('pasted.txt', cut.join('\n\n') + '\n')).snapshots[0]));
    expect(fs.filter((f) => f.severity !== 'info'), summary(fs)).toEqual([]);
  });
});

describe('core/grpc-awaiting-response with the source', () => {
  const causes = async (dir: string) => {
    const a = await analysisOf('hung-1m.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: dir });
    return grpc(findings)[0].causeLocations ?? [];
  };
  const edited = (from: string, to: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-grpc-'));
    const src = readFileSync(join(DIR, 'main.go'), 'utf8');
    const out = src.replace(from, to);
    expect(out).not.toBe(src);
    writeFileSync(join(dir, 'main.go'), out);
    return dir;
  };

  it('points at the call given context.Background(): no deadline', async () => {
    const [c, ...more] = await causes(DIR);
    expect(more).toEqual([]);
    expect(c).toMatchObject({ kind: 'call-without-deadline', line: 95 });
    expect(c.message).toMatch(/^g\.conn\.Invoke is called with context\.Background\(\), a context without a deadline \(8 goroutines wait here/);
  });

  it('the same through a variable of the function set from context.Background()', async () => {
    // (Lines kept: the context is declared beside req, on its line.)
    const src = edited('req := []byte(r.URL.Query().Get("sym"))', 'req, ctx := []byte(r.URL.Query().Get("sym")), context.Background()');
    const dir = mkdtempSync(join(tmpdir(), 'leakscope-grpc-'));
    writeFileSync(join(dir, 'main.go'), readFileSync(join(src, 'main.go'), 'utf8').replace('g.conn.Invoke(context.Background(),', 'g.conn.Invoke(ctx,'));
    const [c, ...more] = await causes(dir);
    expect(more).toEqual([]);
    expect(c).toMatchObject({ kind: 'call-without-deadline', line: 95 });
    expect(c.message).toMatch(/^g\.conn\.Invoke is called with ctx \(set from context\.Background\(\) at line 93\), a context without a deadline/);
  });

  it("nothing when the call gets the request's context", async () => {
    const dir = edited('if err := g.conn.Invoke(context.Background(),', 'if err := g.conn.Invoke(r.Context(),');
    expect((await causes(dir)).filter((c) => c.kind === 'call-without-deadline')).toEqual([]);
  });
});
