/**
 * The renderer registry: format name → pure `(input, opts) => string`. `html` lives in `html.ts`
 * (issue 6) and is loaded on first use, so the other formats never load the page template.
 */
import { renderGithub } from './github.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import { renderTable } from './table.js';
import type { Renderer, RenderOptions, ReportInput } from './types.js';

export const FORMATS = ['table', 'json', 'markdown', 'sarif', 'junit', 'github', 'html'] as const;
export type FormatName = (typeof FORMATS)[number];

const renderers: Partial<Record<FormatName, Renderer>> = {
  table: renderTable,
  json: renderJson,
  markdown: renderMarkdown,
  sarif: renderSarif,
  junit: renderJunit,
  github: renderGithub,
};

export function isFormat(name: string): name is FormatName {
  return (FORMATS as readonly string[]).includes(name);
}

/** The renderer of a format; `html` is imported from `./html.js` (export `renderHtml`) on first use. */
export async function getRenderer(name: FormatName): Promise<Renderer> {
  const known = renderers[name];
  if (known) return known;
  if (name === 'html') {
    const spec = './html.js';
    let mod: { renderHtml?: Renderer };
    try {
      mod = (await import(spec)) as { renderHtml?: Renderer };
    } catch {
      throw new Error('the html format is not available in this build');
    }
    if (typeof mod.renderHtml !== 'function') throw new Error('the html format is not available in this build');
    renderers.html = mod.renderHtml;
    return mod.renderHtml;
  }
  throw new Error(`unknown format ${String(name)}`);
}

export async function render(name: FormatName, input: ReportInput, opts: RenderOptions = {}): Promise<string> {
  return (await getRenderer(name))(input, opts);
}

export { renderGithub, renderJson, renderJunit, renderMarkdown, renderSarif, renderTable };
export { evaluateGate, trendFindings, type GateFacts, type GateLimits } from './gate.js';
export { reportJsonSchema } from './json-schema.js';
export { JSON_SCHEMA_VERSION } from './json.js';
export { ANSI, PLAIN } from './table-kit.js';
export type * from './types.js';
