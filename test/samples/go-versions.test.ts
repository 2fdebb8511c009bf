/**
 * The same sample programs under Go 1.24 and Go 1.26 (samples/go-versions/<case>/<go1.N>/, written by
 * samples/go-versions/regenerate.sh with the case's own samples/<case>/expected.json): every count the
 * Go 1.19 dumps are held to holds in every version's dumps, and the findings name the same roots.
 * A crash under GOTRACEBACK=system (gp= m= headers, runtime goroutines), a race report and a go test
 * timeout are read and diagnosed the same way. (The deadlock programs under every version:
 * test/samples/deadlocks.test.ts and test/rules/deadlocks-samples.test.ts.)
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDump } from '../../src/read/index.js';
import type { Finding } from '../../src/rules/index.js';
import { findingsOf } from '../rules/e2e.js';
import { SAMPLES } from '../helpers/paths.js';
import { groupMatches, loadExpected, PPROF_FILES, type ExpectedGroup } from './expected.js';

const ROOT = join(SAMPLES, 'go-versions');
const VERSIONS = ['go1.24', 'go1.26'];
const present = (c: string, v: string, f: string) => existsSync(join(ROOT, c, v, f));

async function findings(path: string): Promise<{ findings: Finding[]; dump: Awaited<ReturnType<typeof readDump>> }> {
  const dump = await readDump(path);
  return { findings: (await findingsOf(path)).flat(), dump };
}

/** What a finding says, without counts of the moment: rule, severity and where. */
const gist = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.ruleId} ${f.location?.func ?? ''}:${f.location?.line ?? ''}`).sort();

const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.ruleId} ${f.title}`).join('\n');
const rootAt = (f: Finding, g: Pick<ExpectedGroup, 'function' | 'line'>) =>
  f.evidence.groups.some((e) => e.role === 'root' && e.site?.func === g.function && (g.line === 0 || e.site.line === g.line));

describe.skipIf(!existsSync(ROOT))('sample programs under Go 1.24 and 1.26', () => {
  for (const c of ['blocked-receive', 'nil-channel']) {
    const e = loadExpected(c);
    for (const v of VERSIONS) {
      for (const [format, file] of Object.entries(PPROF_FILES)) {
        it.skipIf(!present(c, v, file))(`${c}/${v}/${file}: the counts and the leak roots of expected.json`, async () => {
          const { dump, findings: fs } = await findings(join(ROOT, c, v, file));
          const s = dump.snapshots[0];
          expect(s.format).toBe(format);
          expect(s.total).toBe(e.total);
          for (const g of e.groups ?? []) {
            const n = s.groups.filter((x) => groupMatches(x, g)).reduce((k, x) => k + x.count, 0);
            expect(n, `${g.id}`).toBe(g.count);
          }
          // The same findings as on the Go 1.19 dump of the same program and format …
          expect(gist(fs)).toEqual(gist((await findingsOf(join(SAMPLES, c, file))).flat()));
          // … and where the format shows the state, every leak root is a finding's root.
          if (format === 'debug1') return;
          for (const g of (e.groups ?? []).filter((x) => x.role === 'leak-root')) {
            expect(fs.some((f) => f.severity !== 'info' && rootAt(f, g)), `${g.id}\n${summary(fs)}`).toBe(true);
          }
        });
      }
    }
  }

  for (const v of VERSIONS) {
    for (const file of ['crash.txt', 'crash-system.txt']) {
      it.skipIf(!present('concurrent-map-crash', v, file))(`concurrent-map-crash/${v}/${file}: the map crash at the JSON writer`, async () => {
        const { dump, findings: fs } = await findings(join(ROOT, 'concurrent-map-crash', v, file));
        expect(dump.snapshots[0].headline?.message).toBe('fatal error: concurrent map iteration and map write');
        const crash = fs.find((f) => f.ruleId === 'core/map-crash');
        expect(crash, summary(fs)).toMatchObject({ severity: 'error', location: { func: 'example.com/clusteragent/pkg/server.(*WebSocketWriter).writeLoop', line: 22 } });
        if (file === 'crash-system.txt') {
          // GOTRACEBACK=system: the runtime's own goroutines are in the dump, and never a finding's root.
          expect(dump.snapshots[0].total).toBeGreaterThan(39);
          for (const f of fs.filter((x) => x.severity !== 'info')) expect(f.location?.func ?? '', f.title).not.toMatch(/^runtime\./);
        } else {
          expect(dump.snapshots[0].total).toBe(39);
        }
      });
    }

    it.skipIf(!present('race', v, 'race.txt'))(`race/${v}/race.txt: the same races`, async () => {
      const e = loadExpected('race');
      const { dump, findings: fs } = await findings(join(ROOT, 'race', v, 'race.txt'));
      expect(dump.races.length).toBe(e.race!.reports);
      const races = fs.filter((f) => f.ruleId === 'core/race');
      for (const r of e.race!.races) {
        const hit = races.some((f) => f.evidence.facts.join('\n').includes(`${r.access.file.split('/').pop()}:${r.access.line}`) || f.title.includes(`:${r.access.line}`));
        expect(hit, `${r.access.function}:${r.access.line}\n${summary(fs)}`).toBe(true);
      }
    });

    it.skipIf(!present('gotest-timeout', v, 'gotest-timeout.txt'))(`gotest-timeout/${v}/gotest-timeout.txt: the stuck worker is the root`, async () => {
      const e = loadExpected('gotest-timeout');
      const groups = Object.values(e.traces ?? {}).flatMap((t) => t.groups ?? []);
      const root = groups.find((g) => g.role === 'leak-root')!;
      const { dump, findings: fs } = await findings(join(ROOT, 'gotest-timeout', v, 'gotest-timeout.txt'));
      expect(dump.snapshots[0].context?.kind).toBe('test-timeout');
      expect(fs.some((f) => f.severity !== 'info' && rootAt(f, root)), summary(fs)).toBe(true);
    });
  }

  it('every version folder is one this test knows', () => {
    for (const c of readdirSync(ROOT).filter((d) => !d.endsWith('.sh'))) {
      for (const v of readdirSync(join(ROOT, c))) expect(VERSIONS, `${c}/${v}`).toContain(v);
    }
  });
});
