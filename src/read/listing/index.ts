/**
 * Reads a `go tool pprof` text listing of a goroutine or goroutineleak profile (sniff.ts tells which)
 * into the one model, as a `pprof` snapshot that says what the listing could show
 * (`Snapshot.listing`): exact stacks (`-traces`, `-raw`), chains rebuilt from caller/callee counts
 * (`-tree`, `-peek`) or chains inferred from per-function totals (`-top`). The total is the header's
 * `of T total`; goroutines in nodes pprof dropped are said, not invented.
 */
import type { Diagnostic, Dump, PprofListing, ProfileKind, Snapshot } from '../../model/dump.js';
import { SnapshotBuilder } from '../../model/builder.js';
import { classifyWait } from '../../model/wait.js';
import { dumpContext, newFacts } from '../context.js';
import { InputError } from '../errors.js';
import type { ReadOptions } from '../options.js';
import { listingLines } from './cells.js';
import { newHeader, type ListingHeader } from './header.js';
import { readRaw } from './raw.js';
import { looksLikeDump, sniffListing, type ListingKind } from './sniff.js';
import { readTop } from './top.js';
import { readTraces } from './traces.js';
import { readTree } from './tree.js';
import type { ListingBody } from './types.js';

export { sniffListing } from './sniff.js';

/** Listings are a few KB to a few MB; more than this is not one. */
const MAX_LISTING_BYTES = 64 * 1024 * 1024;

/** The first chunk is a pprof listing (and nothing leakscope reads otherwise). */
export function looksLikeListing(first: Uint8Array): boolean {
  const head = Buffer.from(first.subarray(0, 256 * 1024)).toString('utf8');
  // A dump says so in its first lines: decided before the listing's normalization runs.
  if (looksLikeDump(head)) return false;
  return sniffListing(listingLines(head).join('\n')) !== undefined;
}

/** Like readText (text-input.ts): the content's first chunk, the rest, and whether it ended early (a gzip stream or a download cut short). */
export async function readListing(
  source: string,
  first: Uint8Array,
  rest: AsyncIterable<Uint8Array>,
  inputCut: () => boolean,
  opts: ReadOptions,
): Promise<Dump> {
  const chunks: Buffer[] = [Buffer.from(first)];
  let bytes = first.byteLength;
  for await (const c of rest) {
    bytes += c.byteLength;
    if (bytes > MAX_LISTING_BYTES) throw new InputError(source, 'too-large', `looks like a go tool pprof listing but is over ${MAX_LISTING_BYTES >> 20} MiB`);
    chunks.push(Buffer.from(c));
    opts.onProgress?.(bytes);
  }
  const snapshot = readListingText(source, Buffer.concat(chunks).toString('utf8'), inputCut());
  return { source, snapshots: [snapshot], races: [], warnings: [] };
}

const READERS: Record<ListingKind, (lines: readonly string[], h: ListingHeader) => ListingBody> = {
  top: readTop,
  traces: readTraces,
  raw: readRaw,
  tree: readTree,
};

const HOW: Record<ListingKind, PprofListing['groups']> = { top: 'inferred', traces: 'exact', raw: 'exact', tree: 'edges' };

const WHAT: Record<ListingKind, string> = {
  top: 'a `go tool pprof -top` listing: no stacks, only per-function totals; the groups are inferred from those aggregates and the runtime\'s known blocking chains, their counts are approximate',
  tree: 'a `go tool pprof -tree`/`-peek` listing: no stacks, only caller/callee counts; the groups are chains rebuilt from those edges',
  traces: 'a `go tool pprof -traces` listing: each stack as pprof printed it',
  raw: 'a `go tool pprof -raw` listing: each stack with its lines, as the profile holds it',
};

/** One listing's text → its snapshot. */
export function readListingText(source: string, text: string, gzipTruncated = false): Snapshot {
  const lines = listingLines(text);
  const kind = sniffListing(lines.slice(0, 4000).join('\n'));
  if (!kind) throw new InputError(source, 'not-a-dump', 'is not a go tool pprof listing');
  const h = newHeader();
  const body = READERS[kind](lines, h);
  if (h.type !== undefined && h.type !== 'goroutine' && h.type !== 'goroutineleak') {
    throw new InputError(source, 'wrong-profile', `is a go tool pprof listing of a ${h.type} profile (Type: ${h.type}), not of a goroutine profile`);
  }
  const profile: ProfileKind = h.type === 'goroutineleak' ? 'goroutineleak' : 'goroutine';
  const b = new SnapshotBuilder({
    source,
    index: 0,
    format: 'pprof',
    profile,
    ...(h.capturedAt ? { capturedAt: h.capturedAt } : {}),
    ...(h.total !== undefined && Number.isSafeInteger(h.total) ? { declaredTotal: h.total } : {}),
    firstLine: 1,
  });
  b.setLastLine(lines.length);
  for (const r of body.records) {
    if (!(r.count > 0)) continue;
    b.add({
      count: r.count,
      state: '',
      waitKind: r.waitKind ?? classifyWait('', r.frames, 'pprof'),
      frames: r.frames,
      ...(profile === 'goroutineleak' ? { flags: { leaked: true } } : {}),
      ...(r.labels ? { labels: r.labels } : {}),
      ...(r.partial ? { partial: true } : {}),
    });
  }
  if (b.goroutines === 0) {
    throw new InputError(source, 'not-a-dump', `looks like ${WHAT[kind].split(':')[0]}, but no goroutine could be read from it`);
  }
  for (const w of listingNotes(kind, h, body, b.goroutines)) b.warn(w);
  if (body.cut || gzipTruncated) {
    b.markTruncated({ severity: 'warning', code: 'truncated', message: 'the listing ends mid-way (cut when pasted?): the last stack may be partial and counts are lower bounds' });
  }
  const listing: PprofListing = {
    kind,
    groups: HOW[kind],
    header: h.present,
    lines: body.lines,
    ...(h.droppedNodes !== undefined ? { droppedNodes: h.droppedNodes } : {}),
    ...(h.droppedBelow !== undefined ? { droppedBelow: h.droppedBelow } : {}),
    ...(h.program ? { program: h.program } : {}),
  };
  return { ...b.build(), context: dumpContext(newFacts(), { format: 'pprof', inBubble: false }), listing };
}

/** What the reader must say about a listing: what it is, what pprof left out, what the paste lost. */
function listingNotes(kind: ListingKind, h: ListingHeader, body: ListingBody, read: number): Diagnostic[] {
  const notes: Diagnostic[] = [{ severity: 'info', code: 'pprof-listing', message: `read from ${WHAT[kind]}` }];
  if (!h.present) notes.push({ severity: 'info', code: 'listing-no-header', message: 'the listing has no pprof header (File:, Type:, Showing nodes …): read as a goroutine profile; its total is the goroutines listed' });
  if (h.droppedNodes) {
    notes.push({ severity: 'info', code: 'listing-dropped-nodes', message: `pprof dropped ${h.droppedNodes} functions (cum <= ${h.droppedBelow ?? '?'}): goroutines only they would place are not shown, not invented` });
  }
  if (h.topNodes && h.topNodes.shown < h.topNodes.of) {
    notes.push({ severity: 'info', code: 'listing-top-nodes', message: `pprof showed the top ${h.topNodes.shown} of ${h.topNodes.of} functions: the others are not shown` });
  }
  if (h.total !== undefined && h.total > read) {
    notes.push({ severity: 'info', code: 'listing-total', message: `the header states ${h.total} goroutines; ${read} are placed in the listed stacks, ${h.total - read} are in functions the listing does not show` });
  }
  const filters = h.filters.filter((f) => f !== '');
  if (filters.length > 0) notes.push({ severity: 'warning', code: 'listing-filtered', message: `the listing was filtered (${filters.join(', ')}): only matching stacks are shown` });
  return [...notes, ...body.warnings];
}
