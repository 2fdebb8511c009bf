/**
 * The text `JSON.stringify(value, null, 2)` gives, written piece by piece to a sink instead of made
 * as one string: a report of 20,000 distinct stacks is ~120 MB of JSON, and one string of it (with
 * the document of ~500,000 objects it was made from, and its UTF-8 copy) peaked at half a gigabyte;
 * past ~512 MB V8 cannot make the string at all. Values `Memoized` marks are written once per object
 * and depth (a frame shared by thousands of groups). Only plain data is expected (objects, arrays,
 * strings, numbers, booleans, null); anything else is written as JSON.stringify writes it.
 */

/** Receives the text in order, in pieces of about `CHUNK` characters. */
export type JsonSink = (text: string) => void;

/** Characters gathered before they go to the sink. */
const CHUNK = 1 << 16;

/**
 * An array whose elements are written as `json(element)` would be, each element's text made once
 * per element object and depth and kept in `memo` (one memo per kind of element: the same object
 * may be written differently by another `json`).
 */
export class Memoized<T extends object> {
  constructor(
    readonly items: readonly T[],
    readonly json: (item: T) => unknown,
    readonly memo: MemoTexts,
  ) {}
}

/** Texts of memoized elements, by their depth, then by element. */
export type MemoTexts = Map<number, WeakMap<object, string>>;

export class JsonText {
  private pending = '';

  constructor(private readonly sink: JsonSink) {}

  /** Writes `value` as the top-level value of a document, then a newline, and hands on what is left. */
  document(value: unknown): void {
    const v = jsonValue(value, '');
    const t = primitiveText(v);
    if (t === null) this.composite(v as object, 0);
    else this.put(t ?? 'undefined');
    this.put('\n');
    this.flush();
  }

  private put(s: string): void {
    this.pending += s;
    if (this.pending.length >= CHUNK) this.flush();
  }

  private flush(): void {
    if (this.pending.length > 0) this.sink(this.pending);
    this.pending = '';
  }

  /** Writes object or array `v`, its first line where the writing is, its others at `depth`. */
  private composite(v: object, depth: number): void {
    if (v instanceof Memoized) this.memoized(v, depth);
    else if (Array.isArray(v)) this.array(v, depth);
    else if (isPlain(v)) this.object(v as Record<string, unknown>, depth);
    else this.put(reindent(JSON.stringify(v, null, 2), depth));
  }

  private array(a: readonly unknown[], depth: number): void {
    if (a.length === 0) {
      this.put('[]');
      return;
    }
    this.put('[');
    const first = lineAt(depth + 1);
    const next = nextLineAt(depth + 1);
    for (let i = 0; i < a.length; i++) {
      const v = jsonValue(a[i], i);
      const t = primitiveText(v);
      const head = i === 0 ? first : next;
      // (A primitive goes with its line in one piece.)
      if (t === null) {
        this.put(head);
        this.composite(v as object, depth + 1);
      } else this.put(head + (t ?? 'null'));
    }
    this.put(lineAt(depth) + ']');
  }

  private object(o: Record<string, unknown>, depth: number): void {
    let any = false;
    for (const k in o) {
      if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
      const v = jsonValue(o[k], k);
      const t = primitiveText(v);
      // Left out as JSON.stringify leaves them out (undefined, a function, a symbol).
      if (t === undefined) continue;
      const head = (any ? nextLineAt(depth + 1) : '{' + lineAt(depth + 1)) + quotedKey(k);
      any = true;
      if (t === null) {
        this.put(head);
        this.composite(v as object, depth + 1);
      } else this.put(head + t);
    }
    this.put(any ? lineAt(depth) + '}' : '{}');
  }

  private memoized<T extends object>(m: Memoized<T>, depth: number): void {
    const items = m.items;
    if (items.length === 0) {
      this.put('[]');
      return;
    }
    let texts = m.memo.get(depth + 1);
    if (texts === undefined) m.memo.set(depth + 1, (texts = new WeakMap()));
    this.put('[');
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      // Kept with the separator before it: `,` then the element on its own line.
      let t = texts.get(item);
      if (t === undefined) {
        t = nextLineAt(depth + 1) + reindent(JSON.stringify(m.json(item), null, 2) ?? 'null', depth + 1);
        texts.set(item, t);
      }
      this.put(i === 0 ? t.slice(1) : t);
    }
    this.put(lineAt(depth) + ']');
  }
}

/** `v` as JSON.stringify takes it: what its `toJSON(key)` gives, if it has one. */
function jsonValue(v: unknown, key: string | number): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    return (v as { toJSON(key: string): unknown }).toJSON(String(key));
  }
  return v;
}

/**
 * The text of primitive `v`; undefined where JSON leaves a value out (undefined, a function, a
 * symbol); null for an object or array, which is written in parts.
 */
function primitiveText(v: unknown): string | undefined | null {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      return v === null ? 'null' : null;
    case 'bigint':
      // As JSON.stringify: a TypeError.
      return JSON.stringify(v);
    default:
      return undefined;
  }
}

/** A line break and the indentation of `depth`, and the same after a comma: made once per depth. */
const LINES: string[] = [];
const NEXT_LINES: string[] = [];

function lineAt(depth: number): string {
  return (LINES[depth] ??= '\n' + '  '.repeat(depth));
}

function nextLineAt(depth: number): string {
  return (NEXT_LINES[depth] ??= ',\n' + '  '.repeat(depth));
}

/** `"key": `, made once per key name (a report has a few dozen; label names are bounded too). */
function quotedKey(k: string): string {
  let q = KEY_TEXTS.get(k);
  if (q === undefined) {
    q = JSON.stringify(k) + ': ';
    if (KEY_TEXTS.size < MAX_KEY_TEXTS) KEY_TEXTS.set(k, q);
  }
  return q;
}

const KEY_TEXTS = new Map<string, string>();
const MAX_KEY_TEXTS = 1024;

/** A plain object (a literal, `Object.create(null)`, a class instance): written key by key. */
function isPlain(o: object): boolean {
  return !(o instanceof Map || o instanceof Set || o instanceof String || o instanceof Number || o instanceof Boolean);
}

/** JSON text of a value nested at `depth`: every line after the first indented by it. */
function reindent(text: string, depth: number): string {
  return depth === 0 ? text : text.replace(/\n/g, lineAt(depth));
}

/** `JSON.stringify(value, null, 2) + '\n'`, written to `sink` in pieces. */
export function writeJsonText(value: unknown, sink: JsonSink): void {
  new JsonText(sink).document(value);
}
