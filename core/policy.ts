/**
 * The `lexical` keyword generator: a CPU policy small enough to ship inside a
 * round and run in the worker.
 *
 * Candidates are the input's n-grams, the opposite index's keywords whose
 * words all occur in the input ("containment"), and learned expansions (the
 * opposite index's keywords most associated with each input word, and its
 * longer phrases holding an input word: "extensions"). Each candidate gets a
 * logit z = w·φ + Σ_{a<b} W_ab·φ_a·φ_b + u[keyword]: φ are features that
 * generalise (origin, length, specificity in the opposite index, coverage of
 * the input, association, field, head noun, subsumption by a longer live
 * phrase of the input), W weighs every pair of them, u is a per-keyword
 * weight (a vocabulary feature, not an id of any query or item).
 * The item side draws a keyword set with an independent Bernoulli(σ(z)) per
 * candidate, so log π(S) is a sum; the deterministic mode keeps every z > 0,
 * at most K_max, best first (`decode`). The query side decides in sequence,
 * each decision seeing the keywords already kept (core/set-policy.ts;
 * `decodeQuery` there is what serving runs).
 */
import type { Candidate } from "./policy-candidates.js";
import { F, featureScore, type PolicyParams } from "./policy-features.js";
import type { Rng } from "./rng.js";

export const POLICY_FORMAT = "cogr-lexical-policy";
export const POLICY_VERSION = 7;
/** A policy whose vocabulary has a tail shipped apart (core/policy-tail.ts): what a version-7 reader would silently ignore. */
export const POLICY_VERSION_TAIL = 8;

export function logits(params: PolicyParams, cands: readonly Candidate[]): Float64Array {
  const z = new Float64Array(cands.length);
  cands.forEach((c, j) => {
    z[j] = (params.keywordWeights.get(c.keyword) ?? 0) + featureScore(params.weights, c.features);
  });
  return z;
}

/** log σ(z) and log(1 − σ(z)), computed stably. */
export function logSigmoid(z: number): number {
  return z >= 0 ? -Math.log1p(Math.exp(-z)) : z - Math.log1p(Math.exp(z));
}

/** Draws one keyword set: chosen[j] = 1 with probability σ(z_j), independently. */
export function sampleSet(params: PolicyParams, cands: readonly Candidate[], rng: Rng): Uint8Array {
  const z = logits(params, cands);
  const chosen = new Uint8Array(cands.length);
  for (let j = 0; j < z.length; j++) chosen[j] = rng.next() < 1 / (1 + Math.exp(-(z[j] as number))) ? 1 : 0;
  return chosen;
}

/** log π(S) = Σ_j log p(chosen_j). */
export function setLogProb(params: PolicyParams, cands: readonly Candidate[], chosen: Uint8Array): number {
  const z = logits(params, cands);
  let s = 0;
  for (let j = 0; j < z.length; j++) s += chosen[j] ? logSigmoid(z[j] as number) : logSigmoid(-(z[j] as number));
  return s;
}

/** Candidates with their logits, best first (ties by keyword, so decoding is deterministic). */
export function ranked(params: PolicyParams, cands: readonly Candidate[]): Array<{ keyword: string; z: number; known: boolean; candidate: Candidate }> {
  const z = logits(params, cands);
  return cands
    .map((c, j) => ({ keyword: c.keyword, z: z[j] as number, known: c.features[F.unknownOpposite] === 0, candidate: c }))
    .sort((a, b) => b.z - a.z || (a.keyword < b.keyword ? -1 : 1));
}

/**
 * Deterministic decoding for indexing and serving: every z > minLogit (the
 * policy's mode at 0), best first, at most kMax.
 */
export function decode(params: PolicyParams, cands: readonly Candidate[], kMax: number, minLogit = 0): string[] {
  return ranked(params, cands)
    .filter((r) => r.z > minLogit)
    .slice(0, kMax)
    .map((r) => r.keyword);
}

export const chosenKeywords = (cands: readonly Candidate[], chosen: Uint8Array) => cands.filter((_, j) => chosen[j]).map((c) => c.keyword);
