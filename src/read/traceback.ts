/**
 * debug=2 dumps, `runtime.Stack(all)`, SIGQUIT dumps and panic / fatal-error tracebacks, one line at a
 * time. A state machine that reads like the grammar of go-dump-formats.md: each state names an example
 * line and where it goes next. The reader never decides about snapshots: the host (text.ts) says which
 * snapshot a goroutine or a crash preamble belongs to.
 *
 * Never drops a goroutine silently: a stack cut by a bad line or by the end of input is still added,
 * `partial`, with a diagnostic.
 */
import { FrameTable, detach, frameKeyPart, frameNumber, type GoroutineRecord, type SnapshotBuilder } from '../model/builder.js';
import type { AncestorStack, Frame, GroupFlags, WaitKind } from '../model/dump.js';
import { classifyWait } from '../model/wait.js';
import { headlessWait } from './excerpt.js';
import { FrameMatcher, MAX_WALK, type CreatorLines, type MatchNode, type MatchText } from './frame-match.js';
import type { Bytes } from './lines.js';
import {
  BOTTOMS, CRASH_KINDS, FILE, callArgsStart, elisionCount, headlineKind, isInlinedCall, isPreambleLine, isRegisterLine,
  isFileLine, isRuntimeStackLine, parseCreatedBy, parseFileLine, parseHeader, pkgOf, type Header, type HeadlineKind,
} from './frame.js';

export type { HeadlineKind } from './frame.js';

/** What the traceback reader asks of the dispatcher. */
export interface TracebackHost {
  readonly frames: FrameTable;
  /** Snapshot of the goroutine whose header is on line `no` (id undefined: no header); undefined: count it nowhere. */
  goroutine(id: number | undefined, no: number): SnapshotBuilder | undefined;
  /** The goroutine being read writes a dump: its new snapshot, if the current one is a plain dump with goroutines. */
  dumpStart(id: number | undefined, no: number): SnapshotBuilder | undefined;
  /** A goroutine read to its end, for the snapshot `goroutine` gave. */
  add(b: SnapshotBuilder, g: GoroutineRecord): void;
  /** A crash headline (`panic: …`, `fatal error: …`, `SIGQUIT: quit`, `Exception 0x…`). */
  crash(kind: HeadlineKind, text: string, no: number): void;
  /** Another line of the current crash preamble. */
  crashLine(text: string, no: number): void;
  /** `-----`: the runtime separates the per-thread dumps of a crash with it. */
  threadSeparator(no: number): void;
  /** `… many more lines …`: a person cut the dump here. true if it belongs to a dump. */
  elidedByHand(text: string, no: number): boolean;
  /** Headline kind of the current snapshot, if it is a traceback with one. */
  readonly headlineKind: HeadlineKind | undefined;
}

/** Where the input ended inside a goroutine (see `end`). */
export interface Cut {
  builder: SnapshotBuilder;
  what: string;
}

const PREAMBLE_CAP = 10;
/** File lines remembered with their frame (see `file`). */
const LINE_CACHE = 1 << 16;
/** Nodes of the stack trie at most (see `StackNode`); past it, frames come from the line cache. */
export const TRIE_NODES = 1 << 18;

/**
 * A file line and the frame it completed with the call line before it, parsed once (`file`): every
 * goroutine of a group repeats them, and the stacks of a dump of distinct stacks recur through a few
 * functions, so one text stands at many places of the trie. Kept by its line (`lineFrames`).
 */
interface FrameLine extends MatchText {
  readonly frame: Frame;
  /** The line, detached (see `detach`). */
  readonly line: string;
  /** The text of the same line before, with another frame (a line after two calls keeps both; a third drops the oldest). */
  other: FrameLine | undefined;
  /** `frameKeyPart` of the frame's number, once asked for (`nodeKey`). */
  keyPart: string | undefined;
}

/**
 * A node of the trie of the stacks read so far: a frame, reached from its parent (the frames above
 * it) by its file line. Goroutines of one group repeat the same frames in the same order, so the
 * next frame is predicted from the current node: its kids are few, compared by their `FrameLine`.
 */
class StackNode implements MatchNode {
  /**
   * The first child seen, then the next ones (at most KIDS in all), then the rest in `more`, by line.
   * The first is a field of its own: most nodes of a dump of distinct stacks have one child, and an
   * array for it was a quarter of the objects the reader kept per new stack.
   */
  kid: StackNode | undefined = undefined;
  kids: StackNode[] | undefined = undefined;
  more: Map<string, StackNode> | undefined = undefined;
  /** Where the frame matcher holds the node, and how many of its kids (frame-match.ts, `MatchNode`). */
  at = 0;
  held = 0;
  /** What only a node goroutines end at holds (`endOf`): most nodes of a dump of distinct stacks are between. */
  end: NodeEnd | undefined = undefined;

  // A class, not an object literal: V8 tracks an allocation site per literal and, once it sees a
  // site's objects survive (every node of a dump of distinct stacks does), switches it to old-space
  // allocation and throws away all optimized code that inlined it (`takeKnownFrames`, `newKid`…), to
  // compile it again. `new` of a class has no allocation site.
  constructor(
    /** The frame and its file line, as `lineFrames` held them when the node was made (undefined: the root). */
    readonly text: FrameLine | undefined,
    readonly parent: StackNode | undefined,
  ) {}

  get frame(): Frame | undefined {
    return this.text?.frame;
  }

  get line(): string {
    return this.text === undefined ? '' : this.text.line;
  }

  /** The creator of a goroutine read whose stack ends here, with its lines (`takeKnownFrames`). */
  get creatorLines(): NodeCreator | undefined {
    return this.end?.creatorLines;
  }
}

/** What a node goroutines were read to the end at holds besides (`StackNode.end`). */
class NodeEnd {
  /** The group-key part of the frames from the root to here (GoroutineRecord.framesKey), once asked for. */
  key: string | undefined = undefined;
  creatorLines: NodeCreator | undefined = undefined;
  /** Goroutines read line by line to their creator here, until `creatorLines` is learned. */
  ended = 0;
  /** The frames from the root to here, shared by the goroutines `takeKnownFrames` read to their end here. */
  path: Frame[] | undefined = undefined;
  /** `classifyWait` of the frames to here, for goroutines in `waitState` (the last state asked about). */
  waitState: string | undefined = undefined;
  waitKind: WaitKind | undefined = undefined;
}

/** `n`'s `end`, made when first needed. */
function endOf(n: StackNode): NodeEnd {
  return (n.end ??= new NodeEnd());
}

/** The group-key part kept at `n` (`nodeKey`), if any. */
function keyAt(n: StackNode): string | undefined {
  return n.end === undefined ? undefined : n.end.key;
}

const KIDS = 12;

/**
 * A goroutine being read. Every field the reading may set is there from the start: one shape for
 * every record, so the code that takes records (finish, the builder's add) is not made again for each
 * new shape (after the first MAX_DETAILED goroutines, records stop getting `args`). A class, and its
 * frames a copy of an empty array, for the reason `StackNode` gives: a goroutine read line by line
 * hands its frames array to its group.
 */
class ReadGoroutine implements GoroutineRecord {
  waitKind: WaitKind = 'unknown';
  frames: Frame[];
  elidedFrames: number | undefined = undefined;
  creator: GoroutineRecord['creator'] = undefined;
  ancestors: AncestorStack[] | undefined = undefined;
  partial: boolean | undefined = undefined;
  args: string[] | undefined = undefined;
  framesKey: string | undefined = undefined;

  constructor(
    readonly id: number | undefined,
    readonly state: string,
    public flags: GroupFlags | undefined,
    readonly waitMinutes: number | undefined,
    readonly labels: Readonly<Record<string, string>> | undefined,
  ) {
    this.frames = NO_FRAMES.slice();
  }
}

/** Copied for each goroutine's frames (`ReadGoroutine`); never written. */
const NO_FRAMES: Frame[] = [];

/** `CreatorLines` and what they say (GoroutineRecord.creator without the creator's id). */
interface NodeCreator extends CreatorLines {
  readonly func: string;
  readonly pkg: string;
  readonly file: string;
  readonly line: number;
  /** The creator of every goroutine these lines end, when they name no goroutine (one object, read only). */
  readonly creator: GoroutineRecord['creator'];
}

/**
 * The frames from the root of the trie to `n`, in a new array of their number: gathered in `into`
 * (a reused array, longer when needed) and copied (`slice`), so that the array kept has no
 * allocation site (see `StackNode`). `into` is not emptied (`length = 0` is a runtime call): it
 * keeps frames of this trie.
 */
function framesTo(n: StackNode, into: Frame[]): Frame[] {
  let depth = 0;
  for (let x = n; x.parent !== undefined; x = x.parent) depth++;
  while (into.length < depth) into.push(n.text!.frame);
  let i = depth;
  for (let x = n; x.parent !== undefined; x = x.parent) into[--i] = x.text!.frame;
  return into.slice(0, depth);
}

/**
 * `kids` and `k` in a new array of their length (at most KIDS_GATHERED), copied from `into` (see
 * `framesTo`).
 */
function withKid(kids: StackNode[] | undefined, k: StackNode, into: StackNode[]): StackNode[] {
  const n = kids === undefined ? 0 : kids.length;
  for (let i = 0; i < n; i++) into[i] = kids![i];
  into[n] = k;
  return into.slice(0, n + 1);
}

/** Kids `newKid` copies into an array of their own (`withKid`); past it they are pushed. */
const KIDS_GATHERED = 4;

/**
 * The kid of `parent` for the frame text `t`: same frame, same line (the first such kid, as the
 * matcher decides). Nodes made from the same `FrameLine` are found without comparing text.
 */
function kidOf(parent: StackNode, t: FrameLine): StackNode | undefined {
  const first = parent.kid;
  if (first === undefined) return undefined;
  if (first.text === t || (first.text!.frame === t.frame && first.text!.line === t.line)) return first;
  const kids = parent.kids;
  if (kids === undefined) return undefined;
  for (let i = 0; i < kids.length; i++) {
    const c = kids[i];
    if (c.text === t || (c.text!.frame === t.frame && c.text!.line === t.line)) return c;
  }
  const k = parent.more?.get(t.line);
  return k !== undefined && k.text!.frame === t.frame ? k : undefined;
}

/**
 * The group-key part of the frames from the root to `n` (GoroutineRecord.framesKey): the nearest
 * ancestor's that has one, then each frame's `keyPart` (one character each, mostly). Kept only at
 * the nodes goroutines end at (the nodes between keep none: a dump of distinct stacks has many).
 */
function nodeKey(n: StackNode): string {
  const known = keyAt(n);
  if (known !== undefined) return known;
  // The nodes above a new stack's last one mostly have no key: one character per frame is gathered
  // and the string made once, not a string per frame (a frame's part longer than one character, a
  // frame number past 0xCFFF, goes the string way).
  // (`codes` is written by index and copied, never emptied: `length = 0` is a runtime call, 5 times
  // the cost of the rest here.)
  const codes = KEY_CODES;
  let count = 0;
  let x = n;
  for (; keyAt(x) === undefined && count < MAX_KEY_CODES; x = x.parent!) {
    const part = keyPartOf(x);
    if (part.length !== 1) break;
    codes[count++] = part.charCodeAt(0);
  }
  let parts = '';
  for (; keyAt(x) === undefined; x = x.parent!) parts = keyPartOf(x) + parts;
  parts = keyAt(x) + parts;
  if (count > 0) parts += String.fromCharCode.apply(null, codes.slice(0, count).reverse());
  return (endOf(n).key = parts);
}

/** Node `x`'s frame's part of a key (`frameKeyPart`), made once per frame text. */
function keyPartOf(x: StackNode): string {
  return (x.text!.keyPart ??= frameKeyPart(frameNumber(x.text!.frame)!));
}

/** Character codes `nodeKey` gathers (one array, reused, holding earlier keys' codes past the current), at most MAX_KEY_CODES at a time. */
const KEY_CODES: number[] = [];
const MAX_KEY_CODES = 4096;
const TAB = 9;
const SPACE = 32;
/** Slots of header status parts (`takeHeader`): a power of two. */
const TAIL_SLOTS = 64;
const GOROUTINE = Buffer.from('goroutine ', 'latin1');

function startsGoroutine(b: Uint8Array, i: number): boolean {
  for (let k = 0; k < 10; k++) if (b[i + k] !== GOROUTINE[k]) return false;
  return true;
}

function sameBytes(b: Uint8Array, at: number, t: Uint8Array, n: number): boolean {
  for (let k = 0; k < n; k++) if (b[at + k] !== t[k]) return false;
  return true;
}

// States. Each: an example line it reads, and where it goes.
/** Outside any goroutine. `goroutine 1 [running]:` → CALL; `panic: oh no` → PREAMBLE; `` stays. */
const IDLE = 0;
/** After a crash headline. `[signal SIGSEGV: segmentation violation …]`, `\tpanic: again`, `running tests:` stay; header → CALL; `runtime stack:` → RUNTIME_STACK; a call line → HELD_CALL. */
const PREAMBLE = 1;
/** The system stack of a fatal error, not a goroutine: skipped. `runtime.throw({0x46c4efc, 0x4b0d3e0})`, `0x00007ffeefbfee48:  0x01…`; header → CALL. */
const RUNTIME_STACK = 2;
/** In a goroutine, expecting a call. `main.main()` → FILE; `created by main.main in goroutine 1` → CREATOR_FILE; `...additional frames elided...`, `[originating from goroutine 24]:` stay; `` → IDLE. */
const CALL = 3;
/** After a call, its file line. `\t/go/src/x/main.go:8 +0x25 fp=0x… sp=0x… pc=0x…` → CALL. */
const FILE_LINE = 4;
/** After `created by F`, its file line. `\t/usr/lib/go/src/net/http/server.go:3285 +0x4b4` → AFTER_CREATOR. */
const CREATOR_FILE = 5;
/** After the creator. `` → IDLE; `[originating from goroutine 24]:` → CALL (an ancestor's frames). */
const AFTER_CREATOR = 6;
/** A call line in a preamble: the stack of a Windows exception has no header. `\tC:/Program Files/Go/src/runtime/cgocall.go:157 +0x4a` → CALL; else → PREAMBLE. */
const HELD_CALL = 7;
/** After a bare C function name in a goroutine. `\t/src/lib.c:12 pc=0x4a5b1c` → CALL; else the goroutine ended → IDLE. */
const C_FILE = 8;

/**
 * What reading stacks learns from their text alone, apart from any one input: the interned frames,
 * the frame texts by file line, the trie of stacks with what its end nodes hold (group-key part,
 * frames, creator lines, wait kind), the frame matcher's copy of it, and header status parts. A
 * thread that reads inputs one after another (the snapshots of a series, read-cache.ts) hands it
 * from one reader to the next, so that a stack read before is walked in WebAssembly the first time
 * it is met again instead of line by line. Nothing in it depends on which input taught it or where:
 * an input's Dump is the same with it as with a new one (test/read/read-cache.test.ts).
 */
export class KnownStacks {
  readonly frames = new FrameTable();
  readonly lineFrames = new Map<string, FrameLine>();
  readonly root = newRoot();
  /** Nodes in the trie (at most TRIE_NODES). */
  nodes = 0;
  /** Arrays `framesTo` and `withKid` gather in (reused; they keep nodes and frames of this trie only). */
  readonly framesGathered: Frame[] = [];
  readonly kidsGathered: StackNode[] = [];
  /** Made at the first stack read twice; null: WebAssembly is not available. */
  matcher: FrameMatcher | null | undefined = undefined;
  /**
   * The matcher made early for `inputBuffer`, the one `takeKnownFrames` takes up when it first needs
   * one (not before: the reader goes the same way as without input buffers, and the JIT sees it so).
   */
  inputMatcher: FrameMatcher | null | undefined = undefined;
  /** The creator lines the matcher tries at nodes without their own (`FrameMatcher.anyCreator`). */
  anyCreator: NodeCreator | undefined = undefined;
  /**
   * Status parts (`[…]:`) of headers `takeHeader` parsed, and what they said: a few slots, a status
   * in the slot its length and two of its bytes pick (a dump's goroutines alternate between a few).
   */
  readonly tails: Array<{ bytes: Uint8Array; header: Header } | undefined> = new Array(TAIL_SLOTS).fill(undefined);
  /** The last state `keptState` detached. */
  lastState = '';

  /** A new input begins: the matcher forgets the pieces of the last one (their serials start again). */
  begin(): void {
    (this.matcher ?? this.inputMatcher)?.newInput();
  }

  /** The input was read to its end (its file's reads are over): its input buffers take the next input's reads. */
  inputEnded(): void {
    (this.matcher ?? this.inputMatcher)?.releaseInputs();
  }

  /** Bytes of the matcher's memory in use (0 without one). */
  get matcherBytes(): number {
    return (this.matcher ?? this.inputMatcher)?.bytesUsed ?? 0;
  }
}

/** The trie's root: no frame, the empty key. */
function newRoot(): StackNode {
  const root = new StackNode(undefined, undefined);
  endOf(root).key = '';
  return root;
}

export class TracebackReader {
  private state = IDLE;
  /** The goroutine being read, and where it goes (undefined: counted nowhere). */
  private g: GoroutineRecord | undefined;
  private target: SnapshotBuilder | undefined;
  private gLine = 0;
  /** Frames go here: the goroutine's, or the current ancestor's. */
  private frameList: Frame[] = [];
  private inAncestor = false;
  /** The call line awaiting its file line, and where its arguments start. */
  private callLine = '';
  private callArgs = 0;
  private callInlined = false;
  private callNo = 0;
  private readonly lineFrames: Map<string, FrameLine>;
  private readonly root: StackNode;
  private readonly framesGathered: Frame[];
  private readonly kidsGathered: StackNode[];
  private readonly tails: Array<{ bytes: Uint8Array; header: Header } | undefined>;
  /** Where the frames read so far lead in the trie; undefined: off the trie (unique `fp=` lines). */
  private node: StackNode | undefined;
  /** The call line held in a preamble (HELD_CALL). */
  private heldLine = '';
  /** Arguments of the goroutine's frames by position, while its snapshot keeps details (`wantsDetail`). */
  private gArgs: string[] | undefined;
  private creatorFunc = '';
  private creatorId: number | undefined;
  /** The `created by` line being read. */
  private creatorText = '';
  private preambleBlank = false;
  private preambleLines = 0;
  /** A goroutine was read: a call line outside one no longer starts a headless stack. */
  private readAny = false;
  /** The held call line (HELD_CALL) opens a pasted stack without its header, not a crash's. */
  private headless = false;

  /** `known`: what the readers of earlier inputs learned (the host's `frames` are its own). */
  constructor(
    private readonly host: TracebackHost,
    private readonly known: KnownStacks,
  ) {
    this.lineFrames = known.lineFrames;
    this.root = known.root;
    this.framesGathered = known.framesGathered;
    this.kidsGathered = known.kidsGathered;
    this.tails = known.tails;
    known.begin();
  }

  /** The function of the pending call line (sliced only when needed). */
  private get callFunc(): string {
    return this.callLine.slice(0, this.callArgs);
  }

  /** Between goroutines, outside any preamble: the next line is read as if the input started there. */
  get betweenGoroutines(): boolean {
    return this.state === IDLE;
  }

  /** One line (prefix and markdown escaping already undone). false: not part of a traceback. */
  line(line: string, no: number): boolean {
    switch (this.state) {
      case CALL:
        return this.call(line, no);
      case FILE_LINE:
        return this.file(line, no);
      case CREATOR_FILE:
        return this.creatorFile(line, no);
      case AFTER_CREATOR:
        return this.afterCreator(line, no);
      case PREAMBLE:
        return this.preamble(line, no);
      case HELD_CALL:
        return this.heldCall(line, no);
      case RUNTIME_STACK:
        return this.runtimeStack(line, no);
      case C_FILE:
        return this.cFile(line, no);
      default:
        return this.idle(line, no);
    }
  }

  private idle(line: string, no: number): boolean {
    this.state = IDLE;
    if (line.length === 0) return true;
    if (line.charCodeAt(0) === 103 /* g */) {
      const h = parseHeader(line);
      if (h) return this.begin(h, no);
    }
    const kind = headlineKind(line);
    if (kind) {
      this.host.crash(kind, line, no);
      this.state = PREAMBLE;
      this.preambleBlank = false;
      this.preambleLines = 0;
      return true;
    }
    if (line === '-----') {
      this.host.threadSeparator(no);
      return true;
    }
    // Register dump after a signal: `rax    0x104`, `rflags 0x203`.
    if (this.host.headlineKind !== undefined && isRegisterLine(line)) return true;
    const t = line.trimStart();
    if (t.startsWith('...') && t.trimEnd().endsWith('...') && t.length > 6) return this.host.elidedByHand(line, no);
    return this.headlessCall(line, no);
  }

  /**
   * An excerpt pasted from the middle of a dump may start with a stack whose `goroutine N [state]:`
   * line was left out: a call line before any goroutine, decided by its file line (HELD_CALL). Read
   * as goroutine 0 (Go never prints one), so that its arguments are kept like any other's.
   */
  private headlessCall(line: string, no: number): boolean {
    if (this.readAny || this.host.headlineKind !== undefined) return false;
    const a = callArgsStart(line);
    if (a <= 0 || line.lastIndexOf(' ', a) >= 0 || line.lastIndexOf('.', a) < 0 || line.charCodeAt(0) === TAB) return false;
    this.headless = true;
    return this.holdCall(line, a, no);
  }

  /** A call line (`a`: where its arguments start) waiting for its file line (HELD_CALL). */
  private holdCall(line: string, a: number, no: number): true {
    this.callLine = line;
    this.callArgs = a;
    this.callInlined = isInlinedCall(line, a);
    this.callNo = no;
    this.heldLine = line;
    this.state = HELD_CALL;
    return true;
  }

  private preamble(line: string, no: number): boolean {
    if (line.length === 0) {
      this.preambleBlank = true;
      return true;
    }
    const c = line.charCodeAt(0);
    if (c === 103 /* g */) {
      const h = parseHeader(line);
      if (h) return this.begin(h, no);
    }
    const kind = headlineKind(line);
    if (kind) {
      this.host.crash(kind, line, no);
      return true;
    }
    if (isPreambleLine(line)) {
      this.host.crashLine(line, no);
      return true;
    }
    if (line === 'runtime stack:') {
      this.state = RUNTIME_STACK;
      return true;
    }
    const a = callArgsStart(line);
    if (a > 0 && line.lastIndexOf(' ', a) < 0) return this.holdCall(line, a, no);
    // Before Go 1.23 the lines of a multi-line panic value were printed unindented, before the blank line.
    if (!this.preambleBlank && this.preambleLines++ < PREAMBLE_CAP) {
      this.host.crashLine(line, no);
      return true;
    }
    return this.idle(line, no);
  }

  private heldCall(line: string, no: number): boolean {
    const c = line.charCodeAt(0);
    if (this.headless) {
      this.headless = false;
      if ((c === TAB || c === SPACE) && parseFileLine(line)) {
        this.start(0, '', undefined, this.callNo);
        this.state = FILE_LINE;
        return this.file(line, no);
      }
      this.state = IDLE;
      return this.idle(line, no);
    }
    if ((c === TAB || c === SPACE) && parseFileLine(line)) {
      // The stack of `Exception 0xc0000005 …` has no goroutine header: one goroutine of state ''.
      this.start(undefined, '', undefined, this.callNo);
      this.pushFrame(this.callFunc, FILE.file, FILE.line, this.callInlined);
      this.state = CALL;
      return true;
    }
    this.state = PREAMBLE;
    if (!this.preambleBlank) this.host.crashLine(this.heldLine, this.callNo);
    return this.preamble(line, no);
  }

  private runtimeStack(line: string, no: number): boolean {
    const c = line.charCodeAt(0);
    if (c === 103 /* g */) {
      const h = parseHeader(line);
      if (h) return this.begin(h, no);
    }
    if (isRuntimeStackLine(line)) return true;
    return this.idle(line, no);
  }

  private call(line: string, no: number): boolean {
    const n = line.length;
    if (n === 0) {
      this.finish(no);
      this.state = IDLE;
      return true;
    }
    const c = line.charCodeAt(0);
    switch (c) {
      case 103: { // g
        const h = parseHeader(line);
        if (h) {
          this.finish(no);
          return this.begin(h, no);
        }
        break;
      }
      case 99: // c
        if (line.startsWith('created by ')) {
          this.created(line);
          return true;
        }
        break;
      case 46: { // .
        const k = elisionCount(line);
        if (k !== undefined) {
          this.g!.elidedFrames = k;
          return true;
        }
        break;
      }
      case 91: // [
        if (line.startsWith('[originating from goroutine ')) return this.ancestor(line);
        break;
      case TAB:
      case SPACE: {
        const t = line.trim();
        if (t === 'goroutine running on other thread; stack unavailable') return this.unavailable();
        break;
      }
      case 114: // r
        if (line.startsWith('runtime: ')) return true; // `runtime: unexpected return pc for …`
        break;
      case 110: // n
        if (line.startsWith('non-Go function at pc=')) {
          // cgo frame without a symbolizer (runtime printCgoTraceback): no file line follows.
          this.frameList.push(this.host.frames.frame('non-Go function', '', '', 0, false));
          this.node = undefined;
          return true;
        }
        break;
      default:
    }
    if (line === 'goroutine running on other thread; stack unavailable') return this.unavailable();
    const a = callArgsStart(line);
    if (a > 0) {
      this.callLine = line;
      this.callArgs = a;
      this.callInlined = isInlinedCall(line, a);
      this.callNo = no;
      this.state = FILE_LINE;
      // The goroutine writing a debug=2 dump is printed first: dumps appended to one file split here
      // even when its id is new (each `curl …?debug=2 >> f` is served by a new handler goroutine).
      if (this.frameList.length === 0 && this.g!.state === 'running' && line.startsWith('runtime/pprof.writeGoroutine')) {
        const b = this.host.dumpStart(this.g!.id, this.gLine);
        if (b) this.target = b;
      }
      return true;
    }
    // Hex words of a corrupt-stack report: `stack: frame={sp:…}`, `0x00c000…:  0x…  0x…`.
    if (line.startsWith('stack: frame={') || (c === 48 && line.startsWith('0x') && line.includes(': '))) return true;
    // A cgo symbolizer's frame (printOneCgoTraceback): a C name without arguments (or `non-Go
    // function`), then `\t<file>:<line> pc=0x…`. Decided by the next line.
    if (line === 'non-Go function' || /^[\w.$@]+$/.test(line)) {
      this.callLine = line;
      this.callArgs = line.length;
      this.callNo = no;
      this.state = C_FILE;
      return true;
    }
    // Not traceback text: the dump ended here (or other output interrupted it).
    this.finish(no, this.g!.frames.length === 0 && !this.g!.creator && !this.g!.flags?.stackUnavailable ? `line ${no} is not a frame` : undefined);
    return this.idle(line, no);
  }

  private file(line: string, no: number): boolean {
    // Every goroutine of a group repeats the same file lines: the frame a line completed last time
    // is reused when the call matches, skipping the parse and the interning.
    const last = this.lineFrames.get(line);
    let t = last;
    if (t !== undefined && !this.calls(t.frame)) t = t.other !== undefined && this.calls(t.other.frame) ? t.other : undefined;
    if (t === undefined) {
      if (!isFileLine(line)) {
        this.pushFrame(this.callFunc, '', 0, this.callInlined);
        this.finish(no, `no file line after '${this.callFunc}' (line ${this.callNo})`);
        return this.idle(line, no);
      }
      const func = this.callFunc;
      const f = this.host.frames.frame(func, pkgOf(func, FILE.file), FILE.file, FILE.line, this.callInlined);
      // ` fp=0x… sp=0x…` make every line unique: not worth remembering.
      if (line.indexOf(' fp=', FILE.end) >= 0) {
        this.frameList.push(f);
        if (this.gArgs !== undefined) this.keepArgs();
        this.node = undefined;
        this.state = CALL;
        return true;
      }
      if (this.lineFrames.size >= LINE_CACHE) this.lineFrames.clear();
      const kept = last?.line ?? detach(line);
      if (last !== undefined) last.other = undefined;
      t = { frame: f, line: kept, at: 0, other: last, keyPart: undefined };
      this.lineFrames.set(kept, t);
    }
    this.frameList.push(t.frame);
    if (this.gArgs !== undefined) this.keepArgs();
    const parent = this.node;
    if (parent !== undefined) this.node = kidOf(parent, t) ?? this.newKid(parent, t);
    this.state = CALL;
    return true;
  }

  /** A new node under `parent` (undefined when the trie is full). */
  private newKid(parent: StackNode, t: FrameLine): StackNode | undefined {
    const known = this.known;
    if (known.nodes >= TRIE_NODES) return undefined;
    const k = new StackNode(t, parent);
    known.nodes++;
    const kids = parent.kids;
    // The first in a field; the next in arrays of the length needed while few (a push reserves 17).
    if (parent.kid === undefined) parent.kid = k;
    else if (kids === undefined || kids.length < KIDS_GATHERED) parent.kids = withKid(kids, k, this.kidsGathered);
    else if (kids.length < KIDS - 1) kids.push(k);
    else (parent.more ??= new Map()).set(t.line, k);
    return k;
  }

  /** Lines taken by the last `takeKnownFrames`; whether the last was the blank line that ends the goroutine. */
  takenLines = 0;
  takenEnd = false;

  /**
   * A buffer for input to be read into, in the matcher's memory, where `takeKnownFrames` walks it
   * without copying it (`FrameMatcher.inputBuffer`); undefined without WebAssembly, or past a few.
   */
  inputBuffer(size: number): Buffer | undefined {
    const known = this.known;
    if (known.matcher === undefined && known.inputMatcher === undefined) known.inputMatcher = FrameMatcher.create() ?? null;
    return (known.matcher ?? known.inputMatcher)?.inputBuffer(size);
  }

  /**
   * In a goroutine's stack (`start`: its next call line in the piece `bytes`, decoded as `s` when the
   * splitter decoded it), take the
   * frames of a stack already in the trie straight from the bytes: for each frame, the call
   * line must start with the function of a child of the current node and hold its arguments (without
   * parentheses, so that its `(` is the one `callArgsStart` finds), and the next line must be that
   * child's file line. That is what `call` and `file` decide line by line (the first child that
   * matches wins, as there), without a string and a call per line. Stops at the first line that is
   * anything else (a frame not in the trie, the end of the piece): from there lines go the usual way.
   * When the frames end at a node whose `created by` lines are known (`learnCreator`) and the same
   * lines follow (but for the creator's id), then a blank line, those are taken too and the goroutine
   * ends here. Returns the offset after the last line taken; `takenLines` their count (`lineNo`: the line
   * before `start`).
   */
  takeKnownFrames(s: string | undefined, start: number, bytes: Bytes, lineNo: number): number {
    const g = this.g;
    let node = this.node;
    // Before the first stack is read whole there is nothing to match (no kid, no frame text).
    const known = this.known;
    if (this.state !== CALL || g === undefined || node === undefined || (node.kid === undefined && !known.matcher) || this.inAncestor) return start;
    // A goroutine writing a debug=2 dump may start the next dump (`call`): left to the line path.
    const base = this.frameList.length;
    if (base === 0 && g.state === 'running') return start;
    if (known.matcher === undefined) known.matcher = known.inputMatcher ?? FrameMatcher.create() ?? null;
    const m = known.matcher;
    if (m === null) return start;
    let p = start;
    let taken = 0;
    const args = this.gArgs;
    for (;;) {
      // New nodes at most as many as the trie may still hold (`newKid` makes each).
      const w = m.walk(bytes, p, node, TRIE_NODES - known.nodes);
      if (w.count > 0) {
        if (args !== undefined) for (let i = 0; i < w.count; i++) args[base + taken + i] = w.args(s, bytes, i);
        node = w.last() as StackNode;
        taken += w.count;
        // Frame texts read elsewhere in the trie, new here: their nodes are made as `file` would.
        // A kid already made was not held by the matcher: it is now, with its siblings, or every
        // later goroutine of this stack would come this way (a text lookup and a search of the kids).
        for (let i = 0; i < w.texts; i++) {
          const t = w.text(i) as FrameLine;
          const kid = kidOf(node, t);
          if (kid !== undefined) m.holdKids(node);
          node = kid ?? this.newKid(node, t)!;
        }
      }
      p = w.end;
      if (w.creator) {
        // The whole goroutine: its frames are those of every goroutine read to its end here.
        g.frames = this.frameList = endOf(node).path ??= framesTo(node, this.framesGathered);
        this.node = node;
        this.takenLines = 2 * taken + 3;
        this.takenEnd = true;
        this.knownCreator(w.creatorLines() as NodeCreator, w.creatorId, lineNo + 2 * taken + 3);
        return p;
      }
      // Stopped where a kid the matcher did not hold yet may follow, or at the most one walk takes.
      if (!m.holdKids(node) && w.count < MAX_WALK) break;
    }
    // The lines from `p` go the usual way, pushing more frames: a copy of the frames so far.
    if (taken > 0) g.frames = this.frameList = framesTo(node, this.framesGathered);
    this.node = node;
    this.takenLines = 2 * taken;
    this.takenEnd = false;
    return p;
  }

  /**
   * Between goroutines (after one `takeKnownFrames` read to its end), the header line at `p` of the
   * piece, read as `line` would: the goroutine begins. A header whose status part (`[…]:`) is one
   * read here before is not decoded again. Returns the offset after the line, or `p` when it is not
   * a header read this way (then it goes the usual way): another shape (` gp=`, CR LF, labels or
   * flags), not a header, or the last line of the piece (`end` may need it).
   */
  takeHeader(b: Bytes, p: number, no: number): number {
    if (this.state !== IDLE) return p;
    const buf = b.buf;
    let i = b.start + p;
    const end = b.end;
    if (i + 14 > end || !startsGoroutine(buf, i)) return p;
    i += 10;
    const digits = i;
    let id = 0;
    for (let d = buf[i] - 48; d >= 0 && d <= 9 && i < end; d = buf[++i] - 48) id = id * 10 + d;
    if (i === digits || i + 1 >= end || buf[i] !== SPACE || buf[i + 1] !== 91 /* [ */) return p;
    const from = i + 1;
    // The newline, by hand: `indexOf` on a buffer of shared memory (a file read in place,
    // FrameMatcher.inputBuffer) misses V8's fast API call, ~3 times slower on a header.
    let nl = from;
    while (nl < end && buf[nl] !== 10) nl++;
    // A header followed by at least one byte of the piece: never the last line of the input.
    if (nl + 1 >= end || buf[nl - 1] === 13) return p;
    const n = nl - from;
    const slot = (n * 7 + buf[from + 1] * 3 + buf[nl - 3]) & (TAIL_SLOTS - 1);
    const t = this.tails[slot];
    let h: Header | undefined;
    if (t !== undefined && t.bytes.length === n && sameBytes(buf, from, t.bytes, n)) h = t.header;
    else {
      h = parseHeader(buf.toString('latin1', b.start + p, nl));
      if (h === undefined || h.flags !== undefined || h.labels !== undefined) return p;
      // A copy (Buffer's slice is a view): the input's chunk is not kept, and may be reused.
      this.tails[slot] = { bytes: Uint8Array.prototype.slice.call(buf, from, nl), header: h };
    }
    this.start(id, h.state, h, no);
    this.state = CALL;
    return nl + 1 - b.start;
  }

  /** The goroutine's creator was its stack node's (with `id`), and the blank line `no` ends it. */
  private knownCreator(c: NodeCreator, id: number, no: number): void {
    this.g!.creator = c.withId ? { func: c.func, pkg: c.pkg, file: c.file, line: c.line, goroutineId: id } : c.creator;
    this.finish(no);
    this.state = IDLE;
  }

  /** The pending call line's arguments, for the frame just pushed (not an ancestor's). */
  private keepArgs(): void {
    if (this.inAncestor) return;
    const l = this.callLine;
    const end = l.charCodeAt(l.length - 1) === 41 /* ) */ ? l.length - 1 : l.lastIndexOf(')');
    if (end > this.callArgs) this.gArgs![this.frameList.length - 1] = l.slice(this.callArgs + 1, end);
  }

  /** `f` is the frame of the pending call line (its function and inlining; the file line matched). */
  private calls(f: Frame): boolean {
    // (slice and ===: V8's startsWith on a substring is several times slower)
    return f.inlined === this.callInlined && f.func.length === this.callArgs && this.callLine.slice(0, this.callArgs) === f.func;
  }

  private cFile(line: string, no: number): boolean {
    if (line.charCodeAt(0) === TAB && line.includes('pc=0x')) {
      const ok = parseFileLine(line);
      this.frameList.push(this.host.frames.frame(this.callLine, '', ok ? FILE.file : '', ok ? FILE.line : 0, false));
      this.node = undefined;
      this.state = CALL;
      return true;
    }
    // The held line was not a C frame but text after the goroutine (`FAIL`, `PASS`).
    this.finish(no);
    return this.idle(line, no);
  }

  private created(line: string): void {
    this.creatorText = line;
    const c = parseCreatedBy(line);
    this.creatorFunc = c.func;
    this.creatorId = c.id;
    this.state = CREATOR_FILE;
  }

  private creatorFile(line: string, no: number): boolean {
    const ok = isFileLine(line);
    this.setCreator(ok ? FILE.file : '', ok ? FILE.line : 0);
    if (ok) {
      // Learned from the second goroutine that ends at the node (a stack read once costs nothing).
      const node = this.node;
      if (node !== undefined && !this.inAncestor) {
        const end = endOf(node);
        const known = this.known;
        if (end.creatorLines === undefined && end.ended++ > 0) {
          end.creatorLines = this.creatorLines(line);
          known.matcher?.addCreator(node);
        } else if (known.matcher && known.anyCreator?.fileLine !== line) {
          // Goroutines of new stacks often share their creator: tried at nodes that have none (the last one read).
          known.anyCreator = this.creatorLines(line);
          if (known.anyCreator !== undefined) known.matcher.anyCreator(known.anyCreator);
        }
      }
      this.state = AFTER_CREATOR;
      return true;
    }
    this.target?.warn({ severity: 'warning', code: 'unparsed-line', line: no, message: `line ${no}: expected the file line of 'created by ${this.creatorFunc}'` });
    this.state = AFTER_CREATOR;
    return this.afterCreator(line, no);
  }

  private setCreator(file: string, line: number): void {
    if (this.inAncestor) return; // an ancestor's creator: the ancestor blocks name it again
    const f = this.creatorFunc;
    this.g!.creator = this.creatorId === undefined
      ? { func: f, pkg: pkgOf(f, file), file, line }
      : { func: f, pkg: pkgOf(f, file), file, line, goroutineId: this.creatorId };
  }

  /**
   * The creator just read, as lines `takeKnownFrames` matches, when `created by F[ in goroutine N]`
   * says nothing more than F and N.
   */
  private creatorLines(fileLine: string): NodeCreator | undefined {
    const c = this.g!.creator!;
    const withId = c.goroutineId !== undefined;
    const head = `created by ${c.func}`;
    if (this.creatorText !== (withId ? `${head} in goroutine ${c.goroutineId}` : head)) return undefined;
    const func = detach(c.func);
    const pkg = detach(c.pkg);
    const file = detach(c.file);
    const creator = withId ? undefined : { func, pkg, file, line: c.line };
    return { head: detach(head), withId, fileLine: detach(fileLine), func, pkg, file, line: c.line, creator, at: 0 };
  }

  private afterCreator(line: string, no: number): boolean {
    if (line.startsWith('[originating from goroutine ')) return this.ancestor(line);
    this.finish(no);
    return this.idle(line, no);
  }

  /** `[originating from goroutine 24]:` (GODEBUG=tracebackancestors): the creator's stack follows. */
  private ancestor(line: string): boolean {
    const id = parseInt(line.slice(28), 10);
    const a: AncestorStack = { goroutineId: id >= 0 ? id : 0, frames: [] };
    (this.g!.ancestors ??= []).push(a);
    this.frameList = a.frames;
    this.node = undefined;
    this.inAncestor = true;
    this.state = CALL;
    return true;
  }

  private unavailable(): boolean {
    const g = this.g!;
    g.flags = { ...g.flags, stackUnavailable: true };
    g.partial = true;
    return true;
  }

  private begin(h: Header, no: number): boolean {
    this.start(h.id, h.state, h, no);
    this.state = CALL;
    return true;
  }

  private start(id: number | undefined, state: string, h: Header | undefined, no: number): void {
    this.readAny = true;
    const b = this.host.goroutine(id, no);
    let flags: GroupFlags | undefined = h?.flags;
    if (b && b.goroutines === 0 && (state === 'running' || id === undefined)) {
      const k = b.header.headline?.kind;
      if (k !== undefined && CRASH_KINDS.has(k)) flags = { ...flags, crashed: true };
    }
    const g = new ReadGoroutine(id, state, flags ? flags : undefined, h?.waitMinutes, h?.labels ? h.labels : undefined);
    this.g = g;
    this.gArgs = id !== undefined && b?.wantsDetail ? [] : undefined;
    this.target = b;
    this.gLine = no;
    this.frameList = g.frames;
    this.node = this.root;
    this.inAncestor = false;
  }

  private pushFrame(func: string, file: string, line: number, inlined: boolean): void {
    this.frameList.push(this.host.frames.frame(func, pkgOf(func, file), file, line, inlined));
    this.node = undefined;
  }

  /** `detach(state)`, once for a run of goroutines in one state (the nodes of new stacks keep it). */
  private keptState(state: string): string {
    const known = this.known;
    if (state !== known.lastState) known.lastState = detach(state);
    return known.lastState;
  }

  /** The goroutine is complete (or cut short: `problem`); add it to its snapshot. */
  private finish(no: number, problem?: string): void {
    const g = this.g;
    if (!g) return;
    this.g = undefined;
    this.inAncestor = false;
    // Every frame came through the trie (none pushed elsewhere, no ancestors): its key is known, and
    // so is its wait kind for the state asked about last.
    const node = this.node;
    this.node = undefined;
    const end = node !== undefined && g.ancestors === undefined ? endOf(node) : undefined;
    if (end !== undefined && end.waitState === g.state) g.waitKind = end.waitKind!;
    else {
      g.waitKind = classifyWait(g.state, g.frames, 'debug2');
      if (end !== undefined) {
        end.waitState = this.keptState(g.state);
        end.waitKind = g.waitKind;
      }
    }
    if (g.id === 0 && g.state === '') g.waitKind = headlessWait(g.frames, g.waitKind);
    const args = this.gArgs;
    if (args !== undefined) {
      this.gArgs = undefined;
      g.args = Array.from(g.frames, (_, i) => args[i] ?? '');
    }
    if (end !== undefined) {
      const key = nodeKey(node!);
      if (key.length > 0 || g.frames.length === 0) g.framesKey = key;
    }
    if (problem !== undefined) {
      g.partial = true;
      this.target?.warn({
        severity: 'warning',
        code: 'partial-goroutine',
        line: no,
        message: `goroutine ${g.id ?? '(no header)'} (line ${this.gLine}) is cut short: ${problem}; kept as partial`,
      });
    }
    if (this.target) this.host.add(this.target, g);
    this.target = undefined;
  }

  /**
   * The input ended. Adds the goroutine being read; returns where the input cut it, if it did: in
   * the middle of a frame, or after a frame no complete stack ends with (neither `created by` nor
   * `main.main`, `runtime.goexit`…), or anywhere when the caller knows the input was cut (`inputCut`).
   */
  end(no: number, inputCut = false): Cut | undefined {
    const g = this.g;
    const b = this.target;
    let what: string | undefined;
    if (g) {
      const last = g.frames[g.frames.length - 1];
      if (this.state === FILE_LINE) {
        this.pushFrame(this.callFunc, '', 0, this.callInlined);
        what = `after '${this.callFunc}' without its file line`;
      } else if (this.state === CREATOR_FILE) {
        this.setCreator('', 0);
        what = `after 'created by ${this.creatorFunc}' without its file line`;
      } else if (this.state === CALL && !this.inAncestor && !g.creator && !g.flags?.stackUnavailable && !g.elidedFrames) {
        if (!last) what = 'before its first frame';
        else if (!BOTTOMS.has(last.func)) what = `after '${last.func}', which no complete stack ends with`;
      }
      if (what === undefined && inputCut) what = 'where the input was cut off';
      this.finish(no, what === undefined ? undefined : `the input ends ${what}`);
    }
    this.state = IDLE;
    return what !== undefined && b ? { builder: b, what: `inside goroutine ${g!.id ?? '(no header)'} (line ${this.gLine}), ${what}` } : undefined;
  }
}
