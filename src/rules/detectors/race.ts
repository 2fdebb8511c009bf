/**
 * `race`: data race reports (`WARNING: DATA RACE`), one finding per pair of conflicting sites,
 * unordered, however many times the detector printed it (a loop reports the same pair again and again).
 */
import { frameOrigin } from '../../analyze/origin.js';
import type { SiteFrame } from '../../analyze/types.js';
import type { Frame, RaceAccess, RaceReport } from '../../model/dump.js';
import { candidate, type Candidate, type Detector } from '../candidate.js';
import { shortFunc, siteText } from '../frames.js';

const NOT_USER = /^(runtime|internal\/|sync\/atomic|reflect)\b|^runtime\./;

/** The first frame of the program's own code (else past the runtime): where it touched the memory. */
export function accessSite(acc: RaceAccess): Frame | undefined {
  return acc.frames.find((f) => frameOrigin(f) === 'user') ?? acc.frames.find((f) => !NOT_USER.test(f.func)) ?? acc.frames[0];
}

function key(f: Frame | undefined): string {
  return f ? `${f.func}@${f.file}:${f.line}` : '?';
}

function who(acc: RaceAccess): string {
  const op = `${acc.previous ? 'previous ' : ''}${acc.op}`;
  const g = acc.goroutineId === 0 ? 'the main goroutine' : `goroutine ${acc.goroutineId}`;
  const s = accessSite(acc);
  return `${op} by ${g} at ${s ? `${shortFunc(s.func)} (${siteText(s)})` : 'an unknown site'}`;
}

function asSiteFrames(frames: Frame[]): SiteFrame[] {
  return frames.map((f, index) => ({ ...f, index, origin: frameOrigin(f) }));
}

/** Race reports grouped by their unordered pair of sites, in first-seen order. */
export function groupRaces(races: readonly RaceReport[]): RaceReport[][] {
  const byPair = new Map<string, RaceReport[]>();
  for (const r of races) {
    const k = [key(accessSite(r.accesses[0])), key(accessSite(r.accesses[1]))].sort().join(' | ');
    const list = byPair.get(k);
    if (list) list.push(r);
    else byPair.set(k, [r]);
  }
  return [...byPair.values()];
}

export const raceDetector: Detector = {
  description: 'race reports deduplicated by their unordered pair of conflicting sites',
  vars: ['siteA', 'siteB', 'accessA', 'accessB', 'reports', 'address'],
  find(ctx, rule) {
    const out: Candidate[] = [];
    for (const reports of groupRaces(ctx.races)) {
      const r = reports[0];
      const [a, b] = r.accesses;
      const sa = accessSite(a);
      const sb = accessSite(b);
      const created = r.goroutines
        .filter((g) => g.createdAt.length)
        .map((g) => `goroutine ${g.id} (${g.status}) created at ${shortFunc(g.createdAt[0].func)} (${siteText(g.createdAt[0])})`);
      const ids = new Set(reports.flatMap((x) => x.accesses.map((acc) => acc.goroutineId)));
      out.push(
        candidate(rule, undefined, {
          vars: {
            siteA: sa ? `${shortFunc(sa.func)} (${siteText(sa)})` : 'an unknown site',
            siteB: sb ? `${shortFunc(sb.func)} (${siteText(sb)})` : 'an unknown site',
            accessA: who(a),
            accessB: who(b),
            reports: String(reports.length),
            address: a.address,
          },
          facts: [
            `${who(a)}`,
            `${who(b)}`,
            ...created,
            `reported ${reports.length} time${reports.length === 1 ? '' : 's'}${r.line ? ` (first at line ${r.line})` : ''}`,
          ],
          goroutines: ids.size,
          stack: asSiteFrames(a.frames),
          ...(sa ? { location: { file: sa.file, line: sa.line, func: sa.func } } : {}),
          confidence: 'high',
        }),
      );
    }
    return out;
  },
};
