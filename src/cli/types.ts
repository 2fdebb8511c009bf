/**
 * The shapes the CLI's pipeline hands around (pipeline.ts builds them, bundles.ts and the commands
 * read them): at the bottom of the stage, so that no two of its files import each other.
 */
import type { Analysis, AnalyzeOptions } from '../analyze/types.js';
import type { Dump } from '../model/dump.js';
import type { LeakscopeConfig } from '../rules/types.js';

export interface Setup {
  readonly config: LeakscopeConfig;
  /** Run the rules (false with `--no-rules`). */
  readonly rules: boolean;
  readonly analyzeOptions: AnalyzeOptions;
  /** Show a progress bar on stderr while a large input is read (see progress.ts). */
  readonly progress?: boolean;
}

/** One input read and analyzed. */
export interface LoadedInput {
  readonly path: string;
  readonly dump: Dump;
  readonly analyses: Analysis[];
  /** ms since the epoch, for files. */
  readonly mtime?: number;
  /** The process the input came from, for inputs found in archives and folders (src/cli/processes.ts). */
  readonly process?: string;
  /** A time read from the entry's name (archives, folders): a series of one process is ordered by it. */
  readonly entryTime?: number;
}
