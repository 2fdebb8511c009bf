/**
 * The priors a dump's context sets (`Snapshot.context`, else its crash headline). In a `go test`
 * timeout, a leak checker's report or a runtime-proven deadlock, every goroutine parked in the
 * program's own code is a suspect and one goroutine is enough for a finding; in a signal dump of a
 * running process, a wait as old as the process is; in a profile taken on purpose, parked goroutines
 * are usually idle.
 */
import type { DumpContextKind, Snapshot } from '../model/dump.js';

/** The snapshot's context as the reader told it (read/context.ts); a snapshot built without one is a profile. */
export function contextKind(s: Snapshot): DumpContextKind {
  return s.context?.kind ?? 'profile';
}

/** The goroutines of the dump are the ones a failure left behind: every parked one is a suspect. */
export function suspectsAll(kind: DumpContextKind): boolean {
  return kind === 'test-timeout' || kind === 'leak-report' || kind === 'deadlock' || kind === 'synctest-deadlock' || kind === 'excerpt';
}

/**
 * Only part of the dump is there (a pasted excerpt, or a test timeout cut down to a few goroutines):
 * a counterpart that is not shown is unknown, never absent.
 */
export function partialView(s: Snapshot): boolean {
  return s.context?.kind === 'excerpt' || (s.context?.excerpt?.length ?? 0) > 0;
}

/** The runtime itself proved that nothing can wake them. */
export function provenStuck(kind: DumpContextKind): boolean {
  return kind === 'deadlock' || kind === 'synctest-deadlock';
}

/** How a finding's facts name the context: `in a go test timeout`. */
export function contextPhrase(kind: DumpContextKind): string {
  switch (kind) {
    case 'test-timeout':
      return 'the dump is a `go test` timeout: the test did not finish';
    case 'leak-report':
      return 'a leak checker reported these goroutines still alive after the test';
    case 'deadlock':
      return 'the runtime reported that all goroutines are asleep (deadlock)';
    case 'synctest-deadlock':
      return 'testing/synctest reported its bubble deadlocked';
    case 'signal':
      return 'a signal dump of a running process';
    case 'crash':
      return 'a crash dump';
    case 'excerpt':
      return 'the dump is an excerpt: every goroutine shown was chosen as relevant, and what it does not show is unknown';
    default:
      return 'a goroutine profile';
  }
}
