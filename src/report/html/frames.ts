/** Stack rendering shared by findings and the group list: innermost first, coloured by origin. */
import type { AnalyzedGroup, SiteFrame } from '../../analyze/types.js';
import type { Frame } from '../../model/dump.js';
import { esc, safeId } from './escape.js';
import { fileLine, shortFile, shortFunc } from './format.js';

type AnyFrame = Frame & { readonly origin?: SiteFrame['origin']; readonly index?: number };

/** `<ol>` of frames; `siteIndex` marks the blocking site. */
export function renderFrames(frames: readonly AnyFrame[], siteIndex?: number, elided = 0): string {
  if (frames.length === 0) return '<p class="meta muted">No frames in the dump.</p>';
  const items = frames.map((f, i) => {
    const cls = [`o-${f.origin ?? 'unknown'}`];
    if (siteIndex !== undefined && (f.index ?? i) === siteIndex) cls.push('site-frame');
    const tags =
      (f.inlined ? '<span class="tag">inlined</span>' : '') +
      (siteIndex !== undefined && (f.index ?? i) === siteIndex ? '<span class="tag">blocking site</span>' : '');
    const loc = fileLine(f);
    return `<li class="${cls.join(' ')}"><span class="fn">${esc(f.func)}${tags}</span>${loc ? `<span class="loc">${esc(loc)}</span>` : ''}</li>`;
  });
  if (elided !== 0) {
    items.push(`<li class="o-runtime"><span class="fn muted">${elided > 0 ? `…${elided} frames elided by the runtime…` : '…frames elided by the runtime…'}</span></li>`);
  }
  return `<ol class="frames">${items.join('')}</ol>`;
}

/** What a person calls a group: its blocking site, or its innermost frame. */
export function groupName(g: Pick<AnalyzedGroup, 'blockingSite' | 'frames'>): string {
  const f = g.blockingSite ?? g.frames[0];
  return f ? shortFunc(f.func) : '(no frames)';
}

/** The fragment id of a group's stack in the page. */
export function stackAnchor(id: string): string {
  return safeId('s-', id);
}

/** A short `…/dir/file.go:line` with the full path as its tooltip; '' when the dump gave no file. */
export function locHtml(f: { readonly file: string; readonly line: number }, tag: 'div' | 'span' = 'div'): string {
  const full = fileLine(f);
  if (!full) return '';
  const short = f.line > 0 ? `${shortFile(f.file)}:${f.line}` : shortFile(f.file);
  return `<${tag} class="loc" title="${esc(full)}">${esc(short)}</${tag}>`;
}
