/**
 * The HTML report in a real headless Chromium: the API-proxy leak sample read, analyzed and ruled by
 * the real pipeline, then filtered, sorted, expanded, printed and screenshotted; and dumps carrying
 * HTML/script injection that must show as text and run nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import type { ReportInput } from '../../src/report/types.js';
import { SAMPLES } from '../helpers/paths.js';
import { artifactsDir, chromiumAvailable, launch } from './chromium.js';
import { cspViolations, openReport, type Opened } from './page.js';
import { leakSampleInput } from './pipeline.js';

interface Expected {
  leak: { root: { function: string; count: number } };
}

const run = chromiumAvailable();

describe.skipIf(!run)('HTML report in Chromium: API-proxy leak sample', () => {
  let browser: Browser;
  let input: ReportInput;
  let html: string;
  let opened: Opened;
  const expected = JSON.parse(readFileSync(join(SAMPLES, 'apiproxy-leak', 'expected.json'), 'utf8')) as Expected;
  const rootFunc = expected.leak.root.function.slice(expected.leak.root.function.lastIndexOf('/') + 1);

  beforeAll(async () => {
    input = (await leakSampleInput()).input;
    html = renderHtml(input);
    browser = await launch();
    opened = await openReport(browser, 'apiproxy-leak', html);
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('shows the verdict and the finding: what leaks, where, why, the fix', async () => {
    const { page } = opened;
    await expect(page.locator('#verdict .big').textContent()).resolves.toMatch(/^\d+ leaks? found/);
    const finding = page.locator('article.finding').first();
    await finding.waitFor({ state: 'visible' });
    const text = (await finding.textContent()) ?? '';
    expect(text).toContain(rootFunc);
    expect(text).toContain(String(expected.leak.root.count));
    for (const term of ['What', 'Why', 'Fix']) await expect(finding.locator('dt', { hasText: term }).count()).resolves.toBe(1);
    // --source: the line that causes the leak, highlighted in a source excerpt.
    await expect(finding.locator('figure.excerpt pre .hl').count()).resolves.toBeGreaterThan(0);
    expect(await page.locator('#wait-kinds svg.chart rect').count()).toBeGreaterThan(0);
    expect(await page.locator('#tree ul.tree li').count()).toBeGreaterThan(0);
  });

  test('filter the group table', async () => {
    const { page } = opened;
    const rows = page.locator('#groups-body tr');
    const all = await rows.count();
    expect(all).toBeGreaterThan(3);
    await page.fill('#filter', 'watchnames');
    const visible = page.locator('#groups-body tr:not([hidden])');
    const n = await visible.count();
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(all);
    for (const t of await visible.allTextContents()) expect(t.toLowerCase()).toMatch(/watchnames|subscription=names/);
    await expect(page.locator('#shown').textContent()).resolves.toBe(`${n} of ${all} groups`);
    await page.fill('#filter', 'no-such-function-anywhere');
    await expect(visible.count()).resolves.toBe(0);
    await page.fill('#filter', '');
    await page.selectOption('#filter-kind', 'chan send');
    const sends = await visible.count();
    expect(sends).toBeGreaterThan(0);
    expect(sends).toBeLessThan(all);
    await page.selectOption('#filter-kind', '');
    await expect(visible.count()).resolves.toBe(all);
  });

  test('sort the group table by a column', async () => {
    const { page } = opened;
    const counts = async (): Promise<number[]> =>
      (await page.locator('#groups-body tr td:first-child').allTextContents()).map((t) => Number(t.replace(/,/g, '')));
    const initial = await counts();
    expect(initial).toEqual([...initial].sort((a, b) => b - a));
    await page.click('th button[data-sort="c"]');
    const asc = await counts();
    expect(asc).toEqual([...initial].sort((a, b) => a - b));
    await expect(page.locator('th:has(button[data-sort="c"])').getAttribute('aria-sort')).resolves.toBe('ascending');
    await page.click('th button[data-sort="f"]');
    const names = await page.locator('#groups-body tr td:nth-child(4) .site').allTextContents();
    expect(names).toEqual([...names].sort());
    await page.click('th button[data-sort="c"]');
  });

  test('expand a stack from the table', async () => {
    const { page } = opened;
    const link = page.locator('#groups-body tr .site a').first();
    const target = ((await link.getAttribute('href')) ?? '').slice(1);
    const details = page.locator(`details[id="${target}"]`);
    await expect(details.evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(false);
    await link.click();
    // The click's handler opens the details on the page's own schedule: poll, never read once (a
    // loaded machine made a single read flaky).
    await expect.poll(() => details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await details.locator('ol.frames li').first().waitFor({ state: 'visible' });
    const frames = await details.locator('ol.frames .fn').allTextContents();
    expect(frames.length).toBeGreaterThan(0);
    await details.locator('summary').click();
    await expect.poll(() => details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
  });

  test('makes no request but the file itself, runs without errors or CSP violations', async () => {
    expect(opened.requests).toEqual([opened.url]);
    expect(opened.problems).toEqual([]);
    await expect(cspViolations(opened.page)).resolves.toEqual([]);
    await expect(opened.page.evaluate(() => document.documentElement.getAttribute('data-js'))).resolves.toBe('ready');
  });

  test('print: stacks expanded, no interactive chrome', async () => {
    const { page } = opened;
    await page.emulateMedia({ media: 'print' });
    await expect(page.locator('#filter').isVisible()).resolves.toBe(false);
    await expect(page.locator('nav.toc').isVisible()).resolves.toBe(false);
    const closed = page.locator('#stacks details.stack:not([open]) ol.frames li').first();
    await expect(closed.isVisible()).resolves.toBe(true);
    await page.pdf({ path: join(artifactsDir(), 'apiproxy-leak.pdf'), format: 'A4', printBackground: false });
    await page.emulateMedia({ media: 'screen' });
  });

  test('screenshots in light and dark mode (test-artifacts/)', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const o = await openReport(browser, `apiproxy-leak-${scheme}`, html, { colorScheme: scheme });
      await o.page.locator('details.stack').first().evaluate((d) => ((d as HTMLDetailsElement).open = true));
      await o.page.screenshot({ path: join(artifactsDir(), `apiproxy-leak-${scheme}.png`), fullPage: true });
      const bg = await o.page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      expect(bg).toBe(scheme === 'dark' ? 'rgb(14, 17, 22)' : 'rgb(255, 255, 255)');
      await o.page.close();
    }
  });
});
