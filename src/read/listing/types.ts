/** What a listing reader hands back: stacks with counts (exact, rebuilt or inferred) and what it noticed. */
import type { Diagnostic, Frame, WaitKind } from '../../model/dump.js';

export interface ListingRecord {
  count: number;
  /** Innermost first. */
  frames: Frame[];
  labels?: Record<string, string>;
  /** The listing ended (or its callers ran out) inside this stack. */
  partial?: boolean;
  /** Set where the frames would mislead classifyWait (parked in gopark, the reason not listed). */
  waitKind?: WaitKind;
}

export interface ListingBody {
  records: ListingRecord[];
  warnings: Diagnostic[];
  /** Frames carry file:line. */
  lines: boolean;
  /** The listing ended mid-way (no closing separator, a row cut short). */
  cut: boolean;
}
