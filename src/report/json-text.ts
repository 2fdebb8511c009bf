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

/** Texts of memoized elements, by their depth's indentation, then by element. */
export type MemoTexts = Map<string, WeakMap<object, string>>;

export class JsonText {
  private pending = '';

  constructor(private readonly sink: JsonSink) {}

  /** Writes `value` as the top-level value of a document, then a newline, and hands on what is left. */
  document(value: unknown): void {
    const text = this.text(value, '', '');
    this.put(text === undefined ? 'undefined' : text);
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

  /**
   * Writes `value` (the property `key` of its holder) at indentation `indent`, or returns its text
   * when it is small (a primitive), or undefined when JSON leaves it out (undefined, a function, a
   * symbol). Objects and arrays are written, and '' returned.
   */
  private text(value: unknown, key: string, indent: string): string | undefined {
    if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      value = (value as { toJSON(key: string): unknown }).toJSON(key);
    }
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value);
      case 'number':
        return Number.isFinite(value) ? String(value) : 'null';
      case 'boolean':
        return value ? 'true' : 'false';
      case 'object':
        if (value === null) return 'null';
        if (value instanceof Memoized) this.memoized(value, indent);
        else if (Array.isArray(value)) this.array(value, indent);
        else if (isPlain(value)) this.object(value as Record<string, unknown>, indent);
        else this.put(reindent(JSON.stringify(value, null, 2), indent));
        return '';
      case 'bigint':
        // As JSON.stringify: a TypeError.
        return JSON.stringify(value);
      default:
        return undefined;
    }
  }

  private array(a: readonly unknown[], indent: string): void {
    if (a.length === 0) {
      this.put('[]');
      return;
    }
    const inner = indent + '  ';
    this.put('[');
    for (let i = 0; i < a.length; i++) {
      this.put(i === 0 ? '\n' + inner : ',\n' + inner);
      const t = this.text(a[i], String(i), inner);
      if (t === undefined) this.put('null');
      else if (t !== '') this.put(t);
    }
    this.put('\n' + indent + ']');
  }

  private object(o: Record<string, unknown>, indent: string): void {
    const inner = indent + '  ';
    let any = false;
    for (const k in o) {
      if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
      const v = o[k];
      // Left out as JSON.stringify leaves them out (a toJSON may still give one of these).
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      this.put((any ? ',\n' : '{\n') + inner + quotedKey(k));
      any = true;
      const t = this.text(v, k, inner);
      if (t === undefined) this.put('null');
      else if (t !== '') this.put(t);
    }
    this.put(any ? '\n' + indent + '}' : '{}');
  }

  private memoized<T extends object>(m: Memoized<T>, indent: string): void {
    const items = m.items;
    if (items.length === 0) {
      this.put('[]');
      return;
    }
    const inner = indent + '  ';
    let texts = m.memo.get(inner);
    if (texts === undefined) m.memo.set(inner, (texts = new WeakMap()));
    this.put('[');
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      // Kept with the separator before it: `,` then the element on its own line.
      let t = texts.get(item);
      if (t === undefined) {
        t = ',\n' + inner + reindent(JSON.stringify(m.json(item), null, 2) ?? 'null', inner);
        texts.set(item, t);
      }
      this.put(i === 0 ? t.slice(1) : t);
    }
    this.put('\n' + indent + ']');
  }
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

/** JSON text of a value nested at `indent`: every line after the first indented by it. */
function reindent(text: string, indent: string): string {
  return indent === '' ? text : text.replace(/\n/g, '\n' + indent);
}

/** `JSON.stringify(value, null, 2) + '\n'`, written to `sink` in pieces. */
export function writeJsonText(value: unknown, sink: JsonSink): void {
  new JsonText(sink).document(value);
}
