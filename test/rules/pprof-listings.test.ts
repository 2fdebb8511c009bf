/**
 * Diagnoses from `go tool pprof` text listings: the same rules as for the profile, at a confidence
 * that says what the listing could show. The incident's `-top` listing is read from
 * ../shared/docs/incidents.md as quoted there (never copied); every generated listing of a leaking
 * sample finds its leak, and a healthy one warns about nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/index.js';
import { readDumpFrom } from '../../src/read/index.js';
import { runRules, type Finding } from '../../src/rules/index.js';
import { REPO, SAMPLES } from '../helpers/paths.js';
import { findingsOf } from './e2e.js';

const LISTINGS = join(SAMPLES, 'pprof-listings');
const INCIDENTS = resolve(REPO, '..', 'shared', 'docs', 'incidents.md');

/** The `-top` listing quoted under **Observed profile** in incidents.md, with the sentence introducing it. */
function incidentListing(): string {
  const doc = readFileSync(INCIDENTS, 'utf8').split('\n');
  const start = doc.findIndex((l) => l.startsWith('**Observed profile**'));
  expect(start).toBeGreaterThan(0);
  let end = start + 1;
  let inList = false;
  for (; end < doc.length; end++) {
    const l = doc[end];
    if (/^- \d/.test(l)) inList = true;
    else if (inList && !/^\s+\S/.test(l)) break;
  }
  return doc.slice(start, end).join('\n') + '\n';
}

async function findingsOfText(name: string, text: string): Promise<Finding[]> {
  const d = await readDumpFrom(name, text);
  return runRules(analyze(d.snapshots[0]));
}

const serious = (fs: readonly Finding[]) => fs.filter((f) => f.severity !== 'info');

describe('the incident as quoted in incidents.md', () => {
  const available = existsSync(INCIDENTS) || !!process.env.CI;

  it.runIf(available)('gives the leak from the -top listing alone, as inferred, at low confidence', async () => {
    const text = incidentListing();
    expect(text).toContain('244377 `runtime.gopark`');
    const fs = await findingsOfText('incidents.md', text);
    expect(fs).toHaveLength(1);
    const f = fs[0];
    expect(f.ruleId).toBe('core/blocked-send');
    expect(f.severity).toBe('error');
    expect(f.confidence).toBe('low');
    // incidents.md's quote does not list returnErr (its note says it is inlined into func3).
    expect(f.title).toBe(
      'about 113k goroutines blocked sending in listAndWatch.func3 under errgroup.Go, about 112k waiting in errgroup.Wait in listAndWatch: a send nobody receives — the consumer returned early',
    );
    expect(f.evidence.facts.some((x) => x.includes('inferred from the aggregates'))).toBe(true);
  });

  it.runIf(available)('names returnErr when the paste keeps its (inline) row, as the issue quoting it does', async () => {
    // The issue that reported the incident quotes `111837 proxy.returnErr (inline)` as well.
    const fs = await findingsOfText('incident.txt', `${incidentListing()}- 111837 \`proxy.returnErr\` (inline)\n`);
    expect(fs[0].title).toBe(
      'about 113k goroutines blocked sending in returnErr under errgroup.Go, about 112k waiting in errgroup.Wait in listAndWatch: a send nobody receives — the consumer returned early',
    );
  });
});

/** Every generated listing of a case: [toolchain/format, path]. */
function listingsOf(c: string): [string, string][] {
  const out: [string, string][] = [];
  for (const v of readdirSync(join(LISTINGS, c)).sort()) {
    for (const f of readdirSync(join(LISTINGS, c, v)).filter((x) => /^(top|top-cum|top-lines|traces|traces-lines|raw|tree|peek)\.txt$/.test(x)).sort()) out.push([`${v}/${f}`, join(LISTINGS, c, v, f)]);
  }
  return out;
}

const CONFIDENCE: Record<string, string[]> = {
  'top.txt': ['low'],
  'top-cum.txt': ['low'],
  'top-lines.txt': ['low'],
  'tree.txt': ['low', 'medium'],
  'peek.txt': ['low', 'medium'],
};

describe('diagnoses from every generated listing', () => {
  for (const [name, path] of listingsOf('apiproxy-leak')) {
    it(`apiproxy-leak ${name}: the blocked send in returnErr under errgroup.Go, errgroup.Wait behind it`, async () => {
      const [fs] = await findingsOf(path);
      const f = fs[0];
      expect(f.ruleId).toBe('core/blocked-send');
      expect(f.severity).toBe('error');
      expect(f.evidence.groups.find((g) => g.role === 'root')?.site?.func).toBe('example.com/apiproxy/pkg/stores/proxy.returnErr');
      expect(f.evidence.groups.some((g) => g.role === 'consequence' && g.site?.func === 'example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch')).toBe(true);
      const file = name.split('/')[1];
      if (/^(raw|traces-lines)\.txt$/.test(file)) {
        expect(f.title).toBe('300 goroutines blocked sending at proxy_store.go:50: nobody receives');
      } else {
        const about = /^top/.test(file) ? 'about ' : '';
        expect(f.title).toBe(`${about}300 goroutines blocked sending in returnErr under errgroup.Go, ${about}300 waiting in errgroup.Wait in listAndWatch: a send nobody receives — the consumer returned early`);
      }
      if (CONFIDENCE[file]) expect(CONFIDENCE[file]).toContain(f.confidence);
    });
  }

  for (const c of ['healthy-server', 'apiproxy-fixed', 'busy-client']) {
    for (const [name, path] of listingsOf(c)) {
      it(`${c} ${name}: no warning`, async () => {
        const [fs] = await findingsOf(path);
        expect(serious(fs).map((f) => f.title)).toEqual([]);
      });
    }
  }

  for (const [name, path] of listingsOf('waitgroup-leak')) {
    it(`waitgroup-leak ${name}: the WaitGroup wait in RunBatch`, async () => {
      const [fs] = await findingsOf(path);
      expect(serious(fs).map((f) => f.ruleId)).toEqual(['core/waitgroup-stuck']);
      expect(serious(fs)[0].evidence.groups[0].site?.func).toBe('example.com/batch/internal/batch.(*Runner).RunBatch');
    });
  }

  for (const [name, path] of listingsOf('blocked-receive')) {
    it(`blocked-receive ${name}: the receive nobody sends to, in price`, async () => {
      const [fs] = await findingsOf(path);
      expect(fs[0].ruleId).toBe('core/blocked-receive');
      expect(fs[0].severity).toBe('error');
      expect(fs[0].evidence.groups[0].site?.func).toBe('example.com/orders/internal/orders.(*Processor).price');
    });
  }

  for (const [name, path] of listingsOf('fetch-fanout')) {
    it(`goroutineleak profile of fetch-fanout ${name}: the runtime's proof, at the leaked send, and nothing guessed beside it`, async () => {
      const [fs] = await findingsOf(path);
      expect(serious(fs).map((f) => f.ruleId)).toEqual(['core/leaked']);
      expect(fs[0].severity).toBe('error');
      expect(fs[0].evidence.groups.find((g) => g.role === 'root')?.site?.func).toBe('example.com/fetchgw/internal/fetch.(*Gateway).FirstAnswer.func1');
    });
  }

  for (const [name, path] of listingsOf('lock-pileup')) {
    it(`lock-pileup ${name}: the goroutines queued in Table.Add, never an error without the holder`, async () => {
      const [fs] = await findingsOf(path);
      expect(fs[0].evidence.groups[0].site?.func).toBe('example.com/peerstore/internal/peers.(*Table).Add');
      expect(fs.filter((f) => f.severity === 'error')).toEqual([]);
      if (!/tree/.test(name)) expect(fs[0].ruleId).toBe('core/lock-pileup');
    });
  }
});

it('a -peek of returnErr alone still finds the blocked send', async () => {
  const [fs] = await findingsOf(join(LISTINGS, 'apiproxy-leak', 'go1.19', 'peek-returnErr.txt'));
  expect(fs.map((f) => f.title)).toEqual(['300 goroutines blocked sending in returnErr under listAndWatch.func3: a send nobody receives — the consumer returned early']);
});

describe('diagnoses from hand-edited pastes', () => {
  const dir = join(LISTINGS, 'hand-edited');
  it('the re-spaced -top, the indentation-less -traces and the quoted email paste find their leaks', async () => {
    const [top] = await findingsOf(join(dir, 'top-respaced-no-header.txt'));
    expect(top[0].title).toMatch(/^about 300 goroutines blocked sending in returnErr under errgroup\.Go/);
    const [traces] = await findingsOf(join(dir, 'traces-no-indent-no-header.txt'));
    expect(traces[0].title).toMatch(/^300 goroutines blocked sending in returnErr under errgroup\.Go/);
    const [mail] = await findingsOf(join(dir, 'top-crlf-quoted.txt'));
    expect(serious(mail).map((f) => f.ruleId)).toEqual(['core/waitgroup-stuck']);
  });

  it('the healthy markdown paste warns about nothing', async () => {
    const [fs] = await findingsOf(join(dir, 'healthy-top-markdown.txt'));
    expect(serious(fs)).toEqual([]);
  });

  it('a -tree cut above the send still finds it, without naming a function it cannot see', async () => {
    const [fs] = await findingsOf(join(dir, 'tree-no-header-cut.txt'));
    expect(fs[0].title).toBe('300 goroutines blocked sending in a function the listing does not show: a send nobody receives — the consumer returned early');
  });
});
