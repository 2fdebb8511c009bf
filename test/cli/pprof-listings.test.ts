/**
 * diff, trend and check over `go tool pprof` listings, through the built CLI: they are accepted like
 * any dump, and every report format says which inputs were aggregates.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES } from '../helpers/paths.js';
import { errorsText, reportValidator } from '../report/validators.js';
import { ensureBuilt, run } from './run.js';

const L = join(SAMPLES, 'pprof-listings');
const FIXED_TOP = join(L, 'apiproxy-fixed', 'go1.19', 'top.txt');
const LEAK_TOP = join(L, 'apiproxy-leak', 'go1.19', 'top.txt');
const LEAK_TREE = join(L, 'apiproxy-leak', 'go1.26', 'tree.txt');
const HEALTHY_TOP = join(L, 'healthy-server', 'go1.26', 'top.txt');

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe('comparisons over pprof listings', () => {
  it('diff of two -top listings: the leak grew, and the table says both are aggregates', async () => {
    const r = await run(['diff', FIXED_TOP, LEAK_TOP]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/new\s+│\s+0 │\s+300 │\s+\+300 │\s+new │ chan-send/);
    expect(r.stdout).toContain(`Aggregates: ${FIXED_TOP} is a go tool pprof -top listing: groups inferred from aggregates; ${LEAK_TOP} is a go tool pprof -top listing: groups inferred from aggregates. Counts and groups compared from them are approximate.`);
  });

  it('diff as JSON lists the aggregate inputs and each snapshot\'s listing, valid against the schema', async () => {
    const r = await run(['diff', FIXED_TOP, LEAK_TREE, '--format', 'json']);
    const doc = JSON.parse(r.stdout);
    const validate = reportValidator();
    expect(validate(doc), errorsText(validate.errors)).toBe(true);
    expect(doc.aggregates).toEqual([
      { source: FIXED_TOP, index: 0, kind: 'top', groups: 'inferred' },
      { source: LEAK_TREE, index: 0, kind: 'tree', groups: 'edges' },
    ]);
    expect(doc.snapshots[1].listing).toMatchObject({ kind: 'tree', groups: 'edges', header: true, lines: false, droppedNodes: 9 });
  });

  it('markdown and HTML say it too', async () => {
    const md = await run(['diff', FIXED_TOP, LEAK_TOP, '--format', 'markdown']);
    expect(md.stdout).toContain('_Aggregates: `');
    const html = await run(['diff', FIXED_TOP, LEAK_TOP, '--format', 'html']);
    expect(html.stdout).toContain('Aggregates: ');
  });

  it('trend over listings of several formats', async () => {
    const r = await run(['trend', FIXED_TOP, LEAK_TOP, LEAK_TREE, '--level', 'functions']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Trend: 3 snapshots');
    expect(r.stdout).toContain('go tool pprof -tree/-peek listing: chains rebuilt from caller/callee counts');
  });

  it('check fails on the leaking -top listing and passes on the healthy one', async () => {
    const bad = await run(['check', LEAK_TOP]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('about 300 goroutines blocked sending in returnErr under errgroup.Go');
    expect(bad.stdout).toContain('go tool pprof -top listing: groups inferred from aggregates');
    const good = await run(['check', HEALTHY_TOP]);
    expect(good.status, good.stdout + good.stderr).toBe(0);
  });

  it('inspect reads a listing from stdin', async () => {
    const { readFileSync } = await import('node:fs');
    const r = await run(['inspect', '-'], { input: readFileSync(LEAK_TOP, 'utf8') });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('goroutine profile (go tool pprof -top listing: groups inferred from aggregates)');
  });
});
