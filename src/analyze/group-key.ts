/**
 * An analyzed group's `key` and `id`, made when first read. A dump of 20,000 distinct stacks has
 * 20,000 keys of ~1 KB and as many SHA-1 ids: made for every group they cost a fifth of the analysis,
 * and the keys (20 MB, alive until the end of the run) were copied and marked by every later garbage
 * collection, while the default table report reads neither (it sorts by signature numbers, see
 * signature-table.ts). The two stay own, enumerable properties, first and in that order, so that
 * spreads, `Object.keys`, `JSON.stringify` and deep equality see the object they saw when both were
 * data properties; assigning one turns it back into a data property.
 */
import * as crypto from 'node:crypto';
import type { SignatureTexts } from './signature-table.js';

/** One-shot `crypto.hash` (Node ≥ 20.12) costs a fraction of a Hash object per group. */
const oneShot: ((algorithm: string, data: string, encoding: 'hex') => string) | undefined =
  typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** Short stable id of a signature: the first 10 hex digits of its SHA-1. */
export function groupId(key: string): string {
  const hex = oneShot ? oneShot('sha1', key, 'hex') : crypto.createHash('sha1').update(key).digest('hex');
  return hex.slice(0, 10);
}

/** A constructor that returns its argument: a subclass adds its private fields to that object. */
class Itself {
  constructor(o: object) {
    return o;
  }
}

/**
 * The signature a group's key is read from, as private fields of the group itself (invisible to
 * reflection, spreads and deep equality, and no object of its own per group).
 */
class Signature extends Itself {
  readonly #texts: SignatureTexts;
  readonly #sig: number;

  constructor(group: object, texts: SignatureTexts, sig: number) {
    super(group);
    this.#texts = texts;
    this.#sig = sig;
  }

  /** The texts `g`'s key is read from, while it is; undefined for any other object. */
  static texts(g: object): SignatureTexts | undefined {
    return #texts in g && !assigned.has(g) ? (g as Signature).#texts : undefined;
  }

  /** `g`'s signature number in `texts(g)`. */
  static sig(g: object): number {
    return (g as Signature).#sig;
  }

  static key(g: object): string {
    const s = g as Signature;
    return s.#texts.key(s.#sig);
  }

  /**
   * The id of the key, without keeping a key nobody asked for (the id alone is ~20 bytes), kept by
   * the texts: one group per signature (no field of its own on every group).
   */
  static id(g: object): string {
    const s = g as Signature;
    return s.#texts.id(s.#sig, groupId);
  }
}

function data(o: object, name: string, value: string): void {
  Object.defineProperty(o, name, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * An enumerable accessor read by `get`; assigning it makes it a data property (`set` may pin what
 * must not change first). Descriptors are made once and shared: objects defined with the same
 * accessor functions share one hidden class.
 */
function accessor(name: string, get: (o: object) => string, set?: (o: object) => void): PropertyDescriptor {
  return {
    get(this: object) {
      return get(this);
    },
    set(this: object, v: string) {
      set?.(this);
      data(this, name, v);
    },
    enumerable: true,
    configurable: true,
  };
}

/**
 * Groups whose key was assigned: it is no longer read from their signature. Kept apart (assigning a
 * key is rare) rather than as one more field of every group, which `defineKeyAndId` makes for each.
 */
const assigned = new WeakSet<object>();

// As with a data key, the id stays that of the key the group was made with.
const KEY = accessor('key', (g) => Signature.key(g), (g) => {
  data(g, 'id', Signature.id(g));
  assigned.add(g);
});
const ID = accessor('id', (g) => Signature.id(g));

/**
 * Another object's reference to a group, as a private field of that object: a finding's evidence
 * names each of its groups by id (tens of thousands in one finding about a site reached by as many
 * stacks), and only some reports print them.
 */
class GroupOf extends Itself {
  readonly #group: { readonly id: string };

  constructor(o: object, group: { readonly id: string }) {
    super(o);
    this.#group = group;
  }

  static id(o: object): string {
    return (o as GroupOf).#group.id;
  }
}

const ID_OF = accessor('id', (o) => GroupOf.id(o));

/** Defines `id` on `o` (an object with no properties yet) as `group.id`, read when asked. */
export function defineIdOf(o: object, group: { readonly id: string }): void {
  Object.defineProperty(o, 'id', ID_OF);
  new GroupOf(o, group);
}

/**
 * The signature table texts a group's key is read from (see `signatureNumber`), or undefined: a group
 * not made by `analyze` (a copy, JSON), or whose key was assigned another value.
 */
export function signatureTexts(group: object): SignatureTexts | undefined {
  return Signature.texts(group);
}

/** The signature number of a group `signatureTexts` gave texts for. */
export function signatureNumber(group: object): number {
  return Signature.sig(group);
}

/** Defines `key` and `id` on `group` (an object with no properties yet), read from signature `sig` of `texts`. */
export function defineKeyAndId(group: object, texts: SignatureTexts, sig: number): void {
  Object.defineProperty(group, 'key', KEY);
  Object.defineProperty(group, 'id', ID);
  new Signature(group, texts, sig);
}
