/**
 * One training phase, split into its parts: rollout (sample G sets per input
 * with the current policy), reward (the frozen environment), advantage
 * (grpo.ts) and update (Adam on the clipped surrogate). Phase 1's supervised
 * initialisation uses the same update path with a cross-entropy loss.
 */

import { logits } from "../core/policy.js";
import type { Candidate } from "../core/policy-candidates.js";
import type { PolicyParams } from "../core/policy-features.js";
import type { Rng } from "../core/rng.js";
import { contextLogit, type SetDecision, sampleSequential } from "../core/set-policy.js";
import { clippedSurrogate, type Decision, GRPO_DEFAULTS, grpoAdvantages, supervisedLoss } from "./grpo.js";
import { type AdamState, adamStep, Gradient } from "./optimizer.js";

export interface Rollout {
  readonly input: number;
  /** Every decision taken, with its candidate as it saw it (set features filled in when sequential) and the logit that sampled it. */
  readonly decisions: readonly SetDecision[];
  readonly keywords: string[];
}

/**
 * Rollout: G keyword sets per input, each with the decisions that drew it:
 * independent Bernoullis (the item side), or sequential ones that see the
 * keywords kept so far (the query side, core/set-policy.ts) when `sequentialKMax` is set.
 */
export function rollout(
  params: PolicyParams,
  candidates: ReadonlyArray<readonly Candidate[]>,
  batch: readonly number[],
  groupSize: number,
  rng: Rng,
  sequentialKMax?: number,
): Rollout[] {
  const out: Rollout[] = [];
  for (const input of batch) {
    const cands = candidates[input] as readonly Candidate[];
    const zOld = sequentialKMax === undefined ? logits(params, cands) : null;
    for (let g = 0; g < groupSize; g++) {
      let decisions: SetDecision[];
      if (zOld) {
        decisions = cands.map((c, j) => {
          const z = zOld[j] as number;
          return { candidate: c, z, action: rng.next() < 1 / (1 + Math.exp(-z)) ? 1 : 0 };
        });
      } else decisions = sampleSequential(params, cands, sequentialKMax as number, rng);
      out.push({ input, decisions, keywords: decisions.filter((d) => d.action === 1).map((d) => d.candidate.keyword) });
    }
  }
  return out;
}

export interface StepStats {
  readonly meanReward: number;
  readonly loss: number;
  readonly meanKeywords: number;
  readonly clippedFraction: number;
}

export interface RlStepOptions {
  readonly lr: number;
  readonly groupSize?: number;
  readonly clipRatio?: number;
  /** Gradient steps on one batch of rollouts (1 = strictly on-policy, as the paper's mini batch = train batch). */
  readonly updatesPerBatch?: number;
  /** Decide in sequence, each decision seeing the kept set, up to this many keywords (the query side; core/set-policy.ts). */
  readonly sequentialKMax?: number;
}

/** One GRPO step on a batch of inputs: rollout → reward → advantage → update. */
export function grpoStep(
  params: PolicyParams,
  adam: AdamState,
  candidates: ReadonlyArray<readonly Candidate[]>,
  batch: readonly number[],
  reward: (input: number, keywords: readonly string[]) => number,
  rng: Rng,
  opts: RlStepOptions,
): StepStats {
  const groupSize = opts.groupSize ?? GRPO_DEFAULTS.groupSize;
  const rollouts = rollout(params, candidates, batch, groupSize, rng, opts.sequentialKMax);
  const rewards = rollouts.map((r) => reward(r.input, r.keywords));
  const advantages = grpoAdvantages(rewards, groupSize);
  let loss = 0;
  let clippedFraction = 0;
  const updates = opts.updatesPerBatch ?? 1;
  for (let u = 0; u < updates; u++) {
    const decisions: Decision[] = [];
    const owners: Candidate[] = [];
    rollouts.forEach((r, k) => {
      for (const d of r.decisions) {
        // Each decision is re-scored in the context it was taken in (on-policy at u = 0).
        const z = u === 0 ? d.z : contextLogit(params, d.candidate);
        decisions.push({ z, zOld: d.z, action: d.action, advantage: advantages[k] as number });
        owners.push(d.candidate);
      }
    });
    const s = clippedSurrogate(decisions, opts.clipRatio);
    const grad = new Gradient();
    owners.forEach((c, d) => {
      grad.add(c, s.dz[d] as number);
    });
    adamStep(params, adam, grad, opts.lr);
    loss = s.loss;
    clippedFraction = s.clippedFraction;
  }
  return {
    meanReward: rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length),
    loss,
    meanKeywords: rollouts.reduce((a, r) => a + r.keywords.length, 0) / Math.max(1, rollouts.length),
    clippedFraction,
  };
}

/** One supervised step (Alg. 1, lines 9–10): push each candidate toward its target keep/drop label. */
export function sftStep(
  params: PolicyParams,
  adam: AdamState,
  candidates: ReadonlyArray<readonly Candidate[]>,
  targets: ReadonlyArray<ReadonlySet<string>>,
  batch: readonly number[],
  lr: number,
): number {
  const grad = new Gradient();
  let loss = 0;
  let n = 0;
  const total = batch.reduce((s, i) => s + (candidates[i]?.length ?? 0), 0);
  for (const i of batch) {
    const cands = candidates[i] as readonly Candidate[];
    const z = logits(params, cands);
    const y = cands.map((c) => (targets[i]?.has(c.keyword) ? 1 : 0));
    const s = supervisedLoss(z, y);
    // supervisedLoss averages per input; rescale so the batch is a mean over all decisions.
    cands.forEach((c, j) => {
      grad.add(c, ((s.dz[j] as number) * cands.length) / Math.max(1, total));
    });
    loss += s.loss * cands.length;
    n += cands.length;
  }
  adamStep(params, adam, grad, lr);
  return loss / Math.max(1, n);
}

/** Batches of a seeded permutation: one epoch. */
export function epochBatches(count: number, batchSize: number, rng: Rng): number[][] {
  const order = rng.shuffle(Array.from({ length: count }, (_, j) => j));
  const out: number[][] = [];
  for (let j = 0; j < order.length; j += batchSize) out.push(order.slice(j, j + batchSize));
  return out;
}
