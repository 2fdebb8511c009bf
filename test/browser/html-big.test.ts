/**
 * The HTML report of a 250,000-goroutine dump: how big the file is and how fast Chromium loads it.
 * The numbers go to test-artifacts/html-big.json (and the README). The page renders groups, not
 * goroutines, so its size is bounded by the caps (2,000 table rows, 500 stacks), not by the dump.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { renderHtml } from '../../src/report/html.js';
import type { ReportInput } from '../../src/report/types.js';
import { bigDebug2 } from './big.js';
import { artifactsDir, chromiumAvailable, launch } from './chromium.js';
import { openReport } from './page.js';
import { pipeline } from './pipeline.js';

const run = chromiumAvailable();

describe.skipIf(!run)('HTML report of a 250,000-goroutine dump', () => {
  let browser: Browser;
  let input: ReportInput;
  const timings: Record<string, number> = {};
  const tmp = mkdtempSync(join(tmpdir(), 'leakscope-big-'));

  beforeAll(async () => {
    const file = join(tmp, 'big-250k.debug2.txt');
    const text = bigDebug2();
    writeFileSync(file, text);
    timings.dumpBytes = Buffer.byteLength(text);
    const t0 = performance.now();
    input = await pipeline([file]);
    timings.pipelineMs = Math.round(performance.now() - t0);
    browser = await launch();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  test('is small and loads fast', async () => {
    const a = input.analyses[0]!;
    expect(a.total).toBe(250_000);
    const t0 = performance.now();
    const html = renderHtml(input);
    const renderMs = Math.round(performance.now() - t0);
    const o = await openReport(browser, 'big-250k', html);
    const load = await o.page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return { domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd), loadMs: Math.round(nav.loadEventEnd) };
    });
    // Interaction on the biggest table: filter and sort.
    const f0 = performance.now();
    await o.page.fill('#filter', 'handler17');
    await o.page.locator('#shown').filter({ hasText: ' of ' }).waitFor();
    const filterMs = Math.round(performance.now() - f0);
    const s0 = performance.now();
    await o.page.click('th button[data-sort="f"]');
    const sortMs = Math.round(performance.now() - s0);
    const result = {
      goroutines: a.total, groups: a.groups.length, findings: input.findings.length, ...timings,
      renderMs, htmlBytes: Buffer.byteLength(html), tableRows: await o.page.locator('#groups-body tr').count(),
      stacks: await o.page.locator('#stacks details.stack').count(), ...load, filterMs, sortMs,
    };
    writeFileSync(join(artifactsDir(), 'html-big.json'), JSON.stringify(result, null, 2) + '\n');
    console.log('HTML report of a 250k-goroutine dump:', JSON.stringify(result));
    expect(o.problems).toEqual([]);
    expect(o.requests).toEqual([o.url]);
    expect(result.stacks).toBeLessThanOrEqual(500);
    expect(result.tableRows).toBeLessThanOrEqual(2000);
    expect(result.htmlBytes).toBeLessThan(8 * 1024 * 1024);
    expect(result.loadMs).toBeLessThan(10_000);
    await o.page.close();
  });
});
