/**
 * Injection through the dump: a panic message, pprof labels and a file path carrying HTML and a
 * `</script>` must show as text in the report and run nothing, under the page's CSP.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import type { ReportInput } from '../../src/report/types.js';
import { chromiumAvailable, launch } from './chromium.js';
import { analysis } from './fixtures.js';
import { cspViolations, openReport } from './page.js';
import { viaPipeline } from './pipeline.js';

const IMG = '<img src=x onerror=window.__xss=1>';
const SCRIPT = '</script><script>window.__xss=2</script>';
const PATH_SCRIPT = '</script><script>window.__xss=3</script>';

const CRASH = `panic: ${IMG}${SCRIPT}

goroutine 1 [running]:
main.main()
\t/tmp/evil/main.go:10 +0x1d
exit status 2
`;

const LABELS = `goroutine profile: total 3
2 @ 0x438a56 0x44901e
# labels: {"evil":"${IMG}", "k":"${SCRIPT.replace(/"/g, '\\"')}"}
#\t0x461684\tmain.worker+0x24\t/tmp/${PATH_SCRIPT}/main.go:62
#\t0x46c551\tmain.main+0x51\t/tmp/evil/main.go:139

1 @ 0x438a56
#\t0x461684\tmain.main+0x24\t/tmp/evil/main.go:12

`;

function fallbackCrash(): ReportInput {
  const a = analysis('crash.txt', [
    { id: 'x1', count: 1, waitKind: 'running', state: 'running', site: 0, frames: [['main.main', '/tmp/evil/main.go', 10, 'user']] },
  ], { headline: { kind: 'panic', message: `panic: ${IMG}${SCRIPT}`, lines: [] } });
  return { command: 'inspect', analyses: [a], findings: [] };
}

function fallbackLabels(): ReportInput {
  const a = analysis('labels.txt', [
    { id: 'y1', count: 2, waitKind: 'unknown', state: '', site: 0, labels: { evil: IMG, k: SCRIPT },
      frames: [['main.worker', `/tmp/${PATH_SCRIPT}/main.go`, 62, 'user'], ['main.main', '/tmp/evil/main.go', 139, 'user']] },
    { id: 'y2', count: 1, waitKind: 'unknown', state: '', site: 0, frames: [['main.main', '/tmp/evil/main.go', 12, 'user']] },
  ], { format: 'debug1' });
  return { command: 'inspect', analyses: [a], findings: [] };
}

const run = chromiumAvailable();

describe.skipIf(!run)('HTML report in Chromium: injection through the dump', () => {
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), 'leakscope-xss-'));

  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const cases: Array<[name: string, text: string, fallback: () => ReportInput, shown: string[]]> = [
    ['panic message', CRASH, fallbackCrash, [IMG + SCRIPT]],
    ['labels and file path', LABELS, fallbackLabels, [IMG, SCRIPT, PATH_SCRIPT]],
  ];

  test.each(cases)('%s: shown as text, nothing runs', async (name, text, fallback, shown) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.txt`);
    writeFileSync(file, text);
    const { input } = await viaPipeline([file], fallback);
    const html = renderHtml(input);
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>window.__xss');
    const o = await openReport(browser, `xss-${name.replace(/\W+/g, '-')}`, html);
    const { page } = o;
    // Open every stack so file paths are rendered visibly too.
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => ((d as HTMLDetailsElement).open = true)));
    const body = (await page.locator('body').textContent()) ?? '';
    for (const s of shown) expect(body).toContain(s);
    await expect(page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).resolves.toBeUndefined();
    await expect(page.evaluate(() => document.images.length)).resolves.toBe(0);
    await expect(page.evaluate(() => document.scripts.length)).resolves.toBe(2);
    expect(await cspViolations(page)).toEqual([]);
    expect(o.problems).toEqual([]);
    expect(o.requests).toEqual([o.url]);
    if (name === 'labels and file path') {
      await page.fill('#filter', IMG.toLowerCase());
      await expect(page.locator('#groups-body tr:not([hidden])').count()).resolves.toBe(1);
      await expect(page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).resolves.toBeUndefined();
    }
    await page.close();
  });
});
