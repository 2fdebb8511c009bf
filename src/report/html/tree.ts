/**
 * The created-by tree: who started whom. Groups linked by `Analysis.links` (creator ids, or inferred
 * from shared frames) nest under their parent group; groups with no parent group hang under the
 * function that started them, as the dump's `created by` line names it.
 */
import type { Analysis, AnalyzedGroup, GroupLink } from '../../analyze/types.js';
import { esc } from './escape.js';
import { fileLine, fmtInt, plural, shortFunc } from './format.js';
import { groupName, locHtml, stackAnchor } from './frames.js';
import { waitLabel } from './waitkinds.js';

const MAX_NODES = 400;

interface Ctx {
  readonly byId: ReadonlyMap<string, AnalyzedGroup>;
  readonly children: ReadonlyMap<string, GroupLink[]>;
  readonly stacks: ReadonlySet<string>;
  readonly seen: Set<string>;
  budget: number;
}

function node(g: AnalyzedGroup, ctx: Ctx, via?: GroupLink): string {
  ctx.seen.add(g.id);
  ctx.budget--;
  const name = ctx.stacks.has(g.id) ? `<a href="#${stackAnchor(g.id)}">${esc(groupName(g))}</a>` : esc(groupName(g));
  const started = via ? ` <span class="muted">(${plural(via.count, 'goroutine')} started by the parent${via.via === 'shared-frames' ? ', inferred from stacks' : ''})</span>` : '';
  const kids = (ctx.children.get(g.id) ?? []).filter((l) => !ctx.seen.has(l.child) && ctx.byId.has(l.child));
  const inner: string[] = [];
  for (const l of kids) {
    if (ctx.budget <= 0) break;
    if (ctx.seen.has(l.child)) continue;
    inner.push(node(ctx.byId.get(l.child)!, ctx, l));
  }
  return (
    `<li><span class="cnt">${fmtInt(g.count)}</span> <span class="wk wk-${g.waitKind}">${esc(waitLabel(g.waitKind))}</span> ` +
    `<span class="mono site">${name}</span>${started}${inner.length ? `<ul>${inner.join('')}</ul>` : ''}</li>`
  );
}

export function renderTree(a: Analysis, stacks: ReadonlySet<string>): string {
  const byId = new Map(a.groups.map((g) => [g.id, g] as const));
  const children = new Map<string, GroupLink[]>();
  const hasParent = new Set<string>();
  for (const l of a.links) {
    if (!byId.has(l.child) || !byId.has(l.parent) || l.child === l.parent) continue;
    hasParent.add(l.child);
    const list = children.get(l.parent) ?? [];
    list.push(l);
    children.set(l.parent, list);
  }
  for (const list of children.values()) {
    list.sort((x, y) => y.count - x.count || (x.child < y.child ? -1 : x.child > y.child ? 1 : 0));
  }
  // Roots, under the function that started them.
  const byCreator = new Map<string, { label: string; creator?: AnalyzedGroup['creator']; groups: AnalyzedGroup[]; total: number }>();
  for (const g of a.groups) {
    if (hasParent.has(g.id)) continue;
    const key = g.creator ? `${g.creator.func}\u0000${fileLine(g.creator)}` : '';
    const entry = byCreator.get(key) ?? { label: g.creator?.func ?? '', creator: g.creator, groups: [], total: 0 };
    entry.groups.push(g);
    entry.total += g.count;
    byCreator.set(key, entry);
  }
  const ctx: Ctx = { byId, children, stacks, seen: new Set(), budget: MAX_NODES };
  const entries = [...byCreator.entries()].sort((x, y) => y[1].total - x[1].total || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const out: string[] = [];
  for (const [, e] of entries) {
    if (ctx.budget <= 0) break;
    const items: string[] = [];
    for (const g of e.groups) {
      if (ctx.budget <= 0) break;
      if (!ctx.seen.has(g.id)) items.push(node(g, ctx));
    }
    const head = e.label
      ? `Started by <span class="mono site" title="${esc(e.label)}">${esc(shortFunc(e.label))}</span>${e.creator ? ' ' + locHtml(e.creator, 'span') : ''}`
      : '<span class="muted">No creator in the dump</span> <span class="muted">(the main goroutine, runtime goroutines, or a format without creators)</span>';
    out.push(`<li>${head} · <span class="cnt">${fmtInt(e.total)}</span><ul>${items.join('')}</ul></li>`);
  }
  // Groups whose links form a cycle have a parent but no root above them: draw them at the top.
  const orphans: string[] = [];
  for (const g of a.groups) {
    if (ctx.budget <= 0) break;
    if (!ctx.seen.has(g.id)) orphans.push(node(g, ctx));
  }
  if (orphans.length) out.push(`<li><span class="muted">Started by each other (the links form a cycle)</span><ul>${orphans.join('')}</ul></li>`);
  const cut = a.groups.length - ctx.seen.size;
  return (
    `<ul class="tree">${out.join('')}</ul>` +
    (cut > 0 ? `<p class="muted">${plural(cut, 'more group')} not drawn.</p>` : '') +
    (a.links.length === 0 ? '<p class="muted">This dump does not say which goroutine started which (Go 1.21+ prints <code>created by … in goroutine N</code>), so groups are shown under the function that started them.</p>' : '')
  );
}
