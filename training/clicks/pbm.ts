/**
 * The position-based click model (PBM), fitted by EM (Chuklin, Markov and de
 * Rijke 2015, §4.2; the propensity estimate of Wang et al. 2018 without
 * features): a shown result is clicked iff it is examined (probability
 * θ_k, by position k alone) and attractive (γ_{q,d}, by query and item
 * alone). θ_1 = 1 fixes the scale, so γ reads as "clicked when examined".
 *
 * EM over aggregated impressions (pair, position, n, c): a click says E = R
 * = 1; a skip splits between "not examined" and "examined, not attractive"
 * by the current θ and γ:
 *   P(E=1, R=0 | skip) = θ(1−γ)/(1−θγ),  P(E=0, R=1 | skip) = (1−θ)γ/(1−θγ).
 * The order of the logs varies (interleaving's team draft, A/B arms, pages
 * of other rounds show the same item at different positions), which is what
 * separates θ from γ; with no variation at all, θ is only as good as the
 * shared-across-queries assumption.
 *
 * γ gets a Beta prior (MAP-EM): `gammaPrior` pseudo-impressions at the log's
 * mean attractiveness. Real logs see most (query, item) pairs a handful of
 * times; with one impression a pair, plain EM explains every click by γ = 1
 * and every skip by γ = 0 and leaves θ ≈ 1 everywhere (measured on
 * `npm run bench:events`' log); the prior pools the pairs, so position is
 * what explains the skips low on the page.
 */

export const PBM_LIMITS = {
  iterations: 200,
  /** Stop when no θ moves more than this. */
  tolerance: 1e-7,
  /** γ and θ stay inside (ε, 1 − ε): a skip at θγ = 1 would be impossible. */
  epsilon: 1e-6,
  /** Pseudo-impressions of γ's Beta prior, centred on the mean attractiveness. */
  gammaPrior: 2,
} as const;

export interface Impressions {
  /** Per entry: the pair (query, item) index, the 1-based position, weighted impressions and weighted clicks. */
  readonly pair: Int32Array | readonly number[];
  readonly position: Int32Array | readonly number[];
  readonly shown: Float64Array | readonly number[];
  readonly clicked: Float64Array | readonly number[];
  readonly pairs: number;
}

export interface PbmFit {
  /** θ by position (index 0 = position 1, which is 1). */
  readonly theta: Float64Array;
  readonly gamma: Float64Array;
  readonly iterations: number;
}

const clamp = (x: number) => Math.min(1 - PBM_LIMITS.epsilon, Math.max(PBM_LIMITS.epsilon, x));

export function fitPbm(imp: Impressions): PbmFit {
  const n = imp.pair.length;
  let maxPos = 1;
  for (let j = 0; j < n; j++) maxPos = Math.max(maxPos, imp.position[j] as number);
  const theta = new Float64Array(maxPos).fill(0.5);
  theta[0] = 1;
  const gamma = new Float64Array(imp.pairs).fill(0.5);
  const tNum = new Float64Array(maxPos);
  const tDen = new Float64Array(maxPos);
  const gNum = new Float64Array(imp.pairs);
  const gDen = new Float64Array(imp.pairs);
  let clicks = 0;
  for (let j = 0; j < n; j++) clicks += imp.clicked[j] as number;
  let it = 0;
  for (; it < PBM_LIMITS.iterations; it++) {
    // The prior's centre: clicks per expected examination under the current θ.
    let examined = 0;
    for (let j = 0; j < n; j++) examined += (imp.shown[j] as number) * (theta[(imp.position[j] as number) - 1] as number);
    const mean = clamp(examined > 0 ? clicks / examined : 0.5);
    tNum.fill(0);
    tDen.fill(0);
    gNum.fill(0);
    gDen.fill(0);
    for (let j = 0; j < n; j++) {
      const p = imp.pair[j] as number;
      const k = (imp.position[j] as number) - 1;
      const s = imp.shown[j] as number;
      const c = imp.clicked[j] as number;
      const t = clamp(theta[k] as number);
      const g = clamp(gamma[p] as number);
      const skip = s - c;
      const denom = 1 - t * g;
      tNum[k] = (tNum[k] as number) + c + (skip * t * (1 - g)) / denom;
      tDen[k] = (tDen[k] as number) + s;
      gNum[p] = (gNum[p] as number) + c + (skip * (1 - t) * g) / denom;
      gDen[p] = (gDen[p] as number) + s;
    }
    let moved = 0;
    for (let k = 1; k < maxPos; k++) {
      if ((tDen[k] as number) === 0) continue;
      const next = (tNum[k] as number) / (tDen[k] as number);
      moved = Math.max(moved, Math.abs(next - (theta[k] as number)));
      theta[k] = next;
    }
    for (let p = 0; p < imp.pairs; p++) gamma[p] = ((gNum[p] as number) + PBM_LIMITS.gammaPrior * mean) / ((gDen[p] as number) + PBM_LIMITS.gammaPrior);
    if (moved < PBM_LIMITS.tolerance) break;
  }
  return { theta, gamma, iterations: it };
}
