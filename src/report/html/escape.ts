/**
 * Escaping for the HTML report. Every string that comes from a dump (functions, paths, labels, panic
 * messages, sources) goes through `esc` before it reaches the page, or through `jsonForScript` before it
 * reaches the embedded data block.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escape text for an HTML text node or a double- or single-quoted attribute value. */
export function esc(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>`, `&`, U+2028 and U+2029 become `\uXXXX`
 * escapes, so no `</script>` or `<!--` can close or confuse the block and the text is still valid JSON.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => {
    return '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
  });
}

/** A value usable in an `id` attribute and a URL fragment: group ids are hex, but never trust that. */
export function safeId(prefix: string, id: string): string {
  return prefix + id.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Escaped prose where `backtick spans` (as rule texts write code) become <code>; nothing else is markup. */
export function prose(text: string): string {
  return esc(text).replace(/`([^`\n]+)`/g, '<code>$1</code>');
}
