/**
 * The item phase's GRPO step as map and reduce, so it can run on several
 * threads (training/parallel/pool.ts) or machines (DESIGN.md "Beyond one
 * machine") and give the same result whatever their number.
 *
 * The batch is cut into chunks of `chunkInputs` inputs, in batch order, and
 * each chunk gets its own seed, drawn from the run's RNG in chunk order. The
 * map takes one chunk to its rollouts (G independent Bernoulli sets per
 * input, core/policy.ts), their rewards (eq. 2.3 through App. B.3's
 * incremental context), the group-normalised advantages (grpo.ts) and the
 * clipped surrogate's gradient sums, token-mean over the whole batch's
 * decisions (each candidate's dL/dz summed over its group's G rollouts
 * before its feature gradient is added: G times fewer feature-pair sums than
 * the serial step, which adds them decision by decision). The reduce adds the chunks' sums in chunk order and takes one
 * Adam step. Neither the chunks, their seeds nor the order of the sums depend
 * on which thread ran a chunk, so 1 and N workers agree bit for bit.
 */

import { logits } from "../../core/policy.js";
import type { Candidate } from "../../core/policy-candidates.js";
import type { PolicyParams } from "../../core/policy-features.js";
import { WEIGHT_COUNT } from "../../core/policy-features.js";
import { Rng } from "../../core/rng.js";
import { clippedSurrogate, type Decision, GRPO_DEFAULTS, grpoAdvantages, supervisedLoss } from "../grpo.js";
import { Gradient } from "../optimizer.js";
import { rollout } from "../phase.js";

export const MAP_DEFAULTS = { chunkInputs: 32 } as const;

export interface ChunkTask {
  /** The chunk's place in the batch: results are reduced in this order. */
  readonly index: number;
  /** Item ordinals. */
  readonly items: readonly number[];
  readonly seed: number;
  /** Decisions in the whole batch (G × Σ candidates), the token-mean's denominator. */
  readonly batchDecisions: number;
}

export interface ChunkResult {
  readonly index: number;
  readonly dense: Float64Array;
  readonly sparse: Array<[string, number]>;
  readonly rewardSum: number;
  readonly rollouts: number;
  /** Σ over the chunk's decisions of the surrogate's loss terms and clipped decisions. */
  readonly lossSum: number;
  readonly clipped: number;
  readonly decisions: number;
  readonly keywords: number;
}

/** Cuts a batch into chunk tasks, drawing one seed per chunk from `rng`. */
export function chunkTasks(batch: readonly number[], batchDecisions: number, rng: Rng, chunkInputs: number = MAP_DEFAULTS.chunkInputs): ChunkTask[] {
  const out: ChunkTask[] = [];
  for (let j = 0; j < batch.length; j += chunkInputs) {
    out.push({ index: out.length, items: batch.slice(j, j + chunkInputs), seed: Math.floor(rng.next() * 2 ** 32), batchDecisions });
  }
  return out;
}

/** The map: one chunk → rollouts, rewards, advantages and gradient sums. */
export function mapChunk(
  params: PolicyParams,
  candidates: (item: number) => readonly Candidate[],
  reward: (item: number, keywords: readonly string[]) => number,
  task: ChunkTask,
  groupSize: number,
  clipRatio: number = GRPO_DEFAULTS.clipRatio,
): ChunkResult {
  const local = task.items.map(candidates);
  const rollouts = rollout(
    params,
    local,
    local.map((_, j) => j),
    groupSize,
    new Rng(task.seed),
  );
  const rewards = rollouts.map((r) => reward(task.items[r.input] as number, r.keywords));
  const advantages = grpoAdvantages(rewards, groupSize);
  const decisions: Decision[] = [];
  rollouts.forEach((r, k) => {
    for (const d of r.decisions) decisions.push({ z: d.z, zOld: d.z, action: d.action, advantage: advantages[k] as number });
  });
  const s = clippedSurrogate(decisions, clipRatio);
  // clippedSurrogate averages over this chunk's decisions; the batch's token-mean divides by all of the batch's.
  const scale = decisions.length / Math.max(1, task.batchDecisions);
  // The G rollouts of an input decide over the same candidates: their dL/dz are summed per candidate first, so
  // each candidate's feature gradient (its feature pairs) is added once, not G times.
  const perCandidate = local.map((c) => new Float64Array(c.length));
  let d = 0;
  for (const r of rollouts) {
    const sums = perCandidate[r.input] as Float64Array;
    for (let j = 0; j < r.decisions.length; j++) sums[j] = (sums[j] as number) + (s.dz[d++] as number);
  }
  const grad = new Gradient();
  local.forEach((cands, i) => {
    const sums = perCandidate[i] as Float64Array;
    cands.forEach((c, j) => {
      grad.add(c, (sums[j] as number) * scale);
    });
  });
  return {
    index: task.index,
    dense: grad.dense,
    sparse: [...grad.sparse],
    rewardSum: rewards.reduce((a, b) => a + b, 0),
    rollouts: rewards.length,
    lossSum: s.loss * decisions.length,
    clipped: s.clippedFraction * decisions.length,
    decisions: decisions.length,
    keywords: rollouts.reduce((a, r) => a + r.keywords.length, 0),
  };
}

export interface SftTask {
  readonly index: number;
  readonly items: readonly number[];
  /** Each item's target keywords (Alg. 1: its round-0 S_i). */
  readonly targets: ReadonlyArray<readonly string[]>;
  /** Candidates in the whole batch: Phase 1's loss is a mean over all of the batch's keep/drop decisions. */
  readonly batchDecisions: number;
}

/** Phase 1's map (Alg. 1, lines 9–10): one chunk → the cross-entropy's gradient sums toward the targets. */
export function sftChunk(params: PolicyParams, candidates: (item: number) => readonly Candidate[], task: SftTask): ChunkResult {
  const grad = new Gradient();
  let lossSum = 0;
  let decisions = 0;
  task.items.forEach((item, j) => {
    const cands = candidates(item);
    const target = new Set(task.targets[j]);
    const s = supervisedLoss(
      logits(params, cands),
      cands.map((c) => (target.has(c.keyword) ? 1 : 0)),
    );
    // supervisedLoss averages per input; rescaled so the batch is a mean over all decisions (as the serial sftStep).
    cands.forEach((c, d) => {
      grad.add(c, ((s.dz[d] as number) * cands.length) / Math.max(1, task.batchDecisions));
    });
    lossSum += s.loss * cands.length;
    decisions += cands.length;
  });
  return { index: task.index, dense: grad.dense, sparse: [...grad.sparse], rewardSum: 0, rollouts: 0, lossSum, clipped: 0, decisions, keywords: 0 };
}

/** The reduce: the chunks' gradient sums added in chunk order (whatever order they arrived in). */
export function reduceChunks(results: readonly ChunkResult[]): {
  grad: Gradient;
  meanReward: number;
  loss: number;
  clippedFraction: number;
  meanKeywords: number;
} {
  const sorted = [...results].sort((a, b) => a.index - b.index);
  const grad = new Gradient();
  let rewardSum = 0;
  let rollouts = 0;
  let lossSum = 0;
  let clipped = 0;
  let decisions = 0;
  let keywords = 0;
  for (const r of sorted) {
    keywords += r.keywords;
    for (let f = 0; f < WEIGHT_COUNT; f++) grad.dense[f] = (grad.dense[f] as number) + (r.dense[f] as number);
    for (const [k, g] of r.sparse) grad.sparse.set(k, (grad.sparse.get(k) ?? 0) + g);
    rewardSum += r.rewardSum;
    rollouts += r.rollouts;
    lossSum += r.lossSum;
    clipped += r.clipped;
    decisions += r.decisions;
  }
  return {
    grad,
    meanReward: rewardSum / Math.max(1, rollouts),
    loss: lossSum / Math.max(1, decisions),
    clippedFraction: clipped / Math.max(1, decisions),
    meanKeywords: keywords / Math.max(1, rollouts),
  };
}
