/**
 * What the text reader learned of the stacks of the inputs a thread read before (traceback.ts,
 * `KnownStacks`), kept for the next input it reads: the snapshots of a series come from one process
 * and repeat its stacks, which a reader that knows them walks in WebAssembly from the first goroutine
 * on (the same dump of 20,000 distinct stacks read again and again: ~70 ms a read against ~140 ms).
 * The strategies that read several inputs one after another on a thread make one (parallel.ts on
 * this thread and in each worker, bundle.ts for an archive's files); a single input is read with
 * nothing known, as before.
 *
 * What is kept is bounded: past the caps below it is dropped before the next input, which starts
 * from nothing, and so it is after an input that it barely knew (see `keep`): a series of unrelated
 * dumps carries at most the knowledge of the one before. Knowledge a read that failed may have left
 * half-made is dropped too.
 */
import { KnownStacks, TRIE_NODES } from './traceback.js';

/** Trie nodes kept at most: past half the trie's room, the next input could find the trie full. */
const MAX_NODES = TRIE_NODES / 2;
/** Interned frames kept at most (frames read outside the trie too: `fp=` lines, debug=1, races). */
const MAX_FRAMES = 1 << 18;
/** Bytes of the frame matcher's memory kept at most. */
const MAX_MATCHER_BYTES = 64 << 20;

export class ReadCache {
  private known: KnownStacks | undefined;
  /** Trie nodes of the knowledge taken last, when it was taken. */
  private nodesBefore = 0;

  /**
   * The knowledge for the next input, taken out of the cache until `keep` gives it back (a read that
   * fails never does); new when none is kept.
   */
  take(): KnownStacks {
    const k = this.known ?? new KnownStacks();
    this.known = undefined;
    this.nodesBefore = k.nodes;
    return k;
  }

  /**
   * The input read with `k` was read whole: `k` serves the next one, unless it outgrew the caps, or
   * the input taught it more than half as many stacks' nodes again as it knew: then the input is
   * mostly not of the process the knowledge came from (unrelated dumps in a row), and what the
   * knowledge holds costs every later collection more than it spares the next read.
   */
  keep(k: KnownStacks): void {
    k.inputEnded();
    const before = this.nodesBefore;
    const unrelated = before > 0 && k.nodes - before > before / 2;
    this.known = unrelated || k.nodes > MAX_NODES || k.frames.size > MAX_FRAMES || k.matcherBytes > MAX_MATCHER_BYTES ? undefined : k;
  }
}
