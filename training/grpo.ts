/**
 * GRPO for the lexical policy, as small pure functions.
 *
 * Advantages follow verl's compute_grpo_outcome_advantage: within each group
 * of G rollouts of the same input, A = (r − mean) / (std + ε), std unbiased,
 * and a group of one gets mean 0, std 1. The loss is the clipped surrogate
 * with no KL term, averaged over decisions ("token-mean"): each candidate's
 * keep/drop decision is one token, with ratio π_new(a)/π_old(a).
 */
export const GRPO_DEFAULTS = { groupSize: 8, clipRatio: 0.2, epsilon: 1e-6 } as const;

export function grpoAdvantages(rewards: ArrayLike<number>, groupSize: number, normByStd = true, epsilon: number = GRPO_DEFAULTS.epsilon): Float64Array {
  if (rewards.length % groupSize !== 0) throw new RangeError("rewards must come in whole groups");
  const out = new Float64Array(rewards.length);
  for (let g = 0; g < rewards.length; g += groupSize) {
    let mean = 0;
    let std = 1;
    if (groupSize > 1) {
      for (let j = 0; j < groupSize; j++) mean += rewards[g + j] as number;
      mean /= groupSize;
      let v = 0;
      for (let j = 0; j < groupSize; j++) v += ((rewards[g + j] as number) - mean) ** 2;
      std = Math.sqrt(v / (groupSize - 1));
    }
    for (let j = 0; j < groupSize; j++) {
      const centred = (rewards[g + j] as number) - mean;
      out[g + j] = normByStd ? centred / (std + epsilon) : centred;
    }
  }
  return out;
}

export interface Decision {
  /** Logit under the current parameters. */
  readonly z: number;
  /** Logit under the parameters that sampled the rollout. */
  readonly zOld: number;
  /** 1 = keyword kept, 0 = dropped. */
  readonly action: 0 | 1;
  readonly advantage: number;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const logProb = (z: number, a: 0 | 1) => (a === 1 ? -Math.log1p(Math.exp(-z)) : -Math.log1p(Math.exp(z)));

/**
 * Clipped surrogate over decisions, L = −mean_d min(ρ_d A_d, clip(ρ_d, 1 − c, 1 + c) A_d),
 * and dL/dz_d (zero where the clipped branch is the minimum).
 */
export function clippedSurrogate(
  decisions: readonly Decision[],
  clipRatio: number = GRPO_DEFAULTS.clipRatio,
): { loss: number; dz: Float64Array; clippedFraction: number } {
  const n = decisions.length;
  const dz = new Float64Array(n);
  if (n === 0) return { loss: 0, dz, clippedFraction: 0 };
  let loss = 0;
  let clipped = 0;
  decisions.forEach((d, j) => {
    const ratio = Math.exp(logProb(d.z, d.action) - logProb(d.zOld, d.action));
    const unclipped = ratio * d.advantage;
    const bounded = Math.min(Math.max(ratio, 1 - clipRatio), 1 + clipRatio) * d.advantage;
    loss -= Math.min(unclipped, bounded);
    if (bounded < unclipped) clipped++;
    // d ratio / dz = ratio · d log π(a)/dz = ratio · (a − σ(z))
    else dz[j] = (-d.advantage * ratio * (d.action - sigmoid(d.z))) / n;
  });
  return { loss: loss / n, dz, clippedFraction: clipped / n };
}

/** Binary cross-entropy toward target keep/drop labels (Phase 1, SFT), mean over decisions, with dL/dz. */
export function supervisedLoss(z: ArrayLike<number>, targets: ArrayLike<number>): { loss: number; dz: Float64Array } {
  const n = z.length;
  const dz = new Float64Array(n);
  let loss = 0;
  for (let j = 0; j < n; j++) {
    const y = targets[j] as number;
    const zj = z[j] as number;
    loss -= y * logProb(zj, 1) + (1 - y) * logProb(zj, 0);
    dz[j] = (sigmoid(zj) - y) / Math.max(1, n);
  }
  return { loss: loss / Math.max(1, n), dz };
}
