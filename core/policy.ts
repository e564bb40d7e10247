/**
 * The `lexical` keyword generator: a CPU policy small enough to ship inside a
 * round and run in the worker.
 *
 * Candidates are the input's n-grams, the opposite index's keywords whose
 * words all occur in the input ("containment"), and learned expansions (the
 * opposite index's keywords most associated with each input word). Each
 * candidate gets a logit z = w·φ + u[keyword]: φ are features that
 * generalise (origin, length, specificity in the opposite index, coverage of
 * the input, association, field), u is a per-keyword weight (a vocabulary
 * feature, not an id of any query or item). A keyword set is drawn with an
 * independent Bernoulli(σ(z)) per candidate, so log π(S) is a sum; the
 * deterministic mode keeps every z > 0, at most K_max, best first.
 */
import { type Segment, STOPWORDS, segmentNgrams, segmentText } from "./extract.js";
import { keywordWords } from "./normalize.js";
import type { Rng } from "./rng.js";

export const POLICY_FORMAT = "cogr-lexical-policy";
export const POLICY_VERSION = 1;

export const FEATURES = [
  "bias",
  "ngram",
  "contain",
  "expansion",
  "len1",
  "len2",
  "len3+",
  "specificity",
  "unknownOpposite",
  "coverage",
  "wholeInput",
  "association",
  "fieldName",
  "fieldClass",
  "fieldCategory",
  "fieldFeatures",
  "fieldDescription",
  "tfidf",
  "containsHead",
  "fullCoverage",
  "dfUpTo5",
  "dfUpTo50",
  "dfUpTo500",
  "dfOver500",
] as const;
export const FEATURE_COUNT = FEATURES.length;
const F = Object.fromEntries(FEATURES.map((f, j) => [f, j])) as Record<(typeof FEATURES)[number], number>;

export const POLICY_LIMITS = { maxCandidates: 64, maxNgram: 3, containMaxWords: 3 } as const;

export interface PolicyVocabulary {
  /** Keyword → document frequency in the opposite side's index. */
  readonly oppositeDf: ReadonlyMap<string, number>;
  readonly oppositeCount: number;
  /** Input word → associated opposite-index keywords with their association score in (0, 1]. */
  readonly expansions: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>;
}

export interface Candidate {
  readonly keyword: string;
  readonly features: Float64Array;
}

export interface PolicyParams {
  readonly weights: Float64Array;
  readonly keywordWeights: Map<string, number>;
}

export function newParams(bias = 0): PolicyParams {
  const weights = new Float64Array(FEATURE_COUNT);
  weights[F.bias] = bias;
  return { weights, keywordWeights: new Map() };
}

const FIELD_FEATURE: Record<Segment["field"], number> = {
  name: F.fieldName,
  class: F.fieldClass,
  category: F.fieldCategory,
  features: F.fieldFeatures,
  description: F.fieldDescription,
};

/** word → opposite-index keywords (of ≤ 3 words) containing it; built once per vocabulary. */
const containCache = new WeakMap<PolicyVocabulary, Map<string, string[]>>();
function containIndex(vocab: PolicyVocabulary): Map<string, string[]> {
  let idx = containCache.get(vocab);
  if (!idx) {
    idx = new Map();
    for (const k of vocab.oppositeDf.keys()) {
      const ws = keywordWords(k);
      if (ws.length > POLICY_LIMITS.containMaxWords) continue;
      for (const w of new Set(ws)) {
        const l = idx.get(w);
        if (l) l.push(k);
        else idx.set(w, [k]);
      }
    }
    containCache.set(vocab, idx);
  }
  return idx;
}

export interface CandidateInput {
  readonly segments: readonly Segment[];
  /** Words that drive containment and expansion (the query; an item's name, class and category). */
  readonly coreWords: readonly string[];
  /** Optional n-gram prior in [0, 1] (the item side's TF-IDF); n-grams without one are dropped when given. */
  readonly ngramPrior?: ReadonlyMap<string, number>;
}

/** The candidate keywords of one input, with features, in a deterministic order. */
export function buildCandidates(vocab: PolicyVocabulary, input: CandidateInput): Candidate[] {
  const found = new Map<string, Float64Array>();
  const core = new Set(input.coreWords.filter((w) => !STOPWORDS.has(w)));
  const allWords = new Set(input.segments.flatMap((s) => s.words));
  const whole = input.segments.length === 1 ? input.segments[0]?.words.join(" ") : undefined;
  // The head of an English noun phrase is its last word ("salon chair" is a chair).
  const head = [...input.coreWords].reverse().find((w) => !STOPWORDS.has(w));
  const logN = Math.log(1 + vocab.oppositeCount);
  const get = (k: string) => {
    let f = found.get(k);
    if (!f) {
      f = new Float64Array(FEATURE_COUNT);
      const ws = keywordWords(k);
      const df = vocab.oppositeDf.get(k) ?? 0;
      f[F.bias] = 1;
      f[ws.length === 1 ? F.len1 : ws.length === 2 ? F.len2 : F["len3+"]] = 1;
      f[F.specificity] = df > 0 ? 1 - Math.log(1 + df) / logN : 0;
      f[F.unknownOpposite] = df === 0 ? 1 : 0;
      f[F.coverage] = core.size > 0 ? ws.filter((w) => core.has(w)).length / core.size : 0;
      f[F.wholeInput] = k === whole ? 1 : 0;
      f[F.containsHead] = head !== undefined && ws.includes(head) ? 1 : 0;
      f[F.fullCoverage] = core.size > 0 && [...core].every((w) => ws.includes(w)) ? 1 : 0;
      if (df > 0) f[df <= 5 ? F.dfUpTo5 : df <= 50 ? F.dfUpTo50 : df <= 500 ? F.dfUpTo500 : F.dfOver500] = 1;
      found.set(k, f);
    }
    return f;
  };
  for (const s of input.segments) {
    for (const g of segmentNgrams(s.words, POLICY_LIMITS.maxNgram)) {
      const prior = input.ngramPrior?.get(g);
      if (input.ngramPrior && prior === undefined) continue;
      const f = get(g);
      f[F.ngram] = 1;
      f[FIELD_FEATURE[s.field]] = 1;
      if (prior !== undefined) f[F.tfidf] = Math.max(f[F.tfidf] as number, prior);
    }
  }
  const index = containIndex(vocab);
  for (const w of [...core].sort()) {
    for (const k of index.get(w) ?? []) {
      if (found.get(k)?.[F.contain] === 1) continue;
      if (keywordWords(k).every((x) => allWords.has(x))) get(k)[F.contain] = 1;
    }
    for (const [k, score] of vocab.expansions.get(w) ?? []) {
      const f = get(k);
      f[F.expansion] = 1;
      f[F.association] = Math.max(f[F.association] as number, score);
    }
  }
  // Keep the strongest-evidence candidates when there are too many: n-grams, then containment, then association.
  const prior = (f: Float64Array) => 4 * (f[F.ngram] as number) + 2 * (f[F.contain] as number) + (f[F.association] as number) + (f[F.tfidf] as number);
  return [...found]
    .sort((a, b) => prior(b[1]) - prior(a[1]) || (a[0] < b[0] ? -1 : 1))
    .slice(0, POLICY_LIMITS.maxCandidates)
    .map(([keyword, features]) => ({ keyword, features }));
}

export function queryCandidates(vocab: PolicyVocabulary, query: string): Candidate[] {
  const segments = segmentText("name", query);
  return buildCandidates(vocab, { segments, coreWords: segments.flatMap((s) => s.words) });
}

export function logits(params: PolicyParams, cands: readonly Candidate[]): Float64Array {
  const z = new Float64Array(cands.length);
  cands.forEach((c, j) => {
    let s = params.keywordWeights.get(c.keyword) ?? 0;
    for (let f = 0; f < FEATURE_COUNT; f++) s += (params.weights[f] as number) * (c.features[f] as number);
    z[j] = s;
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

/** Deterministic decoding for indexing and serving: every z > 0, best first, at most kMax. */
export function decode(params: PolicyParams, cands: readonly Candidate[], kMax: number): string[] {
  const z = logits(params, cands);
  return cands
    .map((c, j) => [c.keyword, z[j] as number] as const)
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, kMax)
    .map(([k]) => k);
}

export const chosenKeywords = (cands: readonly Candidate[], chosen: Uint8Array) => cands.filter((_, j) => chosen[j]).map((c) => c.keyword);
