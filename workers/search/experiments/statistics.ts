/**
 * The experiment statistics, as pure functions (each tested against
 * hand-computed values). Distributions come from @stdlib.
 *
 * Fixed-horizon: the two-proportion z-test with a 95 % Wald interval.
 * Sequential: the mixture SPRT (mSPRT; Robbins 1970, Johari, Pekelis & Walsh,
 * "Always valid inference", 2017) for a difference of proportions under the
 * normal approximation, with a N(0, τ²) mixture over the effect. With
 * θ̂ = p_T − p_C and V = p_C(1−p_C)/n_C + p_T(1−p_T)/n_T,
 *   Λ(θ₀) = √(V/(V+τ²)) · exp(τ²(θ̂−θ₀)² / (2V(V+τ²))),
 * the always-valid p-value is the running minimum of 1/Λ(0), and
 *   { θ₀ : Λ(θ₀) < 1/α } = θ̂ ± √(2V(V+τ²)/τ² · (ln(1/α) + ½ ln((V+τ²)/V)))
 * is a (1−α) confidence sequence: valid at every look, so the team may read
 * the report whenever it likes without inflating false positives.
 */
import binomialCdf from "@stdlib/stats-base-dists-binomial-cdf";
import chisquareCdf from "@stdlib/stats-base-dists-chisquare-cdf";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";

export interface Proportion {
  readonly successes: number;
  readonly trials: number;
}

const rate = (p: Proportion) => (p.trials > 0 ? p.successes / p.trials : 0);
/** Variance of a rate's estimate; the rate is kept half a trial away from 0 and 1, so an all-0 or all-1 arm still has one. */
const varianceOf = (p: Proportion) => {
  const n = Math.max(1, p.trials);
  const r = Math.min(Math.max(rate(p), 0.5 / n), 1 - 0.5 / n);
  return (r * (1 - r)) / n;
};

export interface ZTest {
  readonly difference: number;
  readonly ci95: readonly [number, number];
  readonly z: number;
  readonly pValue: number;
}

/** Two-sided two-proportion z-test (pooled standard error) and the unpooled 95 % interval of p_T − p_C. */
export function twoProportionZTest(control: Proportion, treatment: Proportion): ZTest {
  const d = rate(treatment) - rate(control);
  const pooled = (control.successes + treatment.successes) / Math.max(1, control.trials + treatment.trials);
  const sePooled = Math.sqrt(pooled * (1 - pooled) * (1 / Math.max(1, control.trials) + 1 / Math.max(1, treatment.trials)));
  const z = sePooled > 0 ? d / sePooled : 0;
  const se = Math.sqrt(varianceOf(control) + varianceOf(treatment));
  const q = normalQuantile(0.975, 0, 1);
  return { difference: d, ci95: [d - q * se, d + q * se], z, pValue: 2 * (1 - normalCdf(Math.abs(z), 0, 1)) };
}

export interface Sequential {
  readonly difference: number;
  /** 1 / Λ(0) at this look; the always-valid p-value is the running minimum of these over looks. */
  readonly pValue: number;
  /** The (1 − α) confidence sequence for p_T − p_C. */
  readonly confidenceSequence: readonly [number, number];
}

export const MSPRT_DEFAULTS = { tau: 0.02, alpha: 0.05 } as const;

/** The normal-mixture likelihood ratio at θ₀ = 0 and the confidence sequence, for an estimate d with variance v. */
export function mixture(d: number, v: number, opts: { tau?: number; alpha?: number }): Sequential {
  const tau2 = (opts.tau ?? MSPRT_DEFAULTS.tau) ** 2;
  const alpha = opts.alpha ?? MSPRT_DEFAULTS.alpha;
  const logLambda = 0.5 * Math.log(v / (v + tau2)) + (tau2 * d * d) / (2 * v * (v + tau2));
  const half = Math.sqrt(((2 * v * (v + tau2)) / tau2) * (Math.log(1 / alpha) + 0.5 * Math.log((v + tau2) / v)));
  return { difference: d, pValue: Math.min(1, Math.exp(-logLambda)), confidenceSequence: [d - half, d + half] };
}

/** mSPRT of p_T − p_C. */
export function msprt(control: Proportion, treatment: Proportion, opts: { tau?: number; alpha?: number } = {}): Sequential {
  const d = rate(treatment) - rate(control);
  if (control.trials === 0 || treatment.trials === 0) return { difference: d, pValue: 1, confidenceSequence: [-1, 1] };
  return mixture(d, varianceOf(control) + varianceOf(treatment), opts);
}

/** mSPRT of one proportion against a fixed p₀ (interleaving: the treatment's share of decided searches against ½). */
export function msprtOneSample(sample: Proportion, p0: number, opts: { tau?: number; alpha?: number } = {}): Sequential {
  if (sample.trials === 0) return { difference: 0, pValue: 1, confidenceSequence: [-1, 1] };
  return mixture(rate(sample) - p0, varianceOf(sample), opts);
}

export interface Srm {
  readonly chiSquare: number;
  readonly pValue: number;
  /** Flagged at p < 0.001, the usual SRM threshold. */
  readonly mismatch: boolean;
}

export const SRM_ALPHA = 0.001;

/** Sample-ratio mismatch: Pearson's chi-square of observed counts against the expected weights. */
export function sampleRatioMismatch(observed: readonly number[], weights: readonly number[]): Srm {
  const n = observed.reduce((a, b) => a + b, 0);
  const w = weights.reduce((a, b) => a + b, 0);
  let chi = 0;
  observed.forEach((o, j) => {
    const e = (n * (weights[j] ?? 0)) / w;
    if (e > 0) chi += (o - e) ** 2 / e;
  });
  const df = observed.length - 1;
  const pValue = n === 0 || df < 1 ? 1 : 1 - chisquareCdf(chi, df);
  return { chiSquare: chi, pValue, mismatch: pValue < SRM_ALPHA };
}

/** Two-sided sign test (exact binomial, p = ½) of wins against losses; ties are left out. */
export function signTest(wins: number, losses: number): number {
  const n = wins + losses;
  if (n === 0) return 1;
  const k = Math.min(wins, losses);
  return Math.min(1, 2 * binomialCdf(k, n, 0.5));
}

/** Minimum detectable absolute difference of proportions at these sample sizes (two-sided α, power 1 − β). */
export function minimumDetectableEffect(baseline: number, nControl: number, nTreatment: number, alpha = 0.05, power = 0.8): number {
  if (nControl === 0 || nTreatment === 0) return Number.POSITIVE_INFINITY;
  const p = Math.min(Math.max(baseline, 1e-6), 1 - 1e-6);
  return (normalQuantile(1 - alpha / 2, 0, 1) + normalQuantile(power, 0, 1)) * Math.sqrt(p * (1 - p) * (1 / nControl + 1 / nTreatment));
}

export type Verdict = "treatment better" | "treatment worse" | "no detectable difference yet";

/** The verdict line: the always-valid p-value below α decides, its sign says which way. */
export function verdictOf(difference: number, alwaysValidP: number, alpha: number = MSPRT_DEFAULTS.alpha): Verdict {
  if (alwaysValidP >= alpha) return "no detectable difference yet";
  return difference > 0 ? "treatment better" : "treatment worse";
}

/** The p-th percentile (0–100) of ascending values, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}
