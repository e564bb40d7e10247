/**
 * When the dashboards look at an experiment's statistics (series.ts): a few
 * looks spread over its span. Pure, so Node tests it without D1.
 */

export const SERIES_LIMITS = {
  /** Looks over the span: each costs 2–3 D1 queries, and a Worker invocation may make at most 50 on the free plan. */
  looksMax: 12,
} as const;

/** Look times: `n` evenly spaced ends of [from, to], the last one `to` (n ≥ 1; one look when the span is empty). */
export function lookTimes(from: number, to: number, n: number = SERIES_LIMITS.looksMax): number[] {
  if (!(to > from) || n <= 1) return [Math.max(from, to)];
  return Array.from({ length: n }, (_, j) => (j === n - 1 ? to : Math.round(from + ((to - from) * (j + 1)) / n)));
}
