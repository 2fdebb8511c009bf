/**
 * The rows of a trend: one per group key across the analyses of a series, in the order first seen,
 * with the key's count in each analysis and the latest group of that key; and the numbering of keys
 * they are made with (`keyNumbers`, also for diff).
 *
 * Keys are matched as their signatures' piece sequences, numbered series-wide, where every group
 * still reads its key from its analysis's signature table (signature-table.ts: equal sequences are
 * equal keys, and back): on a series of 20,000 distinct stacks, building, hashing and comparing each
 * ~1 KB key in each snapshot was most of `trend`. Otherwise (groups copied or given another key)
 * they are matched by key.
 */
import type { SignatureTexts } from './signature-table.js';
import { signatureNumber, signatureTexts } from './group-key.js';
import type { Analysis, AnalyzedGroup } from './types.js';

export interface SeriesRow {
  /** The key's count in each analysis, in series order (0 where absent). */
  readonly counts: number[];
  /** The group of the key in the latest analysis that has it. */
  group: AnalyzedGroup;
}

export function seriesRows(analyses: readonly Analysis[]): SeriesRow[] {
  const numberOf = keyNumbers(analyses);
  const rows: SeriesRow[] = [];
  analyses.forEach((a, i) => {
    for (const g of a.groups) {
      const r = numberOf(g);
      if (r === rows.length) rows.push({ counts: new Array<number>(analyses.length).fill(0), group: g });
      rows[r].counts[i] += g.count;
      rows[r].group = g;
    }
  });
  return rows;
}

/**
 * Numbers the keys of the groups of `analyses` alike: groups of equal keys get one number, numbers
 * count up from 0 in the order first asked for. Every group asked about must be of `analyses`.
 */
export function keyNumbers(analyses: readonly Analysis[]): (group: AnalyzedGroup) => number {
  for (const a of analyses) {
    for (const g of a.groups) {
      if (signatureTexts(g) === undefined) {
        const numbers = new Map<string, number>();
        return (group) => {
          let r = numbers.get(group.key);
          if (r === undefined) numbers.set(group.key, (r = numbers.size));
          return r;
        };
      }
    }
  }
  const seqs = new SeriesSequences();
  return (group) => seqs.rowOf(signatureTexts(group)!, signatureNumber(group));
}

/** Signatures of several tables numbered as one: a row per distinct sequence of piece texts. */
class SeriesSequences {
  /** Piece text → series-wide number. */
  private readonly numbers = new Map<string, number>();
  /** Per table: its piece numbers → series-wide numbers (-1: not yet looked up). */
  private readonly tables = new Map<SignatureTexts, Int32Array>();
  /** Each row's sequence of series-wide piece numbers. */
  private readonly rows: Int32Array[] = [];
  /** Hash of a sequence → its row, or the rows of that hash. */
  private readonly byHash = new Map<number, number | number[]>();
  private seq = new Int32Array(64);

  /** The row of signature `sig` of `texts`: the number of rows so far when it is a new one (then kept). */
  rowOf(texts: SignatureTexts, sig: number): number {
    const from = texts.start(sig);
    const n = texts.start(sig + 1) - from;
    if (this.seq.length < n) this.seq = new Int32Array(n * 2);
    const seq = this.seq;
    let local = this.tables.get(texts) ?? this.grown(texts, 0);
    let h = n;
    for (let k = 0; k < n; k++) {
      const p = texts.seq[from + k];
      if (p >= local.length) local = this.grown(texts, p);
      let x = local[p];
      if (x < 0) x = local[p] = this.number(texts.piece(p));
      seq[k] = x;
      h = Math.imul(h ^ x, 0x9e3779b1);
    }
    const at = this.byHash.get(h);
    if (at !== undefined) {
      if (typeof at === 'number') {
        if (this.holds(at, seq, n)) return at;
      } else {
        for (const r of at) if (this.holds(r, seq, n)) return r;
      }
    }
    const r = this.rows.length;
    this.rows.push(seq.slice(0, n));
    if (at === undefined) this.byHash.set(h, r);
    else if (typeof at === 'number') this.byHash.set(h, [at, r]);
    else at.push(r);
    return r;
  }

  private holds(r: number, seq: Int32Array, n: number): boolean {
    const s = this.rows[r];
    if (s.length !== n) return false;
    for (let k = 0; k < n; k++) if (s[k] !== seq[k]) return false;
    return true;
  }

  /** `texts`' table of series-wide numbers, grown to hold piece `p`. */
  private grown(texts: SignatureTexts, p: number): Int32Array {
    const t = this.tables.get(texts);
    let size = t === undefined ? 64 : t.length;
    while (size <= p) size *= 2;
    const grown = new Int32Array(size).fill(-1);
    if (t !== undefined) grown.set(t);
    this.tables.set(texts, grown);
    return grown;
  }

  private number(piece: string): number {
    let x = this.numbers.get(piece);
    if (x === undefined) this.numbers.set(piece, (x = this.numbers.size));
    return x;
  }
}
