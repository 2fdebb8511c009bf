/**
 * Acceptance-audit fixes of the CLI and report stages: reader limit flags, `report` on a series,
 * one GitHub annotation per leak, `--no-rules`, `--source` checks, snapshot headers, the wait column,
 * SARIF paths under `--source`, HTML trend wording, watch's help, diff order.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { size } from '../../src/cli/options.js';
import { spanText } from '../../src/report/html/series.js';
import { snapshotKind, waitColumn } from '../../src/report/text.js';
import { CORPUS } from '../helpers/paths.js';
import { ensureBuilt, run } from './run.js';

const LEAK = 'samples/apiproxy-leak/goroutine.debug2.txt';
const SERIES = 'samples/soak-leak/series';
const MULTI = join(CORPUS, 'crash', 'droute-logger-prefixed-panic-go1.8.txt');
let tmp: string;

beforeAll(async () => {
  await ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'leakscope-audit-'));
});

describe('reader limit flags', () => {
  it('parses sizes: plain bytes, binary and decimal units', () => {
    expect(size('1048576')).toBe(1048576);
    expect(size('512MiB')).toBe(512 * 1024 ** 2);
    expect(size('2GB')).toBe(2e9);
    expect(size('64k')).toBe(64 * 1024);
    expect(() => size('lots')).toThrow(/size like/);
    expect(() => size('0')).toThrow();
  });

  it.skipIf(!existsSync(MULTI))('--max-snapshots 1 on a file of several dumps: exit 2, one line naming the flag', async () => {
    const r = await run(['inspect', MULTI, '--max-snapshots', '1']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^leakscope: [^\n]*holds more than 1 dumps \(raise with --max-snapshots\)\n$/);
  });

  it('--max-line 100: long lines are cut with a warning', async () => {
    const r = await run(['inspect', LEAK, '--max-line', '100', '--no-rules']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/leakscope: warning: [^\n]*: line \d+ is \d+ characters long; cut to 100\n/);
  });

  it('--max-decompressed and --max-protobuf refuse a large profile, naming the flag', async () => {
    const pb = 'samples/apiproxy-leak/goroutine.debug0.pb.gz';
    const a = await run(['inspect', pb, '--max-decompressed', '1KiB']);
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(/^leakscope: [^\n]*raise with --max-decompressed\)\n$/);
    const b = await run(['inspect', pb, '--max-protobuf', '100']);
    expect(b.status).toBe(2);
    expect(b.stderr).toMatch(/^leakscope: [^\n]*raise with --max-protobuf\)\n$/);
  });

  it('every flag named by a reader error exists on every command that reads input', async () => {
    for (const cmd of ['inspect', 'diff', 'trend', 'check', 'report', 'watch']) {
      const r = await run([cmd, '--help']);
      for (const flag of ['--max-decompressed', '--max-line', '--max-snapshots', '--max-download', '--max-protobuf', '--timeout']) {
        expect(r.stdout, `${cmd} ${flag}`).toContain(flag);
      }
    }
  });

  it('--threads on every command that reads input; 1 and 4 give the same output; 0 is a usage error', async () => {
    for (const cmd of ['inspect', 'diff', 'trend', 'check', 'report', 'watch']) {
      expect((await run([cmd, '--help'])).stdout, cmd).toContain('--threads');
    }
    const one = await run(['inspect', LEAK, '--format', 'json', '--threads', '1']);
    const four = await run(['inspect', LEAK, '--format', 'json', '--threads', '4']);
    expect(one.status).toBe(0);
    expect(four.stdout).toBe(one.stdout);
    const bad = await run(['inspect', LEAK, '--threads', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('rejects a bad size with a one-line usage error', async () => {
    const r = await run(['inspect', LEAK, '--max-download', 'huge']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("leakscope inspect: option '--max-download <bytes>' argument 'huge' is invalid. expected a size like 1048576, 512MiB or 2GB.\n");
  });
});

describe('report on a series', () => {
  it('-f json: rules on the latest snapshot plus the trend findings, no repeats', async () => {
    const out = join(tmp, 's.json');
    const r = await run(['report', SERIES, '-f', 'json', '-o', out]);
    expect(r.status).toBe(0);
    const j = JSON.parse(readFileSync(out, 'utf8')) as { snapshots: unknown[]; findings: Array<{ ruleId: string; snapshot: { source: string }; location?: { line: number } }> };
    expect(j.snapshots.length).toBe(12);
    const ids = j.findings.map((f) => f.ruleId);
    expect(ids).toContain('trend/steady-growth');
    // One snapshot judged: no rule finding repeated per snapshot.
    expect(new Set(j.findings.map((f) => f.snapshot.source)).size).toBe(1);
    expect(ids.filter((id) => id === 'core/blocked-send').length).toBeLessThanOrEqual(1);
  });

  it('html: the banner counts one leak and never sums totals over snapshots; trend wording', async () => {
    const out = join(tmp, 's.html');
    const r = await run(['report', SERIES, '-o', out]);
    expect(r.status).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<span class="big">1 leak found</span>');
    expect(html).not.toMatch(/in all\)/);
    expect(html).toMatch(/goroutines in the latest snapshot \([\d.]+%\) are involved/);
    expect(html).toMatch(/1 group grows steadily over \d+ seconds/);
    expect(html).not.toContain('over 0 minutes');
  });
});

describe('inspect with several inputs', () => {
  it('judges each snapshot, showing a finding repeated in several snapshots once', async () => {
    const pbs = readdirSync(SERIES).filter((f) => f.endsWith('.pb.gz')).sort().map((f) => join(SERIES, f));
    expect(pbs.length).toBe(3);
    const r = await run(['inspect', ...pbs, '-f', 'json']);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as { findings: Array<{ ruleId: string; evidence: { facts: string[] } }> };
    const sends = j.findings.filter((f) => f.ruleId === 'core/blocked-send');
    expect(sends.length).toBe(1);
    expect(sends[0]!.evidence.facts.some((x) => /^also found in 2 earlier snapshots: /.test(x))).toBe(true);
  });
});

describe('--format github', () => {
  it('check on the series: one ::error for the leak on service.go:47, totals first → latest', async () => {
    const r = await run(['check', SERIES, '-f', 'github']);
    expect(r.status).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    const at47 = lines.filter((l) => /^::error file=[^,]*service\.go,line=47,/.test(l));
    expect(at47.length).toBe(1);
    const notice = lines[lines.length - 1]!;
    expect(notice).toMatch(/^::notice title=leakscope check::[^\n]*12 snapshots, goroutines first → latest: [\d,]+ → [\d,]+$/);
    expect(notice).not.toContain('2,294');
  });
});

describe('--no-rules and --source', () => {
  it('--no-rules says the rules did not run', async () => {
    const r = await run(['inspect', LEAK, '--no-rules', '--top', '1']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Rules not run \(--no-rules\)\.\n/);
    expect(r.stdout).not.toContain('No findings.');
  });

  it('a missing or non-folder --source: exit 2, one line', async () => {
    const a = await run(['inspect', LEAK, '--source', '/nonexist']);
    expect(a.status).toBe(2);
    expect(a.stdout).toBe('');
    expect(a.stderr).toBe('leakscope: --source /nonexist: no such folder\n');
    const b = await run(['report', LEAK, '--source', 'package.json', '-o', join(tmp, 'x.html')]);
    expect(b.status).toBe(2);
    expect(b.stderr).toMatch(/^leakscope: --source package\.json: not a folder[^\n]*\n$/);
  });

  it('sarif with --source: every uri relative to the source folder, with %SRCROOT%', async () => {
    const r = await run(['inspect', LEAK, '-f', 'sarif', '--source', 'samples/apiproxy-leak']);
    expect(r.status).toBe(0);
    const run0 = JSON.parse(r.stdout).runs[0];
    expect(run0.originalUriBaseIds['%SRCROOT%'].uri).toMatch(/^file:\/\/\/.*\/samples\/apiproxy-leak\/$/);
    const uris: Array<{ uri: string; uriBaseId?: string }> = [];
    const walk = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach(walk);
      else if (x && typeof x === 'object') {
        const o = x as Record<string, unknown>;
        if (typeof o.uri === 'string' && o !== run0.originalUriBaseIds['%SRCROOT%']) uris.push(o as { uri: string; uriBaseId?: string });
        else Object.values(o).forEach(walk);
      }
    };
    walk(run0.results);
    expect(uris.length).toBeGreaterThan(0);
    const proxy = uris.filter((u) => u.uri.endsWith('proxy_store.go'));
    expect(proxy.length).toBeGreaterThan(2);
    for (const u of proxy) expect(u).toEqual({ uri: 'pkg/stores/proxy/proxy_store.go', uriBaseId: '%SRCROOT%' });
  });
});

describe('headers and the wait column', () => {
  it('labels a snapshot by what it is', async () => {
    const crash = await run(['inspect', 'samples/concurrent-map-crash/crash.txt', '--no-rules']);
    expect(crash.stdout).toContain('samples/concurrent-map-crash/crash.txt  crash traceback (fatal error)\n');
    const timeout = await run(['inspect', 'samples/gotest-timeout/gotest-timeout.jsonl', '--no-rules']);
    // A test timeout is labelled by its context summary: the timeout and the test still running.
    expect(timeout.stdout).toContain('samples/gotest-timeout/gotest-timeout.jsonl  go test timed out after 2s — running: TestDrainAfterBurst\n');
    const pb = await run(['inspect', 'samples/apiproxy-leak/goroutine.debug0.pb.gz', '--no-rules', '--top', '1']);
    expect(pb.stdout).toContain('  goroutine profile (debug=0)');
    expect(snapshotKind({ format: 'debug2', profile: 'goroutine', headline: { kind: 'sigquit', message: 'SIGQUIT: quit' } })).toBe('SIGQUIT dump');
    expect(snapshotKind({ format: 'pprof', profile: 'goroutineleak' })).toBe('goroutineleak profile (debug=0)');
    expect(snapshotKind({ format: 'debug1', profile: 'goroutine' })).toBe('goroutine profile (debug=1)');
  });

  it('shows the classified kind, with the printed state when it adds something', async () => {
    expect(waitColumn({ waitKind: 'waitgroup', states: ['semacquire'] })).toBe('waitgroup (semacquire)');
    expect(waitColumn({ waitKind: 'chan-send', states: ['chan send'] })).toBe('chan-send');
    expect(waitColumn({ waitKind: 'blocked-forever', states: ['chan receive (nil chan)'] })).toBe('blocked-forever (chan receive (nil chan))');
    expect(waitColumn({ waitKind: 'chan-send', states: [] })).toBe('chan-send');
    const pb = await run(['inspect', 'samples/apiproxy-leak/goroutine.debug0.pb.gz', '--no-rules', '--top', '2']);
    const txt = await run(['inspect', LEAK, '--no-rules', '--top', '2']);
    for (const out of [pb.stdout, txt.stdout]) expect(out).toMatch(/│ waitgroup[ (]/);
  });
});

describe('help, durations and diff order', () => {
  it('watch --help shows durations, not milliseconds', async () => {
    const r = await run(['watch', '--help']);
    expect(r.stdout).toMatch(/--every <duration>[\s\S]*\(default: 10s\)/);
    expect(r.stdout).toMatch(/--for <duration>[\s\S]*\(default: 5m\)/);
    expect(r.stdout).not.toMatch(/default: (10000|300000)/);
  });

  it('spanText: seconds under a minute', () => {
    expect(spanText(9000)).toBe('9 seconds');
    expect(spanText(1000)).toBe('1 second');
    expect(spanText(90_000)).toBe('2 minutes');
  });

  it('diff: groups sorted by growth (delta, then ratio with new groups first on a tie)', async () => {
    const r = await run(['diff', 'samples/apiproxy-fixed/goroutine.debug2.txt', LEAK, '-f', 'json']);
    expect(r.status).toBe(0);
    const groups = (JSON.parse(r.stdout) as { diff: { groups: Array<{ delta: number; growth: number | null; change: string }> } }).diff.groups;
    for (let i = 1; i < groups.length; i++) {
      const [a, b] = [groups[i - 1]!, groups[i]!];
      expect(a.delta).toBeGreaterThanOrEqual(b.delta);
      if (a.delta === b.delta) expect(a.growth === null ? Infinity : a.growth).toBeGreaterThanOrEqual(b.growth === null ? Infinity : b.growth);
    }
  });
});
