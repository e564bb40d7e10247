/**
 * Adam over the policy's parameters: dense feature weights and sparse
 * per-keyword weights. Its state is plain data, so checkpoints can hold it.
 */

import type { Candidate } from "../core/policy-candidates.js";
import { addFeatureGradient, type PolicyParams, WEIGHT_COUNT } from "../core/policy-features.js";

/**
 * keywordLrScale: per-keyword weights learn slower than the shared feature
 * weights, so what generalises to unseen queries and items (the features)
 * carries more of the policy than what memorises the training keywords.
 */
export const ADAM_DEFAULTS = { beta1: 0.9, beta2: 0.999, epsilon: 1e-8, keywordLrScale: 0.3 } as const;

export interface AdamState {
  step: number;
  m: number[];
  v: number[];
  km: Record<string, number>;
  kv: Record<string, number>;
}

export const newAdamState = (): AdamState => ({ step: 0, m: Array(WEIGHT_COUNT).fill(0), v: Array(WEIGHT_COUNT).fill(0), km: {}, kv: {} });

/** Gradient with respect to the parameters from dL/dz of each candidate. */
export class Gradient {
  readonly dense = new Float64Array(WEIGHT_COUNT);
  readonly sparse = new Map<string, number>();

  add(c: Candidate, dz: number): void {
    if (dz === 0) return;
    addFeatureGradient(this.dense, c.features, dz);
    this.sparse.set(c.keyword, (this.sparse.get(c.keyword) ?? 0) + dz);
  }
}

export function adamStep(params: PolicyParams, state: AdamState, grad: Gradient, lr: number): void {
  const { beta1, beta2, epsilon } = ADAM_DEFAULTS;
  state.step++;
  const c1 = 1 - beta1 ** state.step;
  const c2 = 1 - beta2 ** state.step;
  for (let f = 0; f < WEIGHT_COUNT; f++) {
    const g = grad.dense[f] as number;
    state.m[f] = beta1 * (state.m[f] as number) + (1 - beta1) * g;
    state.v[f] = beta2 * (state.v[f] as number) + (1 - beta2) * g * g;
    params.weights[f] = (params.weights[f] as number) - (lr * ((state.m[f] as number) / c1)) / (Math.sqrt((state.v[f] as number) / c2) + epsilon);
  }
  // Lazy (sparse) Adam: only keywords with a gradient this step move.
  for (const [k, g] of [...grad.sparse].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const m = beta1 * (state.km[k] ?? 0) + (1 - beta1) * g;
    const v = beta2 * (state.kv[k] ?? 0) + (1 - beta2) * g * g;
    state.km[k] = m;
    state.kv[k] = v;
    params.keywordWeights.set(k, (params.keywordWeights.get(k) ?? 0) - (lr * ADAM_DEFAULTS.keywordLrScale * (m / c1)) / (Math.sqrt(v / c2) + epsilon));
  }
}
