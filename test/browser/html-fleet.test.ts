/**
 * The fleet and trend views of the HTML report in Chromium, on the support bundle of
 * test/cli/fleet-bundle.ts (a leaking, a suspect and a healthy pod of real snapshots). The page shows what `--format json` says: the cards count leaking, suspect and
 * healthy as the rows do, each row has its chart over time, its status and trend state, and links to
 * its section and its findings; the trend view of one process shows the same states as its JSON.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FLEET_PODS as PODS, packFleet } from '../cli/fleet-bundle.js';
import { ensureBuilt, run } from '../cli/run.js';
import { artifactsDir, chromiumAvailable, launch } from './chromium.js';
import { cspViolations, openReport } from './page.js';

interface JsonProcess { name: string; status: string; verdict: string; first: number; last: number; snapshots: number }

const available = chromiumAvailable();

describe.skipIf(!available)('HTML fleet and trend views in Chromium', () => {
  let browser: Browser;
  let tmp = '';
  let bundle = '';
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'leakscope-fleet-html-'));
    bundle = packFleet(tmp);
    await ensureBuilt();
    browser = await launch();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test('fleet: cards and rows agree with the JSON, each row charts its process and links to its findings', async () => {
    const json = await run(['report', bundle, '-f', 'json']);
    expect(json.status, json.stderr).toBe(0);
    const fleet = JSON.parse(json.stdout).fleet as { counts: Record<string, number>; processes: JsonProcess[] };
    const byName = new Map(fleet.processes.map((p) => [p.name, p]));
    expect(byName.get('quotes-7d9f8b6c4-leak1')).toMatchObject({ status: 'leaking', verdict: 'growing' });
    expect(byName.get('quotes-7d9f8b6c4-warm1')).toMatchObject({ status: 'suspect', verdict: 'rising-inconclusive' });
    expect(byName.get('quotes-7d9f8b6c4-flat1')).toMatchObject({ status: 'healthy', verdict: 'stable' });
    expect(fleet.counts).toEqual({ leaking: 1, suspect: 1, healthy: 1 });

    const out = join(tmp, 'fleet.html');
    const r = await run(['report', bundle, '-o', out]);
    expect(r.status, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    const o = await openReport(browser, 'fleet', html);
    expect(o.problems).toEqual([]);
    expect(o.requests).toEqual([o.url]);
    await expect(cspViolations(o.page)).resolves.toEqual([]);
    const p = o.page;

    // Cards: processes, leaking, suspect, healthy, goroutines now (the latest snapshot of each process).
    const cards = await p.locator('.fleet-cards .stat').evaluateAll((els) => els.map((e) => [e.querySelector('span')!.textContent, e.querySelector('b')!.textContent]));
    const now = fleet.processes.reduce((n, x) => n + x.last, 0);
    expect(Object.fromEntries(cards)).toEqual({ processes: '3', leaking: '1', suspect: '1', healthy: '1', 'goroutines now': now.toLocaleString('en-US') });
    await expect(p.locator('#fleet p strong').first().textContent()).resolves.toBe('Fleet: 3 processes: 1 leaking, 1 suspect, 1 healthy');

    // One row per process, leaking first; status and trend as the JSON says; a chart with every snapshot.
    const rows = await p.locator('.fleet-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      name: tr.getAttribute('data-process'),
      status: tr.querySelector('td:nth-child(2) .state')!.textContent,
      trend: tr.querySelector('td:nth-child(3) .state')!.textContent,
      points: (tr.querySelector('svg.mini polyline')?.getAttribute('points') ?? '').split(' ').length,
      goroutines: tr.querySelector('td:nth-child(5)')!.textContent,
      visible: (tr.querySelector('svg.mini') as SVGElement).getBoundingClientRect().width > 0,
    })));
    expect(rows.map((x) => x.name)).toEqual(['quotes-7d9f8b6c4-leak1', 'quotes-7d9f8b6c4-warm1', 'quotes-7d9f8b6c4-flat1']);
    for (const row of rows) {
      const j = byName.get(row.name!)!;
      expect(row).toMatchObject({ status: j.status, trend: j.verdict, points: j.snapshots, visible: true });
      expect(row.goroutines).toBe(`${j.first.toLocaleString('en-US')} → ${j.last.toLocaleString('en-US')}`);
    }

    // The leaking row links to its section, whose findings link to their cards on the page.
    await p.locator('.fleet-table tbody tr').first().locator('td:first-child a').click();
    expect(new URL(p.url()).hash).toBe('#processquotes-7d9f8b6c4-leak1');
    const section = p.locator('section.process#processquotes-7d9f8b6c4-leak1');
    await expect(section.locator('.state.status-leaking').textContent()).resolves.toBe('leaking');
    const links = await section.locator('ul.process-findings a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links.length).toBeGreaterThan(0);
    for (const href of links) await expect(p.locator(`article.finding${href}`).count()).resolves.toBe(1);
    await section.locator('ul.process-findings a').first().click();
    expect(new URL(p.url()).hash).toBe(links[0]);
    await p.screenshot({ path: join(artifactsDir(), 'fleet.png'), fullPage: true });
    await p.close();
  }, 120_000);

  test('trend view: the same states as the JSON, for the process and each group shown', async () => {
    const files = PODS['quotes-7d9f8b6c4-leak1'].slice(0, 3);
    const json = await run(['trend', ...files, '-f', 'json']);
    const t = JSON.parse(json.stdout).trend as { verdict: string; total: { verdict: string }; groups: { id: string; verdict: string }[] };
    expect(t.verdict).toBe('rising-inconclusive');
    const out = join(tmp, 'trend.html');
    expect((await run(['report', ...files, '-o', out])).status).toBe(0);
    const o = await openReport(browser, 'trend-short', readFileSync(out, 'utf8'));
    expect(o.problems).toEqual([]);
    const p = o.page;
    await expect(p.locator('.trend-verdict').getAttribute('data-state')).resolves.toBe(t.verdict);
    const badges = await p.locator('.trend-verdict .state').allTextContents();
    expect(badges).toEqual([t.verdict, t.total.verdict]);
    const inTable = await p.locator('#trend table tbody td .state').allTextContents();
    expect(inTable.length).toBeGreaterThan(0);
    // The table lists groups growing first, as the JSON does.
    expect(inTable).toEqual(t.groups.slice(0, inTable.length).map((g) => g.verdict));
    await p.close();
  }, 120_000);
});
