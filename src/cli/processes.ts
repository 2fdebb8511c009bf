/**
 * Which process a dump came from, and when, read from where it was found. Support bundles
 * name their files after the pod: the Rancher profile collector writes
 * `<pod>-goroutine-<YYYY-MM-DDTHH_MM_SS>`, `<pod>.log` and `<pod>-previous.log`; other tools put one
 * process's files in a folder of its own. So a process is named by, in order: the pod before
 * `-goroutine-` (or before `.log`, `-previous.log`, a `-t+30s` offset), the folder holding the file,
 * else the archive or folder given on the command line.
 */
import { basename } from 'node:path';
import { timeFromName } from './inputs.js';

/** `rancher-7d9f-x2x9z-goroutine-2026-11-30T14_05_33` → `rancher-7d9f-x2x9z`. */
const POD_PROFILE = /^(.+?)-goroutine-\d{4}-\d{2}-\d{2}T\d{2}[_:]\d{2}[_:]\d{2}/;
/** `<pod>.log` (the collector's logs). */
const POD_LOG = /^(.+?)\.log$/;
/** `<pod>-previous.log`: the crashed container's log, where its crash dump lands: another process. */
const POD_PREVIOUS = /^(.+?)-previous\.log$/;
/** `api-t+30s.txt`, `worker_t+5m.pprof`: an offset from the start of a capture. */
const OFFSET = /^(.+?)[-_.]t\+(\d+(?:\.\d+)?)(ms|s|m|h)(?![a-z])/i;
/** Words that name what a file is, not whose: never a process name on their own. */
const GENERIC = /^(?:goroutines?|dump|dumps|profile|profiles|pprof|stacks?|debug|capture|snapshot)$/i;

const OFFSET_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export interface Placement {
  /** The process the file belongs to. */
  readonly process: string;
  /** The time in a collector's entry name (`<pod>-goroutine-<time>`; ms), or a `-t+30s` offset from 0. */
  readonly time?: number;
}

/**
 * The process and time of a file at `path` (inside an archive or below a folder, `/`-separated),
 * `fallback` naming the archive or folder it was found in.
 */
export function placeOf(path: string, fallback: string): Placement {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  const file = parts[parts.length - 1] ?? '';
  const folder = parts.length > 1 ? parts[parts.length - 2] : undefined;
  const pod = POD_PROFILE.exec(file)?.[1];
  // Only a collector's name (or an offset) orders a series ahead of the capture time in the dump.
  const time = pod ? timeFromName(file) : offsetOf(file);
  const previous = POD_PREVIOUS.exec(file)?.[1];
  const named = pod ?? (previous ? `${previous} (previous)` : undefined) ?? POD_LOG.exec(file)?.[1] ?? OFFSET.exec(file)?.[1];
  const process = named && !GENERIC.test(named) ? named : folder && !GENERIC.test(folder) ? folder : fallback;
  return time === undefined ? { process } : { process, time };
}

function offsetOf(file: string): number | undefined {
  const m = OFFSET.exec(file);
  return m ? Number(m[2]) * OFFSET_UNITS[m[3].toLowerCase()] : undefined;
}

/** `bundle.tar.xz` → `bundle`, `dumps/` → `dumps`: the name of a whole archive or folder. */
export function containerName(path: string): string {
  const b = basename(path.replace(/[\\/]+$/, '')) || path;
  return b.replace(/\.(?:tar\.(?:gz|xz|bz2|zst)|tgz|txz|tar|zip|gz|xz)$/i, '') || b;
}

/**
 * The family of a pod: its name without the hashes Kubernetes appends (`rancher-7d9f8b6c4-x2x9z` →
 * `rancher`, `fleet-agent-0` → `fleet-agent`); "the same leak in 3 of 3 rancher pods" counts a family.
 */
export function familyOf(process: string): string {
  // A crashed container's log is another process of the pod: counted apart from the live ones.
  const previous = / \(previous\)$/.test(process);
  let f = process.replace(/ \(previous\)$/, '');
  // ReplicaSet pods: -<hash 5..10>-<suffix 5>; StatefulSet pods: -<ordinal>.
  f = f.replace(/-[a-z0-9]{5,10}-[a-z0-9]{5}$/, '').replace(/-[a-z0-9]{5}$/, '').replace(/-\d+$/, '');
  return previous ? `${f || process} (previous)` : f || process;
}
