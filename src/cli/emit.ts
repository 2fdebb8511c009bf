/** Render a report in the chosen format and write it once: the last step of every command. */
import { readFileSync } from 'node:fs';
import { getPieceRenderer, type FormatName } from '../report/registry.js';
import { ANSI, PLAIN } from '../report/table-kit.js';
import type { RenderOptions, ReportInput } from '../report/types.js';
import type { ReportFlags } from './options.js';
import { writeOutputPieces } from './output.js';

let version: string | undefined;

/** leakscope's own version, from its package.json. */
export function toolVersion(): string {
  if (version === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
      version = pkg.version ?? '0.0.0';
    } catch {
      version = '0.0.0';
    }
  }
  return version;
}

/** Colors only for the table on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function useColor(flags: Pick<ReportFlags, 'format' | 'output'>): boolean {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  return flags.format === 'table' && (flags.output === undefined || flags.output === '-') && process.stdout.isTTY === true && !noColor;
}

export async function emit(input: ReportInput, flags: ReportFlags, extra: Partial<RenderOptions> = {}): Promise<void> {
  const opts: RenderOptions = {
    ...(flags.top !== undefined ? { top: flags.top } : {}),
    ...(flags.stacks ? { stacks: true } : {}),
    ...(flags.match ? { match: flags.match } : {}),
    ...(flags.pathPrefix ? { pathPrefixes: flags.pathPrefix } : {}),
    palette: useColor(flags) ? ANSI : PLAIN,
    toolVersion: toolVersion(),
    ...extra,
    // The user's --path-prefix first (first match wins), then the command's own (--source).
    ...(flags.pathPrefix || extra.pathPrefixes ? { pathPrefixes: [...(flags.pathPrefix ?? []), ...(extra.pathPrefixes ?? [])] } : {}),
  };
  await write(flags.format, input, opts, flags.output);
  // `-f sarif=leakscope.sarif -f junit=junit.xml`: the same run's other reports, never colored.
  for (const r of flags.reports ?? []) await write(r.format, input, { ...opts, palette: PLAIN }, r.file);
}

async function write(format: FormatName, input: ReportInput, opts: RenderOptions, output: string | undefined): Promise<void> {
  const renderer = await getPieceRenderer(format);
  await writeOutputPieces((sink) => renderer(input, opts, sink), output);
}
