/**
 * Which inputs of a report were `go tool pprof` text listings rather than dumps or profiles: their
 * groups are exact stacks (`-traces`, `-raw`), chains rebuilt from caller/callee counts (`-tree`,
 * `-peek`) or chains inferred from per-function totals (`-top`), and a diff, trend or gate over them
 * is only as good as that. Every renderer says it with these.
 */
import type { Analysis } from '../analyze/types.js';
import type { PprofListing } from '../model/dump.js';
import { snapshotKind } from './text.js';
import type { ReportInput } from './types.js';

export interface AggregateInput {
  readonly source: string;
  readonly index: number;
  readonly kind: PprofListing['kind'];
  readonly groups: PprofListing['groups'];
  /** `goroutine profile (go tool pprof -top listing: groups inferred from aggregates)`. */
  readonly what: string;
}

/** The inputs that were listings, in input order. */
export function aggregateInputs(input: Pick<ReportInput, 'analyses'>): AggregateInput[] {
  return input.analyses
    .filter((a): a is Analysis & { snapshot: { listing: PprofListing } } => a.snapshot.listing !== undefined)
    .map((a) => ({ source: a.snapshot.source, index: a.snapshot.index, kind: a.snapshot.listing.kind, groups: a.snapshot.listing.groups, what: snapshotKind(a.snapshot) }));
}

/** One sentence for a comparison's reader, or undefined when no input was a listing. */
export function aggregateSentence(input: Pick<ReportInput, 'analyses'>, quote = (s: string) => s): string | undefined {
  const l = aggregateInputs(input);
  if (l.length === 0) return undefined;
  const inferred = l.some((x) => x.groups !== 'exact');
  const list = l.map((x) => `${quote(x.source)} is a ${x.what.replace(/^goroutine(leak)? profile \(/, '').replace(/\)$/, '')}`).join('; ');
  return `Aggregates: ${list}.${inferred ? ' Counts and groups compared from them are approximate.' : ''}`;
}
