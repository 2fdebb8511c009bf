/**
 * Go parsing through tree-sitter's Go grammar (web-tree-sitter + the wasm grammar shipped by
 * `tree-sitter-go`). The grammar is loaded once, lazily; each `GoFiles` parses files on demand and
 * keeps the trees until `dispose()` (trees live in wasm memory and must be freed).
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Node, Parser, Tree } from 'web-tree-sitter';

export type { Node, Tree };

let loading: Promise<Parser> | undefined;

/** The shared parser, set to Go. Initialises web-tree-sitter and loads the grammar on first call. */
export function goParser(): Promise<Parser> {
  if (!loading) {
    loading = (async () => {
      // Imported here, not at the top: the CLI bundle evaluates this module at every start.
      const { Language, Parser } = await import('web-tree-sitter');
      await Parser.init();
      const require = createRequire(import.meta.url);
      const lang = await Language.load(require.resolve('tree-sitter-go/tree-sitter-go.wasm'));
      const parser = new Parser();
      parser.setLanguage(lang);
      return parser;
    })();
    loading.catch(() => {
      loading = undefined; // let a later call retry
    });
  }
  return loading;
}

/** One parsed Go file. `path` is absolute; `rel` is relative to the source directory, with `/`. */
export interface GoFile {
  readonly path: string;
  readonly rel: string;
  readonly text: string;
  /** Lines of `text` (index 0 = line 1). */
  readonly lines: string[];
  readonly tree: Tree;
  readonly root: Node;
  /** The `package` clause's name ('' when missing). */
  readonly pkgName: string;
}

/**
 * Files larger than this are not parsed (generated assets, bindata, junk named like a frame's file):
 * a tree-sitter tree costs ~20x the text, so one 67 MB file took 1.3 GB and 40 s.
 */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

/** A cache of parsed files. Synchronous after `open()` resolved the parser. */
export class GoFiles {
  private readonly cache = new Map<string, GoFile | null>();
  /** Files left unparsed because of their size: relative path → bytes. */
  readonly skipped = new Map<string, number>();

  private constructor(private readonly parser: Parser, readonly maxFileBytes: number) {}

  static async open(maxFileBytes = DEFAULT_MAX_FILE_BYTES): Promise<GoFiles> {
    return new GoFiles(await goParser(), maxFileBytes);
  }

  /** Parse `path` (or return the cached parse); undefined when it cannot be read or is too large. */
  get(path: string, rel: string = path): GoFile | undefined {
    const hit = this.cache.get(path);
    if (hit !== undefined) return hit ?? undefined;
    let text: string;
    try {
      const size = statSync(path).size;
      if (size > this.maxFileBytes) {
        this.skipped.set(rel, size);
        this.cache.set(path, null);
        return undefined;
      }
      text = readFileSync(path, 'utf8');
    } catch {
      this.cache.set(path, null);
      return undefined;
    }
    const file = this.parseText(path, rel, text);
    this.cache.set(path, file ?? null);
    return file;
  }

  /** Parse text that is not on disk (tests), cached under `path`. */
  parseText(path: string, rel: string, text: string): GoFile | undefined {
    const tree = this.parser.parse(text);
    if (!tree) return undefined;
    const root = tree.rootNode;
    const pkg = root.namedChildren.find((n) => n?.type === 'package_clause');
    const pkgName = pkg?.namedChildren.find((n) => n?.type === 'package_identifier')?.text ?? '';
    const file: GoFile = { path, rel, text, lines: text.split(/\r?\n/), tree, root, pkgName };
    this.cache.set(path, file);
    return file;
  }

  /** Free every tree. The cache must not be used afterwards. */
  dispose(): void {
    for (const f of this.cache.values()) f?.tree.delete();
    this.cache.clear();
  }
}

/** 1-based line of a node's start. */
export function lineOf(n: Node): number {
  return n.startPosition.row + 1;
}

/** 1-based line of a node's end. */
export function endLineOf(n: Node): number {
  return n.endPosition.row + 1;
}

/** Does `outer` contain `inner` (or equal it)? Both of one tree. */
export function contains(outer: Node, inner: Node): boolean {
  return outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
}

/** Same node (same tree position and type). */
export function sameNode(a: Node | null | undefined, b: Node | null | undefined): boolean {
  return !!a && !!b && a.startIndex === b.startIndex && a.endIndex === b.endIndex && a.type === b.type;
}

/** Named children without nulls. */
export function kids(n: Node): Node[] {
  return n.namedChildren.filter((c): c is Node => c !== null);
}

/** Depth-first walk over named descendants (including `n`); return false from `visit` to skip a subtree. */
export function walk(n: Node, visit: (n: Node) => boolean | void): void {
  const c = n.walk(); // a cursor: far cheaper than materialising children arrays
  try {
    let depth = 0;
    for (;;) {
      const descend = c.nodeIsNamed ? visit(c.currentNode) !== false : true;
      if (descend && c.gotoFirstChild()) {
        depth++;
        continue;
      }
      for (;;) {
        if (depth === 0) return;
        if (c.gotoNextSibling()) break;
        c.gotoParent();
        depth--;
      }
    }
  } finally {
    c.delete();
  }
}

/** Named descendants of some types (native search; includes `n` itself when it matches). */
export function find(n: Node, types: string | string[]): Node[] {
  return n.descendantsOfType(types).filter((x): x is Node => x !== null);
}
