/**
 * pprof label maps as tracebacks print them:
 * - Go 1.27 header labels after the bracket: `{k: v, test.iter: "0_seed#0"}` (keys and values are
 *   Go-quoted only when needed, non-printable characters escaped; golang/go#76349),
 * - the older CL's `labels:{"k": "v"}` inside the bracket (both quoted).
 * Values may hold `,`, `}` and `]` inside quotes, so this is a small scanner, not a split.
 */

/** Index of the `}` matching the `{` at `open`, skipping Go-quoted strings; -1 if unbalanced. */
export function findClosingBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34 /* " */) {
      i = skipQuoted(s, i);
      if (i < 0) return -1;
    } else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return i;
  }
  return -1;
}

/** Index of the closing quote of the string starting at `q`, or -1. */
function skipQuoted(s: string, q: number): number {
  for (let i = q + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34) return i;
  }
  return -1;
}

/** `{k: v, "k 2": "v, 2"}` → `{ k: 'v', 'k 2': 'v, 2' }`; undefined when it does not parse. */
export function parseLabelMap(text: string): Record<string, string> | undefined {
  const s = text.trim();
  if (s.charCodeAt(0) !== 123 || s.charCodeAt(s.length - 1) !== 125) return undefined;
  const out: Record<string, string> = {};
  let i = 1;
  const end = s.length - 1;
  const skipSpaces = (): void => {
    while (i < end && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  };
  for (;;) {
    skipSpaces();
    if (i >= end) break;
    const key = token(':');
    if (key === undefined || s.charCodeAt(i) !== 58) return undefined;
    i++;
    skipSpaces();
    const value = token(',');
    if (value === undefined) return undefined;
    out[key] = value;
    skipSpaces();
    if (i >= end) break;
    if (s.charCodeAt(i) !== 44 /* , */) return undefined;
    i++;
  }
  return out;

  /** A quoted string, or bare text up to `stop` (or the closing brace). */
  function token(stop: string): string | undefined {
    if (s.charCodeAt(i) === 34) {
      const q = skipQuoted(s, i);
      if (q < 0 || q > end) return undefined;
      const v = unquoteGo(s.slice(i + 1, q));
      i = q + 1;
      return v;
    }
    let j = s.indexOf(stop, i);
    if (j < 0 || j > end) j = end;
    const v = s.slice(i, j).trim();
    i = j;
    return v;
  }
}

const SIMPLE: Record<string, string> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"', "'": "'",
};

/**
 * The body of a Go `strconv.Quote` string: `\n \t \" \\`, `\xNN` (bytes, UTF-8 reassembled),
 * `\uNNNN`, `\UNNNNNNNN` and octal `\NNN`.
 */
export function unquoteGo(body: string): string {
  if (!body.includes('\\')) return body;
  let out = '';
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length) out += Buffer.from(bytes).toString('utf8');
    bytes = [];
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\' || i + 1 >= body.length) {
      flush();
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === 'x') {
      bytes.push(parseInt(body.slice(i + 1, i + 3), 16) || 0);
      i += 2;
    } else if (e >= '0' && e <= '7') {
      bytes.push(parseInt(body.slice(i, i + 3), 8) || 0);
      i += 2;
    } else if (e === 'u' || e === 'U') {
      const len = e === 'u' ? 4 : 8;
      flush();
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 1 + len), 16) || 0xfffd);
      i += len;
    } else {
      flush();
      out += SIMPLE[e] ?? e;
    }
  }
  flush();
  return out;
}
