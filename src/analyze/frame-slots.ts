/**
 * One value per interned frame, for the per-frame caches of one analysis (signature lines, site
 * frames): found by the frame's number (model/builder.ts `frameNumber`) in an array, where a Map
 * keyed by the frame object was a hash lookup for each of the 220,000 frames of 20,000 distinct
 * stacks. Numbers are unique in the process and dense in one dump; the array starts at the first
 * number seen. A frame without a number (made by hand, not by a FrameTable), numbered below that
 * first one or too far above it is kept in a Map instead.
 */
import type { Frame } from '../model/dump.js';
import { frameNumber } from '../model/builder.js';

/** Slots the array holds past its first number (beyond them, the Map). */
const SPAN = 1 << 20;

export class FrameSlots<T> {
  private readonly byNumber: (T | undefined)[] = [];
  private base = -1;
  private readonly others = new Map<Frame, T>();

  get(f: Frame): T | undefined {
    const i = (frameNumber(f) ?? -1) - this.base;
    return this.base >= 0 && i >= 0 && i < this.byNumber.length ? this.byNumber[i] : this.others.get(f);
  }

  set(f: Frame, value: T): void {
    const n = frameNumber(f);
    if (n !== undefined && this.base < 0) this.base = n;
    const i = n === undefined ? -1 : n - this.base;
    if (i < 0 || i >= SPAN) {
      this.others.set(f, value);
      return;
    }
    // Filled up to i with undefined, not left with holes: the array stays packed.
    while (this.byNumber.length < i) this.byNumber.push(undefined);
    this.byNumber[i] = value;
  }
}
