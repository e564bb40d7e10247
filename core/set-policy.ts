/**
 * Set-aware decoding for the query policy (issue: "small woven pouf" kept
 * "small pouf", 2 items, and dropped "pouf", 44 relevant; decided alone, no
 * candidate can know what the others already retrieve).
 *
 * Autoregressive Bernoullis over a ranked list: the candidates are ordered by
 * their logit without set context (policy.ts), then visited in that order;
 * candidate j is kept with probability σ(z_j(S_<j)), where S_<j is what was
 * kept before it and the set features (setEmpty, setCovered, …) describe
 * S_<j relative to j: is the set still empty, does it already hold all of j's
 * words, or some, does it hold the head noun, how broad is its broadest
 * keyword in the opposite index. The walk stops at K_max kept. The same
 * degree-2 score prices them, so "nothing broad kept yet × this is the head
 * noun" is one pair weight.
 *
 *   log π(S) = Σ_{j visited} log Bernoulli(a_j; σ(z_j(S_<j))))
 *
 * stays a sum of per-decision terms, so GRPO's clipped surrogate (training/
 * grpo.ts) applies per decision unchanged: each decision is a token with its
 * own context. With every set weight 0 it decodes exactly as independent
 * decisions do.
 */

import { decode, logits, ranked } from "./policy.js";
import { type Candidate, POLICY_LIMITS } from "./policy-candidates.js";
import { FEATURE_COUNT, FEATURES, featureScore, type PolicyParams, pairWeightIndex } from "./policy-features.js";
import type { Rng } from "./rng.js";

const F = Object.fromEntries(FEATURES.map((f, j) => [f, j])) as Record<(typeof FEATURES)[number], number>;

/** One decision of a walk: the candidate with its set features filled in, its logit then, and what was done. */
export interface SetDecision {
  readonly candidate: Candidate;
  readonly z: number;
  readonly action: 0 | 1;
}

/** The candidate as decision j sees it: its features, with the set features of S_<j. */
export function inContext(c: Candidate, kept: readonly Candidate[]): Candidate {
  const f = c.features.slice();
  const words = c.words ?? [];
  const keptWords = new Set(kept.flatMap((k) => k.words ?? []));
  const covered = kept.length > 0 && words.length > 0 && words.every((w) => keptWords.has(w));
  f[F.setEmpty] = kept.length === 0 ? 1 : 0;
  f[F.setCovered] = covered ? 1 : 0;
  f[F.setSharesWord] = !covered && words.some((w) => keptWords.has(w)) ? 1 : 0;
  f[F.setHeadKept] = kept.some((k) => k.features[F.containsHead] === 1) ? 1 : 0;
  const maxDf = kept.reduce((m, k) => Math.max(m, k.df ?? 0), -1);
  f[F.setMaxDfUpTo5] = maxDf >= 0 && maxDf <= 5 ? 1 : 0;
  f[F.setMaxDfUpTo50] = maxDf > 5 && maxDf <= 50 ? 1 : 0;
  f[F.setMaxDfOver50] = maxDf > 50 ? 1 : 0;
  return { ...c, features: f };
}

/** A decision's logit: its keyword weight plus the degree-2 score of its features in context. */
export const contextLogit = (params: PolicyParams, c: Candidate) => (params.keywordWeights.get(c.keyword) ?? 0) + featureScore(params.weights, c.features);

/** The walk: `keep(z)` decides each visited candidate (a draw, or z > 0). */
function walk(params: PolicyParams, cands: readonly Candidate[], kMax: number, keep: (z: number) => boolean): SetDecision[] {
  const z0 = logits(params, cands);
  const order = cands
    .map((_, j) => j)
    .sort((a, b) => (z0[b] as number) - (z0[a] as number) || ((cands[a] as Candidate).keyword < (cands[b] as Candidate).keyword ? -1 : 1));
  const kept: Candidate[] = [];
  const out: SetDecision[] = [];
  for (const j of order) {
    if (kept.length >= kMax) break;
    const c = inContext(cands[j] as Candidate, kept);
    const z = contextLogit(params, c);
    const action = keep(z) ? 1 : 0;
    out.push({ candidate: c, z, action });
    if (action) kept.push(cands[j] as Candidate);
  }
  return out;
}

/** A rollout: one keyword set drawn decision by decision, with each decision for the update. */
export function sampleSequential(params: PolicyParams, cands: readonly Candidate[], kMax: number, rng: Rng): SetDecision[] {
  return walk(params, cands, kMax, (z) => rng.next() < 1 / (1 + Math.exp(-z)));
}

const SET_FEATURES = FEATURES.flatMap((f, j) => (f.startsWith("set") ? [j] : []));

/**
 * Whether any weight reads a set feature (its own, or a pair's). A policy
 * trained with independent rollouts has none, and then the walk decides
 * exactly as independent decisions do, so decoding skips it (a few hundred
 * reads against re-scoring every candidate in context).
 */
export function usesSetFeatures(params: PolicyParams): boolean {
  const w = params.weights;
  for (const j of SET_FEATURES) {
    if (w[j] !== 0) return true;
    for (let a = 1; a < FEATURE_COUNT; a++) if (a !== j && w[pairWeightIndex(a, j)] !== 0) return true;
  }
  return false;
}

/** The walk's mode: every decision kept where z(S_<j) > 0. */
export function walkMode(params: PolicyParams, cands: readonly Candidate[], kMax: number): string[] {
  return walk(params, cands, kMax, (z) => z > 0)
    .filter((d) => d.action === 1)
    .map((d) => d.candidate.keyword);
}

/** The policy's mode: the walk's, or independent decoding's when no weight reads a set feature (the same keywords, faster). */
export function decodeSequential(params: PolicyParams, cands: readonly Candidate[], kMax: number): string[] {
  return usesSetFeatures(params) ? walkMode(params, cands, kMax) : decode(params, cands, kMax);
}

/**
 * Query-side decoding, as serving runs it: the sequential mode, and when
 * none of the kept keywords is in the item index (each would retrieve
 * nothing), the best-scoring candidates that are, whatever their score. An
 * empty I_ret(q) scores F1 = 0; the query's closest live keywords
 * ("tressler rug" → "area rug") almost always do better. The count was
 * chosen on training queries.
 */
export function decodeQuery(params: PolicyParams, cands: readonly Candidate[], kMax: number): string[] {
  const kept = decodeSequential(params, cands, kMax);
  const known = new Set(cands.filter((c) => c.features[F.unknownOpposite] === 0).map((c) => c.keyword));
  if (kept.some((k) => known.has(k))) return kept;
  const live = ranked(params, cands)
    .filter((r) => r.known && !kept.includes(r.keyword))
    .slice(0, POLICY_LIMITS.queryFallbackKeywords);
  return [...kept, ...live.map((r) => r.keyword)].slice(0, kMax);
}
