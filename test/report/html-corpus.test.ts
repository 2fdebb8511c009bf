/**
 * Every real dump of the shared corpus, through the pipeline, into the HTML report: it renders, is
 * byte-identical twice, holds exactly our two <script> blocks and no markup from the dump.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { InputError } from '../../src/read/errors.js';
import { renderHtml } from '../../src/report/html.js';
import { CORPUS, corpusFiles } from '../helpers/paths.js';
import { pipeline } from '../browser/pipeline.js';

const files = corpusFiles().filter((f) => !f.endsWith('.md') && !f.endsWith('.tsv'));

describe.skipIf(files.length === 0)('HTML report of every corpus dump', () => {
  test.each(files)('%s', async (file) => {
    let input;
    try {
      input = await pipeline([join(CORPUS, file)]);
    } catch (e) {
      // Inputs the readers refuse (not a dump, wrong profile) are the readers' tests' business.
      if (e instanceof InputError) return;
      throw e;
    }
    const html = renderHtml(input);
    expect(renderHtml(input)).toBe(html);
    expect(html.match(/<script[\s>]/g)).toHaveLength(2);
    expect(html).not.toMatch(/<(img|iframe|object|embed|link rel="stylesheet")/i);
    const json = /<script type="application\/json" id="leakscope-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(() => JSON.parse(json)).not.toThrow();
    expect(html.length).toBeLessThan(5 * 1024 * 1024);
  });
});
