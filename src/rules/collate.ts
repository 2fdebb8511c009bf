/**
 * The order findings are listed in must not depend on the host: renderers promise byte-identical
 * output for the same input, and `localeCompare` follows the machine's locale (Danish sorts `aa`
 * after `z`) and costs an ICU collator (~10 ms) on first use. Ties are broken by code points.
 */
export function textOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
