/**
 * The renderer registry: format name → pure `(input, opts) => string`. Each renderer's module is
 * imported on first use, so a run loads only the format it writes (the CLI starts faster: the table's
 * cli-table3, SARIF's and HTML's modules stay unloaded for `--format json`). `report/index.ts`
 * re-exports this with the renderers themselves for the library.
 */
import type { Renderer, RenderOptions, ReportInput } from './types.js';

export const FORMATS = ['table', 'json', 'markdown', 'sarif', 'junit', 'github', 'html'] as const;
export type FormatName = (typeof FORMATS)[number];

const loaders: Record<FormatName, () => Promise<Renderer | undefined>> = {
  table: async () => (await import('./table.js')).renderTable,
  json: async () => (await import('./json.js')).renderJson,
  markdown: async () => (await import('./markdown.js')).renderMarkdown,
  sarif: async () => (await import('./sarif.js')).renderSarif,
  junit: async () => (await import('./junit.js')).renderJunit,
  github: async () => (await import('./github.js')).renderGithub,
  html: async () => {
    // The HTML report's page template may be missing from a build; say so rather than crash. (A literal
    // specifier, so that the CLI bundle, scripts/bundle-cli.mjs, includes it as a lazy chunk.)
    let mod: { renderHtml?: Renderer };
    try {
      mod = (await import('./html.js')) as { renderHtml?: Renderer };
    } catch {
      throw new Error('the html format is not available in this build');
    }
    if (typeof mod.renderHtml !== 'function') throw new Error('the html format is not available in this build');
    return mod.renderHtml;
  },
};

const renderers: Partial<Record<FormatName, Renderer>> = {};

export function isFormat(name: string): name is FormatName {
  return (FORMATS as readonly string[]).includes(name);
}

/** The renderer of a format, its module imported on first use. */
export async function getRenderer(name: FormatName): Promise<Renderer> {
  const known = renderers[name];
  if (known) return known;
  const load = Object.prototype.hasOwnProperty.call(loaders, name) ? loaders[name] : undefined;
  const r = load ? await load() : undefined;
  if (!r) throw new Error(`unknown format ${String(name)}`);
  renderers[name] = r;
  return r;
}

export async function render(name: FormatName, input: ReportInput, opts: RenderOptions = {}): Promise<string> {
  return (await getRenderer(name))(input, opts);
}

/** A renderer that hands its text to `sink` in pieces, in order (the text its format's renderer returns). */
export type PieceRenderer = (input: ReportInput, opts: RenderOptions, sink: (text: string) => void) => void;

/**
 * The renderer of a format as a `PieceRenderer`: JSON's writes its report as it makes it (a report of
 * 20,000 distinct stacks is ~120 MB: made as one string it could not be written past ~512 MB);
 * the others hand on their whole text.
 */
export async function getPieceRenderer(name: FormatName): Promise<PieceRenderer> {
  if (name === 'json') return (await import('./json.js')).writeJson;
  const r = await getRenderer(name);
  return (input, opts, sink) => sink(r(input, opts));
}
