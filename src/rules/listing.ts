/**
 * Findings over a `go tool pprof` text listing (Snapshot.listing) say what that listing could show.
 * A `-top` listing has no stacks: its groups are inferred from per-function totals, so counts read
 * "about 113k" and the confidence is low; `-tree`/`-peek` chains are rebuilt from edges (at most
 * medium); a listing without file:line names functions, not sites ("in returnErr under errgroup.Go").
 */
import type { Analysis, AnalyzedGroup } from '../analyze/types.js';
import type { Snapshot } from '../model/dump.js';
import { packageSlash } from '../model/func-name.js';
import { num } from './frames.js';
import type { Finding } from './types.js';

/** `113097` → `about 113k`, `1480` → `about 1.5k`, `300` → `about 300`. */
export function approxCount(n: number): string {
  if (n >= 10_000) return `about ${Math.round(n / 1000)}k`;
  if (n >= 1_000) return `about ${(Math.round(n / 100) / 10).toString()}k`;
  return `about ${n}`;
}

/** The goroutine count as a finding says it: approximate for groups inferred from aggregates. */
export function countText(s: Snapshot, n: number): string {
  return s.listing?.groups === 'inferred' ? approxCount(n) : num(n);
}

/**
 * A finding over a listing, as far as the listing can show it: the confidence capped (`-top`: low,
 * `-tree`: medium), a fact saying where its chains come from, and where pprof dropped functions, a
 * deadlock claim (which needs every goroutine) made a warning: the holder may be among them.
 */
export function listingFinding(s: Snapshot, f: Finding): Finding {
  const l = s.listing;
  if (!l) return f;
  const cap = l.groups === 'inferred' ? 'low' : l.groups === 'edges' ? 'medium' : undefined;
  const order = ['low', 'medium', 'high', 'certain'] as const;
  const confidence = cap ? order[Math.min(order.indexOf(f.confidence ?? 'high'), order.indexOf(cap))] : f.confidence;
  const facts = [...f.evidence.facts, factOf(l)];
  let severity = f.severity;
  if (l.droppedNodes) {
    facts.push(`pprof dropped ${l.droppedNodes} functions (cum <= ${l.droppedBelow ?? '?'}): goroutines only they hold (a lock holder, a receiver) are not in this listing`);
    if (f.category === 'deadlock' && severity === 'error') severity = 'warning';
  }
  return { ...f, severity, confidence, evidence: { ...f.evidence, facts } };
}

/** The rule variant for a listing without file:line (`aggregate`), when the rule has one. */
export function listingVariant(a: Analysis, variants: Readonly<Record<string, unknown>> | undefined): string | undefined {
  return a.snapshot.listing && !a.snapshot.listing.lines && variants?.aggregate ? 'aggregate' : undefined;
}

function factOf(l: NonNullable<Snapshot['listing']>): string {
  if (l.groups === 'inferred') return `input: a go tool pprof -${l.kind} listing (per-function totals, no stacks): these chains and counts are inferred from the aggregates and the runtime's known blocking chains`;
  if (l.groups === 'edges') return `input: a go tool pprof -tree/-peek listing (caller/callee counts, no stacks): these chains are rebuilt from the edges`;
  return `input: a go tool pprof -${l.kind} listing${l.lines ? '' : ' without line numbers'}`;
}

/**
 * A function as a sentence names it: the program's own by its name (`returnErr`, `listAndWatch.func3`),
 * a library's by package and method (`errgroup.Wait`, `errgroup.Go` for errgroup's `Go.func1`,
 * `WaitGroup.Wait` for sync's).
 */
export function spokenFunc(func: string, library: boolean): string {
  const rest = func.slice(packageSlash(func) + 1);
  const dot = rest.indexOf('.');
  const pkg = rest.slice(0, dot);
  let name = rest.slice(dot + 1);
  const recv = /^\(\*?([^)]+)\)\.(.*)$/.exec(name);
  if (!library) return recv ? recv[2] : name;
  if (recv) name = pkg === 'sync' ? `${recv[1]}.${recv[2]}` : recv[2];
  name = name.replace(/(?:\.(?:func|gowrap)\d+(?:\.\d+)*)+$/, '');
  return pkg === 'sync' && recv ? name : `${pkg}.${name}`;
}

/** `at proxy.returnErr (proxy.returnErr)`: a function standing in for a site it already names. */
export function tidy(text: string): string {
  return text.replace(/(\S+) \(\1\)/g, '$1');
}

const JOIN_WAIT = /^(?:waitgroup|semaphore)$/;
const JOIN = /(WaitGroup|errgroup\.\(\*Group\)|Pool)\)?\.Wait$/;

/** `{funcName}`, `{under}`, `{consequenceBrief}`: the finding in a sentence, for listings without lines. */
export function sentenceVars(
  a: Analysis,
  root: AnalyzedGroup,
  consequences: readonly AnalyzedGroup[],
  site: { readonly func: string; readonly origin?: string } | undefined,
): Record<string, string> {
  // A chain cut below the program's code (a cut listing): its function is not known.
  const known = site && site.origin !== 'runtime' ? site : undefined;
  const funcName = known ? spokenFunc(known.func, false) : 'a function the listing does not show';
  const outer = root.frames[root.frames.length - 1];
  const under = outer && known && outer.origin !== 'runtime' && outer.func !== known.func && outer.index > (root.blockingSite?.index ?? -1)
    ? ` under ${spokenFunc(outer.func, outer.origin !== 'user')}`
    : '';
  const brief = consequences.map((g) => {
    const join = [...g.frames].reverse().find((f) => JOIN.test(f.func));
    const where = g.blockingSite ?? g.frames.find((f) => f.origin === 'user');
    // A join waiter can wait for live siblings too: only those behind the root are this leak's.
    const n = countText(a.snapshot, g.count > root.count && JOIN_WAIT.test(g.waitKind) ? root.count : g.count);
    return join
      ? `${n} waiting in ${spokenFunc(join.func, true)}${where ? ` in ${spokenFunc(where.func, false)}` : ''}`
      : `${n} waiting${where ? ` in ${spokenFunc(where.func, false)}` : ''}`;
  });
  return { funcName, under, consequenceBrief: brief.length ? `, ${brief.join(', ')}` : '' };
}
