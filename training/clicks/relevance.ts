/**
 * Graded relevance per (query, item) from the click model, with a confidence
 * (issue 23 §3), pure.
 *
 * Exposure e = Σ over impressions of θ_position × the key's weight: how many
 * times the item was examined, in expectation (PBM, pbm.ts). The evidence is
 * what examiners did: C keys clicked, A added to cart, P bought (each key
 * once per kind and pair, spam.ts). The utility
 *     u = (C + cartWeight·A + purchaseWeight·P + prior·μ) / (e + prior)
 * is a Gamma–Poisson posterior mean of the feedback per examination (μ: the
 * log's mean, `prior` pseudo-examinations of it), so a purchase weighs three
 * clicks and an item seen once by one clicker does not jump to Exact.
 * Confidence = e / (e + prior): the weight of the data against the prior.
 *
 * An item is judged for a query once e ≥ minExposure; then it is Exact (u ≥
 * exact), Partial (u ≥ partial) or Irrelevant. Never shown, or shown where
 * nobody looks, is unknown: not in the judged set at all, so the reward
 * (training/rewards.ts) never counts it against a round that retrieves it.
 */
import type { PbmFit } from "./pbm.js";

export const CLICK_GRADES = {
  cartWeight: 1,
  purchaseWeight: 2,
  /** Pseudo-examinations at the log's mean feedback rate. */
  prior: 2,
  /** Expected examinations before a pair is judged at all. */
  minExposure: 1,
  /** WANDS-like grades: Partial when examiners act on it one time in five, Exact one in two (or bought). */
  partial: 0.2,
  exact: 0.5,
} as const;

export type ClickGrade = "Exact" | "Partial" | "Irrelevant";

export interface PairEvidence {
  /** Expected examinations (θ-weighted impressions). */
  readonly exposure: number;
  readonly clicks: number;
  readonly carts: number;
  readonly purchases: number;
}

export interface GradedPair extends PairEvidence {
  readonly utility: number;
  readonly confidence: number;
  readonly grade: ClickGrade | null;
}

/** Expected examinations of each pair: Σ shown × θ_position. */
export function exposures(pairs: number, imp: { pair: ArrayLike<number>; position: ArrayLike<number>; shown: ArrayLike<number> }, fit: PbmFit): Float64Array {
  const e = new Float64Array(pairs);
  for (let j = 0; j < imp.pair.length; j++) {
    const p = imp.pair[j] as number;
    e[p] = (e[p] as number) + (imp.shown[j] as number) * (fit.theta[(imp.position[j] as number) - 1] as number);
  }
  return e;
}

/** Feedback weighed by kind: a click 1, an add-to-cart 1 more, a purchase 2 more. */
export const weightedFeedback = (p: PairEvidence): number => p.clicks + CLICK_GRADES.cartWeight * p.carts + CLICK_GRADES.purchaseWeight * p.purchases;

/** The log's mean feedback per examination (μ of the prior). */
export function meanRate(ev: Iterable<PairEvidence>): number {
  let num = 0;
  let den = 0;
  for (const p of ev) {
    num += weightedFeedback(p);
    den += p.exposure;
  }
  return den > 0 ? num / den : 0;
}

export function grade(p: PairEvidence, mu: number): GradedPair {
  const g = CLICK_GRADES;
  const utility = (weightedFeedback(p) + g.prior * mu) / (p.exposure + g.prior);
  const confidence = p.exposure / (p.exposure + g.prior);
  const judged = p.exposure >= g.minExposure;
  return {
    ...p,
    utility,
    confidence,
    grade: !judged ? null : utility >= g.exact ? "Exact" : utility >= g.partial ? "Partial" : "Irrelevant",
  };
}
