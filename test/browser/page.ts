/** Open a report file in Chromium and record what the page does: requests, console, CSP violations. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { artifactsDir } from './chromium.js';

export interface Opened {
  readonly page: Page;
  readonly url: string;
  /** Every request the page attempted (the document itself included). */
  readonly requests: string[];
  /** Console messages of type error or warning, and page errors. */
  readonly problems: string[];
}

/** Write `html` to test-artifacts/<name>.html and open it. */
export async function openReport(
  browser: Browser,
  name: string,
  html: string,
  opts: { colorScheme?: 'light' | 'dark'; width?: number } = {},
): Promise<Opened> {
  const file = join(artifactsDir(), `${name}.html`);
  writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width: opts.width ?? 1280, height: 900 } });
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.emulateMedia({ colorScheme: opts.colorScheme ?? 'light' });
  const url = pathToFileURL(file).href;
  await page.goto(url, { waitUntil: 'load' });
  return { page, url, requests, problems };
}

export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
}
