/**
 * The dump context in reports: `snapshots[].context` in JSON (valid against the schema), the summary
 * in the table and Markdown section headers where it says more than the input kind, and no change
 * where it does not (profiles, crashes).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderJson, renderMarkdown, renderTable } from '../../src/report/index.js';
import { CORPUS, SAMPLES, corpusAvailable, corpusFiles } from '../helpers/paths.js';
import { inspectInput, LEAK_DEBUG1, LEAK_DEBUG2, MAP_CRASH } from './fixtures.js';
import { errorsText, reportValidator } from './validators.js';

const TIMEOUT = join(SAMPLES, 'gotest-timeout', 'gotest-timeout.jsonl');

describe('dump context in reports', () => {
  it('json carries the context of each snapshot and validates', async () => {
    const doc = JSON.parse(renderJson(await inspectInput([TIMEOUT, LEAK_DEBUG1])));
    const validate = reportValidator();
    expect(validate(doc), errorsText(validate.errors)).toBe(true);
    expect(doc.snapshots.map((s: { context: unknown }) => s.context)).toEqual([
      { kind: 'test-timeout', summary: 'go test timed out after 2s — running: TestDrainAfterBurst', timeoutSeconds: 2, tests: ['TestDrainAfterBurst'] },
      { kind: 'profile', summary: 'goroutine profile (debug=1)' },
    ]);
    // The key follows the headline: objects keep a fixed order.
    expect(Object.keys(doc.snapshots[0]).slice(4, 7)).toEqual(['headline', 'context', 'total']);
  });

  it.skipIf(!corpusAvailable())('json of every corpus tests/ file validates', async () => {
    const validate = reportValidator();
    for (const f of corpusFiles().filter((x) => x.startsWith('tests/'))) {
      const doc = JSON.parse(renderJson(await inspectInput([join(CORPUS, f)])));
      expect(validate(doc), `${f}: ${errorsText(validate.errors)}`).toBe(true);
      expect([f, typeof doc.snapshots[0].context.kind]).toEqual([f, 'string']);
    }
  });

  it('the table and markdown headers show the summary of a test timeout', async () => {
    const input = await inspectInput([TIMEOUT]);
    expect(renderTable(input)).toMatch(/gotest-timeout\.jsonl {2}go test timed out after 2s — running: TestDrainAfterBurst\n/);
    expect(renderMarkdown(input)).toContain('go test timed out after 2s — running: TestDrainAfterBurst');
  });

  it.skipIf(!corpusAvailable())('leak reports and deadlocks in tests name the checker and the test', async () => {
    const leak = renderTable(await inspectInput([join(CORPUS, 'tests', 'goleak-blog-verifynone-go-test-v.txt')]));
    expect(leak).toContain('  goleak found leaked goroutines in TestLeakWithGoleak\n');
    const md = renderMarkdown(await inspectInput([join(CORPUS, 'tests', 'tracee-4044-goleak-new-format-wait-minutes-excerpt.txt')]));
    expect(md).toContain('goleak found leaked goroutines in Test\\_EventsDependencies');
    const deadlock = renderTable(await inspectInput([join(CORPUS, 'tests', 'suture-66-fatal-deadlock-in-go-test.txt')]));
    expect(deadlock).toContain('  runtime deadlock: all goroutines are asleep in TestFailingSupervisors\n');
  });

  it('profiles and crashes keep their header: no context noise', async () => {
    const profile = renderTable(await inspectInput([LEAK_DEBUG2]));
    expect(profile).toMatch(/goroutine\.debug2\.txt {2}goroutine dump \(debug=2\)\n/);
    expect(profile).not.toContain('runtime.Stack');
    const crash = renderTable(await inspectInput([MAP_CRASH]));
    expect(crash).toMatch(/crash\.txt {2}crash traceback \(fatal error\)\n/);
    expect(crash).not.toContain('crash: fatal error');
  });
});
