/**
 * An append-only list of (number, small integer) pairs in two growing typed arrays: what a builder
 * records per goroutine (its id and group; a creator id and the child's group). A Map per goroutine
 * cost a hash-table insert each and tens of bytes per entry; a quarter of a million goroutines fill
 * these with two array stores each, and they cross to another thread as they are.
 */
export class PairLog {
  private a = new Float64Array(64);
  private b = new Int32Array(64);
  length = 0;

  push(a: number, b: number): void {
    const n = this.length;
    if (n === this.a.length) {
      const a2 = new Float64Array(n * 2);
      a2.set(this.a);
      this.a = a2;
      const b2 = new Int32Array(n * 2);
      b2.set(this.b);
      this.b = b2;
    }
    this.a[n] = a;
    this.b[n] = b;
    this.length = n + 1;
  }

  firstAt(i: number): number {
    return this.a[i];
  }

  secondAt(i: number): number {
    return this.b[i];
  }

  /** Copies of the two columns, as long as the log. */
  columns(): { first: Float64Array; second: Int32Array } {
    return { first: this.a.slice(0, this.length), second: this.b.slice(0, this.length) };
  }

  /** For each first value in `wanted`, the second of its last pair. */
  lastOf(wanted: ReadonlySet<number>): Map<number, number> {
    const out = new Map<number, number>();
    if (wanted.size === 0) return out;
    const a = this.a;
    const b = this.b;
    for (let i = 0; i < this.length; i++) if (wanted.has(a[i])) out.set(a[i], b[i]);
    return out;
  }
}
