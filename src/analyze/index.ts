/**
 * The analyze stage: a snapshot's read-stage groups merged under a normalized signature (equal across
 * debug=0/1/2 of one process), each frame's origin, each group's blocking site, and the links between
 * groups that the cascade diagnosis is built on.
 */
import type { Snapshot, WaitKind } from '../model/dump.js';
import { correlate } from './correlate.js';
import { groupSnapshot } from './group.js';
import { programModules } from './modules.js';
import { OriginClassifier } from './origin.js';
import type { Analysis, AnalyzeOptions, WaitGraph } from './types.js';
import { waitGraph } from './waitfor.js';

export function analyze(snapshot: Snapshot, opts: AnalyzeOptions = {}): Analysis {
  const level = opts.level ?? 'exact';
  // The program's own modules before the list of well-known dependencies: the user's (userModules),
  // then those the dump tells (the test's package, main's checkout, creators in the same checkout).
  const given = (opts.userModules ?? []).filter((m) => m.length > 0);
  const found = programModules(snapshot).filter((m) => !given.some((g) => m.module === g || m.module.startsWith(`${g}/`)));
  const origins = new OriginClassifier({ ...opts, userModules: [...given, ...found.map((m) => m.module)] });
  // Goroutines per wait kind, tallied in grouping's pass over the read-stage groups.
  const byWaitKind: Partial<Record<WaitKind, number>> = {};
  const groups = groupSnapshot(snapshot, level, origins, byWaitKind);
  // (The classifier is this analysis's own: the frames it has made site frames of are its groups'.)
  const funcs = origins.siteFunctions();
  const program = [...given.map((module) => ({ module, why: 'given (analyze.userModules)' })), ...found];
  const a: Analysis = {
    snapshot, level, total: snapshot.total, groups, byWaitKind, links: correlate(snapshot, groups, funcs),
    ...(program.length ? { programModules: program } : {}),
  };
  functionsMemo.set(a, funcs);
  // The wait-for graph is built when first asked for (the rules ask): diff, trend and reports without
  // rules over debug=2 dumps do not pay for it.
  if (snapshot.goroutines?.length) {
    let waits: WaitGraph | undefined | null = null;
    Object.defineProperty(a, 'waits', {
      enumerable: true,
      get: () => (waits === null ? (waits = waitGraph(snapshot, groups, origins)) : waits),
    });
  }
  return a;
}

const functionsMemo = new WeakMap<Analysis, ReadonlySet<string>>();

/**
 * Every function on a stack of the groups of `a` (their `frames`), once, when `a` was made by
 * `analyze`: known from the frames it classified, where a pass over every frame of every group
 * (220,000 on 20,000 distinct stacks) costs milliseconds. Undefined for an analysis made otherwise.
 */
export function stackFunctions(a: Analysis): ReadonlySet<string> | undefined {
  return functionsMemo.get(a);
}

export { signature, signatureOfFrames, keyFrames } from './signature.js';
export { groupId, groupSnapshot } from './group.js';
export { correlate, linkedGroups, spawnerCandidates } from './correlate.js';
export { enclosing, enclosingFunctions, isClosure, receiverType } from './closures.js';
export {
  OriginClassifier, frameOrigin, packageOfFunc, KNOWN_DEPENDENCIES, KNOWN_HELPERS, STDLIB_ROOTS,
} from './origin.js';
export { classifyWait } from '../model/wait.js';
export { waitGraph, baseOf, references, FIELD_SPAN } from './waitfor.js';
export { argWords, hex } from './args.js';
export { programModules, hostModule, type ProgramModule } from './modules.js';
export type * from './types.js';
