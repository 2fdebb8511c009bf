/**
 * Goroutines waiting in errgroup's Go for a free slot of its SetLimit, on the real thumb-batch dumps
 * (samples/servers/thumb-batch; what each dump holds: test/rules/servers.test.ts), changed one fact
 * at a time: with the group's tasks running (rendering) nothing is said of them; pasted without their
 * tasks, they wait for goroutines the excerpt does not show (not "every one has exited", not a channel
 * "nothing will complete"); their send is on the group's semaphore, never "a send nobody receives".
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, readDump, readDumpFrom, runRules } from '../../src/index.js';
import type { Analysis, AnalyzedGroup } from '../../src/analyze/types.js';
import type { Finding } from '../../src/rules/types.js';
import { SAMPLES } from '../helpers/paths.js';

const DIR = join(SAMPLES, 'servers', 'thumb-batch', 'dumps');
const summary = (fs: Finding[]) => fs.map((f) => `${f.severity} ${f.ruleId} ${f.title}`).join('\n');

async function stalled(): Promise<Analysis> {
  return analyze((await readDump(join(DIR, 'stalled.debug2.txt.gz'))).snapshots[0]);
}

const isTask = (g: AnalyzedGroup) => g.blockingSite?.func === 'main.(*thumbService).renderTask';

describe('errgroup slot waiters', () => {
  it('with the tasks rendering (asleep, not stuck), nothing is said of the handlers waiting for a slot', async () => {
    const a = await stalled();
    expect(a.groups.some(isTask)).toBe(true);
    const groups = a.groups.map((g) => (isTask(g) ? { ...g, waitKind: 'sleep' as const, states: ['sleep'] } : g));
    const fs = runRules({ ...a, groups, waits: undefined });
    expect(fs.filter((f) => f.severity !== 'info'), summary(fs)).toEqual([]);
    expect(fs.some((f) => f.ruleId === 'core/blocked-send'), summary(fs)).toBe(false);
  });

  it('two handlers pasted alone: they wait for goroutines the excerpt does not show', async () => {
    const text = gunzipSync(readFileSync(join(DIR, 'stalled.debug2.txt.gz'))).toString('utf8');
    const cut = text.split(/\n\n+/).filter((b) => /^goroutine \d+ \[chan send\]:\ngolang\.org\/x\/sync\/errgroup\.\(\*Group\)\.Go\(/.test(b)).slice(0, 2);
    expect(cut).toHaveLength(2);
    const fs = runRules(analyze((await readDumpFrom('pasted.txt', cut.join('\n\n') + '\n')).snapshots[0]));
    expect(fs.map((f) => `${f.severity} ${f.ruleId}: ${f.title}`)).toEqual(['info core/waitgroup-stuck: 2 goroutines wait at main.go:89 for goroutines they started, which the excerpt does not show']);
  });
});
