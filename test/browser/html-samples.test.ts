/**
 * Every sample case through the real pipeline into the HTML report, opened in Chromium: no script
 * error, no CSP violation, no request; plus a before/after pair (fixed vs leaking API proxy) for the
 * charts over time and the diff, screenshotted in light and dark mode.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { SAMPLES, sampleCases } from '../helpers/paths.js';
import { artifactsDir, chromiumAvailable, launch } from './chromium.js';
import { cspViolations, openReport } from './page.js';
import { pipeline } from './pipeline.js';

/** The richest text dump of a sample: debug2, else the first file its expected.json lists. */
function sampleFile(c: string): string | undefined {
  const dir = join(SAMPLES, c);
  if (existsSync(join(dir, 'goroutine.debug2.txt'))) return join(dir, 'goroutine.debug2.txt');
  const files = (JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as { files?: string[] }).files ?? [];
  return files.map((f) => join(dir, f)).find((f) => existsSync(f));
}

const run = chromiumAvailable();

describe.skipIf(!run)('HTML report in Chromium: every sample', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const cases = sampleCases().flatMap((c) => {
    const f = sampleFile(c);
    return f ? [[c, f] as const] : [];
  });

  test.each(cases)('%s', async (name, file) => {
    const input = await pipeline([file]);
    const html = renderHtml(input);
    expect(renderHtml(input)).toBe(html);
    const o = await openReport(browser, `sample-${name}`, html);
    expect(o.problems).toEqual([]);
    expect(o.requests).toEqual([o.url]);
    await expect(cspViolations(o.page)).resolves.toEqual([]);
    const verdict = (await o.page.locator('#verdict .big').textContent()) ?? '';
    expect(verdict).toMatch(/found$/);
    await o.page.close();
  });

  test('before/after: the fixed and the leaking API proxy, over time and diffed', async () => {
    const before = join(SAMPLES, 'apiproxy-fixed', 'goroutine.debug2.txt');
    const after = join(SAMPLES, 'apiproxy-leak', 'goroutine.debug2.txt');
    const input = { ...(await pipeline([before, after])), command: 'diff' as const };
    const html = renderHtml(input);
    for (const scheme of ['light', 'dark'] as const) {
      const o = await openReport(browser, `before-after-${scheme}`, html, { colorScheme: scheme });
      expect(o.problems).toEqual([]);
      expect(o.requests).toEqual([o.url]);
      await expect(o.page.locator('#trend svg.chart polyline').count()).resolves.toBeGreaterThan(1);
      const diffText = (await o.page.locator('#diff').textContent()) ?? '';
      expect(diffText).toContain('461 → 1,061 goroutines');
      await o.page.locator('#trend').screenshot({ path: join(artifactsDir(), `before-after-trend-${scheme}.png`) });
      await o.page.screenshot({ path: join(artifactsDir(), `before-after-${scheme}.png`), fullPage: true });
      await o.page.close();
    }
  });
});
