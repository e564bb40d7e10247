/**
 * When the dashboards look at an experiment's statistics (series.ts): a few
 * looks spread over its span; and what a series is (what series.ts reads
 * from D1 and chart-specs.ts draws). Pure, so Node tests it without D1.
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

export interface EffectLook {
  /** Epoch ms: the statistics as they stood then. */
  readonly at: number;
  readonly arm: string;
  /** The effect the verdict reads (A/B: per-user CTR difference, CUPED-adjusted; interleaving: the mean user preference in [−1, 1]). */
  readonly effect: number;
  readonly confidenceSequence: readonly [number, number];
  /** Per-search CTR difference (A/B) or credited win share of decided searches (interleaving). */
  readonly secondary: number;
  /** Users (A/B: both arms, counted; interleaving: users with a decided search). */
  readonly users: number;
}

export interface DailyArm {
  /** UTC day, YYYY-MM-DD. */
  readonly day: string;
  readonly arm: string;
  readonly searches: number;
  readonly clickedSearches: number;
  readonly purchases: number;
}

export interface Series {
  readonly experiment: string;
  readonly design: "ab" | "interleave";
  readonly looks: readonly EffectLook[];
  readonly daily: readonly DailyArm[];
}
