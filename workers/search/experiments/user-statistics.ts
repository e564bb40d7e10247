/**
 * Per-user statistics, as pure functions over sums the SQL computes
 * (counted.ts), so a report never holds its users in memory.
 *
 * The unit is the user, not the search: a user's searches share a taste, a
 * device and a session, so counting them as independent understates the
 * variance. Each user contributes one value y (and, for CUPED, one covariate
 * x), weighted w: the user's network prefix counts for at most
 * COUNTING_LIMITS.keysPerPrefixMax users (counting.ts), so w = min(1, 8 / K)
 * for a prefix with K keys. Means and variances are those of frequency
 * weights: n = Σw, ȳ = Σwy / n, s² = Σw(y − ȳ)² / n, Var(ȳ) = s² / n; a
 * prefix of a thousand keys is then 8 users, never a thousand (nor the
 * 0.008 × 1000 tiny-weight users a sandwich estimator would take them for).
 *
 * CUPED (Deng, Xu, Kohavi & Walker, WSDM 2013): with θ = Cov(y, x) / Var(x)
 * pooled within arms, the adjusted difference
 *   Δ̂ = (ȳ_T − ȳ_C) − θ (x̄_T − x̄_C)
 * is unbiased whenever x is unaffected by the assignment, and its variance is
 * Var(ȳ)(1 − ρ²). Both feed the same normal-mixture SPRT (statistics.ts), so
 * the verdict stays always valid.
 */
import { MSPRT_DEFAULTS, mixture, type Sequential } from "./statistics.js";

/** Weighted sums over users: n = Σw, sy = Σwy, sx = Σwx, syy = Σwy², sxx = Σwx², sxy = Σwxy. */
export interface UserMoments {
  readonly n: number;
  readonly sy: number;
  readonly sx: number;
  readonly syy: number;
  readonly sxx: number;
  readonly sxy: number;
}

export const NO_USERS: UserMoments = { n: 0, sy: 0, sx: 0, syy: 0, sxx: 0, sxy: 0 };

/** The moments with one more user (what the SQL's SUMs compute; for tests and simulations). */
export function addUser(m: UserMoments, y: number, x = 0, w = 1): UserMoments {
  return { n: m.n + w, sy: m.sy + w * y, sx: m.sx + w * x, syy: m.syy + w * y * y, sxx: m.sxx + w * x * x, sxy: m.sxy + w * x * y };
}

/** Mixture scales, on each statistic's own scale: τ for a difference of per-user CTRs (as for per-search CTR) and for a mean preference in [−1, 1] (2 × the win-share scale of 0.1). */
export const USER_MIXTURE = { ctrTau: 0.02, preferenceTau: 0.2 } as const;

/** Within-arm centred sums: Σw(y − ȳ)², Σw(x − x̄)², Σw(x − x̄)(y − ȳ). */
function centred(m: UserMoments) {
  if (m.n <= 0) return { yy: 0, xx: 0, xy: 0 };
  return {
    yy: Math.max(0, m.syy - (m.sy * m.sy) / m.n),
    xx: Math.max(0, m.sxx - (m.sx * m.sx) / m.n),
    xy: m.sxy - (m.sx * m.sy) / m.n,
  };
}

/**
 * Var(ȳ) = s² / n, kept at least that of half a user away from the range's
 * ends (as statistics.ts keeps a rate half a trial from 0 and 1), so an arm
 * whose users all agree still has a variance. `range` is y's width.
 */
function varianceOfMean(sumSquares: number, n: number, range: number): number {
  const m = Math.max(1, n);
  const r = 0.5 / m;
  return Math.max(sumSquares / m, range * range * r * (1 - r)) / m;
}

export interface Cuped {
  /** θ = Σ_arms Σw(x − x̄)(y − ȳ) / Σ_arms Σw(x − x̄)²; 0 without covariate variance. */
  readonly theta: number;
  /** The unadjusted difference of per-user means, ȳ_T − ȳ_C. */
  readonly rawDifference: number;
  /** 1 − Var(Δ̂) / Var(ȳ_T − ȳ_C): the share of variance the covariate removed. */
  readonly varianceReduction: number;
  readonly sequential: Sequential;
}

/** CUPED-adjusted difference of per-user means (treatment − control) and its mixture SPRT; y ranges over [0, 1]. */
export function cupedMsprt(control: UserMoments, treatment: UserMoments, opts: { tau?: number; alpha?: number } = {}): Cuped {
  const mean = (m: UserMoments, s: number) => (m.n > 0 ? s / m.n : 0);
  const raw = mean(treatment, treatment.sy) - mean(control, control.sy);
  const tau = opts.tau ?? USER_MIXTURE.ctrTau;
  const alpha = opts.alpha ?? MSPRT_DEFAULTS.alpha;
  if (control.n <= 0 || treatment.n <= 0)
    return { theta: 0, rawDifference: raw, varianceReduction: 0, sequential: { difference: raw, pValue: 1, confidenceSequence: [-1, 1] } };
  const c = centred(control);
  const t = centred(treatment);
  const theta = c.xx + t.xx > 0 ? (c.xy + t.xy) / (c.xx + t.xx) : 0;
  const d = raw - theta * (mean(treatment, treatment.sx) - mean(control, control.sx));
  // Σw(y − θx − (ȳ − θx̄))² = yy − 2θ xy + θ² xx, per arm.
  const adjusted = (a: typeof c) => Math.max(0, a.yy - 2 * theta * a.xy + theta * theta * a.xx);
  const v = varianceOfMean(adjusted(c), control.n, 1) + varianceOfMean(adjusted(t), treatment.n, 1);
  const vRaw = varianceOfMean(c.yy, control.n, 1) + varianceOfMean(t.yy, treatment.n, 1);
  return { theta, rawDifference: raw, varianceReduction: vRaw > 0 ? 1 - v / vRaw : 0, sequential: mixture(d, v, { tau, alpha }) };
}

/**
 * Mixture SPRT of a mean of per-user values in [−1, 1] against 0
 * (interleaving: each user's preference for the treatment). The variance is
 * taken about 0, Σwy² / n, not about ȳ: under the null the two agree, and
 * the centred one, shrunk by a lucky early streak (nine users of ten one
 * way), let the A/A false-positive rate reach 5.7–8.1 % with looks from 10 users
 * on (scripts/simulate/aa-monte-carlo.ts); about 0 it stays under 5 %.
 */
export function meanPreferenceMsprt(users: UserMoments, opts: { tau?: number; alpha?: number } = {}): Sequential {
  if (users.n <= 0) return { difference: 0, pValue: 1, confidenceSequence: [-1, 1] };
  const d = users.sy / users.n;
  return mixture(d, varianceOfMean(users.syy, users.n, 2), { tau: opts.tau ?? USER_MIXTURE.preferenceTau, alpha: opts.alpha ?? MSPRT_DEFAULTS.alpha });
}

/** A user's preference from their interleaved searches: (won − lost) / (won + lost), in [−1, 1]; null when none was decided. */
export function userPreference(won: number, lost: number): number | null {
  return won + lost > 0 ? (won - lost) / (won + lost) : null;
}
