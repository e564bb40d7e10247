/**
 * Whether round A beats round B over a query set: the per-query deltas of a
 * metric, paired by query, with a percentile bootstrap confidence interval of
 * their mean (Efron & Tibshirani 1993, §13; seeded, so a page shows the same
 * interval on every load) and a two-sided sign test (ties dropped; the
 * binomial tail from @stdlib, as the experiments' statistics use).
 */
import binomialCdf from "@stdlib/stats-base-dists-binomial-cdf";
import { Rng } from "../../../core/rng.js";

export const PAIRED_LIMITS = { resamples: 2000, seed: 27, confidence: 0.95 } as const;

export interface PairedSummary {
  readonly queries: number;
  readonly meanA: number;
  readonly meanB: number;
  readonly meanDelta: number;
  /** The 95 % percentile-bootstrap interval of the mean delta; [0, 0] with no queries. */
  readonly ci95: [number, number];
  readonly wins: number;
  readonly losses: number;
  readonly ties: number;
  /** Two-sided sign-test p over wins and losses; 1 when there are none. */
  readonly signTestP: number;
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);

export function pairedSummary(pairs: ReadonlyArray<readonly [number, number]>): PairedSummary {
  const deltas = pairs.map(([a, b]) => a - b);
  const wins = deltas.filter((d) => d > 0).length;
  const losses = deltas.filter((d) => d < 0).length;
  const n = wins + losses;
  const signTestP = n === 0 ? 1 : Math.min(1, 2 * binomialCdf(Math.min(wins, losses), n, 0.5));
  return {
    queries: pairs.length,
    meanA: mean(pairs.map(([a]) => a)),
    meanB: mean(pairs.map(([, b]) => b)),
    meanDelta: mean(deltas),
    ci95: bootstrapCi(deltas),
    wins,
    losses,
    ties: deltas.length - n,
    signTestP,
  };
}

/** Percentile bootstrap of the mean: resample the deltas with replacement, take the 2.5 % and 97.5 % quantiles. */
export function bootstrapCi(deltas: readonly number[], resamples: number = PAIRED_LIMITS.resamples): [number, number] {
  if (deltas.length === 0) return [0, 0];
  const rng = new Rng(PAIRED_LIMITS.seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let j = 0; j < deltas.length; j++) s += deltas[Math.floor(rng.next() * deltas.length)] as number;
    means[r] = s / deltas.length;
  }
  means.sort();
  const tail = (1 - PAIRED_LIMITS.confidence) / 2;
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))] as number;
  return [at(tail), at(1 - tail)];
}
