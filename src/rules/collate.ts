/**
 * `localeCompare` without its cost where it cannot matter: the first `localeCompare` of a process
 * builds an ICU collator (~10 ms), while rule ids and group ids are plain ASCII (`core/lock-order`,
 * `3f9a0c12de`). For strings made only of `a-z`, `0-9`, `-`, `.` and `/`, the default collation of
 * the locales below orders exactly as code points do (`-` < `.` < `/` < digits < letters, no case or
 * accents to weigh), so a plain comparison gives the same sign. Anything else, or another locale
 * (some tailor letter sequences: Danish `aa`, Czech `ch`…), still goes to `localeCompare`.
 */
const PLAIN = /^[-./0-9a-z]*$/;

function plainLocale(): boolean {
  for (const v of ['LC_ALL', 'LC_COLLATE', 'LC_MESSAGES', 'LANG', 'LANGUAGE']) {
    const s = process.env[v];
    if (s && !/^(C|POSIX|en)([_.@:-]|$)/i.test(s)) return false;
  }
  return true;
}

const FAST = typeof process !== 'undefined' && plainLocale();

/** Same sign as `a.localeCompare(b)`. */
export function localeOrder(a: string, b: string): number {
  if (a === b) return 0;
  if (FAST && PLAIN.test(a) && PLAIN.test(b)) return a < b ? -1 : 1;
  return a.localeCompare(b);
}
