/**
 * The words every format prints for a trend: the state itself (`growing`, `rising-inconclusive`,
 * `stable`, … — the same token in the table, JSON, Markdown, SARIF, JUnit, GitHub and HTML) and the
 * sentences that explain it, so no renderer words a state its own way.
 */
import type { SeriesTrend, TrendResult, TrendState } from '../analyze/trend.js';
import { plural } from './text.js';

/** What each state means, in a few words (legends, tooltips, the HTML chart labels). */
export const STATE_MEANING: Readonly<Record<TrendState, string>> = {
  growing: 'rises steadily (confirmed)',
  'rising-inconclusive': 'rises, too few snapshots to confirm',
  bounded: 'grew, then levelled off',
  stable: 'no material rise',
  shrinking: 'falls steadily',
  'insufficient-data': 'too few snapshots',
};

/** "about 6 snapshots would confirm it" / "more than 1,000 snapshots would be needed". */
export function neededText(needed: number | null | undefined): string {
  if (needed === undefined) return '';
  return needed === null ? 'no series under 1,000 snapshots would confirm a rise this irregular' : `about ${needed} snapshots would confirm it`;
}

/** How the groups' p-values were corrected: "Holm over 3 groups that changed materially". */
export function correctionText(t: Pick<TrendResult, 'family'>): string {
  return `Holm over ${plural(t.family, 'group')} that changed materially`;
}

/** One series' state with what it needs: "rising-inconclusive (about 6 snapshots would confirm it)". */
export function seriesStateText(s: Pick<SeriesTrend, 'verdict' | 'needed'>): string {
  return s.verdict === 'rising-inconclusive' ? `${s.verdict} (${neededText(s.needed)})` : s.verdict;
}

/**
 * The process's verdict as a sentence that starts with its state:
 * "growing: 1 group grows steadily", "rising-inconclusive: 2 groups rise, which 4 snapshots cannot
 * confirm at alpha 0.05 (Holm over 3 groups that changed materially); about 6 snapshots would confirm it",
 * "stable: no material rise", "insufficient-data: 2 snapshots; a trend needs at least 3".
 */
export function trendVerdictText(t: TrendResult): string {
  const n = t.points.length;
  switch (t.verdict) {
    case 'insufficient-data':
      return `insufficient-data: ${plural(n, 'snapshot')}; a trend needs at least 3`;
    case 'growing': {
      const what = t.leaks > 0 ? `${plural(t.leaks, 'group')} grow${t.leaks === 1 ? 's' : ''} steadily` : 'the total grows steadily';
      return `growing: ${what}`;
    }
    case 'rising-inconclusive': {
      const parts: string[] = [];
      if (t.rising > 0) parts.push(plural(t.rising, 'group'));
      if (t.total.verdict === 'rising-inconclusive') parts.push('the total');
      const rise = parts.length === 1 && t.rising !== 1 && t.rising > 0 ? 'rise' : parts.length > 1 ? 'rise' : 'rises';
      return `rising-inconclusive: ${parts.join(' and ')} ${rise}, which ${plural(n, 'snapshot')} cannot confirm at alpha ${t.alpha} (total: one test; groups: ${correctionText(t)}); ${neededText(t.needed)}`;
    }
    default:
      return 'stable: no material rise';
  }
}
