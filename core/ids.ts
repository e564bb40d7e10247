/**
 * Item ids are strings. Ordinals follow id order (numeric when both ids are
 * decimal integers, else code-unit order), so "ties broken by item ordinal"
 * means "ties broken by item id" everywhere.
 */
const DECIMAL = /^(0|[1-9][0-9]*)$/;

export function compareIds(a: string, b: string): number {
  if (DECIMAL.test(a) && DECIMAL.test(b) && a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
