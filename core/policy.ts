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
import { getOrInsert } from "./collections.js";
import { type Segment, STOPWORDS, segmentNgrams, segmentText } from "./extract.js";
import { hintKeywords, type SearchHints } from "./hints.js";
import { singular } from "./morph.js";
import { keywordWords } from "./normalize.js";
import type { Rng } from "./rng.js";

export const POLICY_FORMAT = "cogr-lexical-policy";
export const POLICY_VERSION = 6;

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
  "headSupport",
  "coreSupport",
  "isHead",
  "endsWithHead",
  "strongAssociation",
  "extension",
  "subsumed",
  // Set features (core/set-policy.ts): what the keywords kept so far already do. Zero outside sequential decoding.
  "setEmpty",
  "setCovered",
  "setSharesWord",
  "setHeadKept",
  "setMaxDfUpTo5",
  "setMaxDfUpTo50",
  "setMaxDfOver50",
  // Search hints (core/hints.ts): what a first BM25 pass over the item index finds. Zero without hints.
  "hint",
  "hintShare",
  "hintTop",
] as const;
export const FEATURE_COUNT = FEATURES.length;

/**
 * Pairwise interactions: one weight per pair of non-bias features (a degree-2
 * logistic policy). A linear score cannot say "keep the bare head noun when
 * the input's specific phrases are rare, drop it when they are common"; with
 * features alone, a policy fitted on the dev queries themselves reached dev
 * F1 0.53, with the pairs 0.58. Pair (a, b), 1 ≤ a < b, is weight
 * PAIR_ROW[a] + b; the weights array holds the features' weights, then the pairs'.
 */
export const PAIR_COUNT = ((FEATURE_COUNT - 1) * (FEATURE_COUNT - 2)) / 2;
export const WEIGHT_COUNT = FEATURE_COUNT + PAIR_COUNT;
const PAIR_ROW = Int32Array.from({ length: FEATURE_COUNT }, (_, a) => {
  // Pairs before row a: rows 1..a−1 hold FEATURE_COUNT−1−r pairs each.
  let before = 0;
  for (let r = 1; r < a; r++) before += FEATURE_COUNT - 1 - r;
  return FEATURE_COUNT + before - a - 1;
});
export const pairWeightIndex = (a: number, b: number): number => (PAIR_ROW[Math.min(a, b)] as number) + Math.max(a, b);
/** Scratch for the non-zero features of one candidate (most of φ is zero, so pairs are visited sparsely). */
const active = new Int32Array(FEATURE_COUNT);

/** The candidate's score without its keyword weight: w·φ + Σ_{a<b} W_ab·φ_a·φ_b. */
export function termScore(weights: ArrayLike<number>, f: readonly number[]): number {
  let s = 0;
  let n = 0;
  for (let j = 0; j < FEATURE_COUNT; j++) {
    const x = f[j] as number;
    if (x === 0) continue;
    s += (weights[j] as number) * x;
    if (j > 0) active[n++] = j;
  }
  for (let p = 0; p < n; p++) {
    const a = active[p] as number;
    const xa = f[a] as number;
    const row = PAIR_ROW[a] as number;
    for (let q = p + 1; q < n; q++) {
      const b = active[q] as number;
      s += (weights[row + b] as number) * xa * (f[b] as number);
    }
  }
  return s;
}

/** Adds dz · ∂termScore/∂weights (the candidate's features and feature pairs) into grad. */
export function addTermGradient(grad: Float64Array, f: readonly number[], dz: number): void {
  let n = 0;
  for (let j = 0; j < FEATURE_COUNT; j++) {
    const x = f[j] as number;
    if (x === 0) continue;
    grad[j] = (grad[j] as number) + dz * x;
    if (j > 0) active[n++] = j;
  }
  for (let p = 0; p < n; p++) {
    const a = active[p] as number;
    const g = dz * (f[a] as number);
    const row = PAIR_ROW[a] as number;
    for (let q = p + 1; q < n; q++) {
      const b = active[q] as number;
      grad[row + b] = (grad[row + b] as number) + g * (f[b] as number);
    }
  }
}
const F = Object.fromEntries(FEATURES.map((f, j) => [f, j])) as Record<(typeof FEATURES)[number], number>;

export const POLICY_LIMITS = { maxCandidates: 64, maxNgram: 3, containMaxWords: 3, strongAssociation: 0.5, queryFallbackKeywords: 3 } as const;

export interface PolicyVocabulary {
  /** Keyword → document frequency in the opposite side's index. */
  readonly oppositeDf: ReadonlyMap<string, number>;
  readonly oppositeCount: number;
  /** Input word → associated opposite-index keywords with their association score in (0, 1]. */
  readonly expansions: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>;
  /**
   * Keyword → the singular words most often found with it in the opposite
   * units' text, with P(word | keyword): what "leather" means in the item
   * index (chairs? sofas?). Lets a generalising feature ask whether a
   * candidate's items are about this input's words.
   */
  readonly profiles?: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>;
}

export interface Candidate {
  readonly keyword: string;
  /** Indexed by FEATURES. A plain array: allocating a small typed array per candidate cost a fifth of candidate building. */
  readonly features: number[];
  /** The keyword's words (singular) and its df in the opposite index: what the set features (core/set-policy.ts) compare. */
  readonly words?: readonly string[];
  readonly df?: number;
}

export interface PolicyParams {
  readonly weights: Float64Array;
  readonly keywordWeights: Map<string, number>;
}

export function newParams(bias = 0): PolicyParams {
  const weights = new Float64Array(WEIGHT_COUNT);
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

interface OppositeLookup {
  /**
   * singular word → opposite-index keywords (of ≤ 3 words) filed under it: each
   * keyword under its rarest word only, since a keyword the input contains has
   * all its words in the input, that one included. Keeps the lists short.
   */
  readonly byWord: Map<string, string[]>;
  /** singular form ("dining chair") → the opposite index's spellings of it ("dining chairs", "dining chair"). */
  readonly byForm: Map<string, string[]>;
  /** opposite-index keyword → its words, singular (precomputed: containment tests thousands per input). */
  readonly forms: Map<string, string[]>;
}

const lookupCache = new WeakMap<PolicyVocabulary, OppositeLookup>();
/** Built once per vocabulary. */
function oppositeLookup(vocab: PolicyVocabulary): OppositeLookup {
  let idx = lookupCache.get(vocab);
  if (!idx) {
    idx = { byWord: new Map(), byForm: new Map(), forms: new Map() };
    const wordDf = new Map<string, number>();
    for (const k of vocab.oppositeDf.keys()) {
      const ws = keywordWords(k).map(singular);
      idx.forms.set(k, ws);
      getOrInsert(idx.byForm, ws.join(" "), (): string[] => []).push(k);
      for (const w of new Set(ws)) wordDf.set(w, (wordDf.get(w) ?? 0) + 1);
    }
    for (const [k, ws] of idx.forms) {
      if (ws.length > POLICY_LIMITS.containMaxWords) continue;
      const rarest = ws.reduce((a, b) => ((wordDf.get(b) as number) < (wordDf.get(a) as number) || (wordDf.get(b) === wordDf.get(a) && b < a) ? b : a));
      getOrInsert(idx.byWord, rarest, (): string[] => []).push(k);
    }
    lookupCache.set(vocab, idx);
  }
  return idx;
}

const PREPOSITIONS: ReadonlySet<string> = new Set(["for", "with", "without", "in", "on", "of", "by", "from", "to", "under", "over"]);

/**
 * The head noun, singular: the last content word of an English noun phrase
 * ("salon chair" is a chair), before any prepositional modifier ("desk for
 * kids" is a desk).
 */
export function headWord(words: readonly string[]): string | undefined {
  const cut = words.findIndex((w) => PREPOSITIONS.has(w));
  const phrase = cut > 0 ? words.slice(0, cut) : words;
  const last = [...phrase].reverse().find((w) => !STOPWORDS.has(w)) ?? [...words].reverse().find((w) => !STOPWORDS.has(w));
  return last === undefined ? undefined : singular(last);
}

export interface CandidateInput {
  readonly segments: readonly Segment[];
  /** Words that drive containment and expansion (the query; an item's name, class and category). */
  readonly coreWords: readonly string[];
  /** Optional n-gram prior in [0, 1] (the item side's TF-IDF); n-grams without one are dropped when given. */
  readonly ngramPrior?: ReadonlyMap<string, number>;
  /** The first pass's hints (query side of a hinted round): hint candidates and the hint features. */
  readonly hints?: SearchHints;
}

/** The candidate keywords of one input, with features, in a deterministic order. */
export function buildCandidates(vocab: PolicyVocabulary, input: CandidateInput): Candidate[] {
  const found = new Map<string, number[]>();
  // Word comparisons use singular forms, so "dining chair" covers "dining chairs".
  const core = new Set(input.coreWords.filter((w) => !STOPWORDS.has(w)).map(singular));
  const coreWords = [...core];
  const allWords = new Set(input.segments.flatMap((s) => s.words.map(singular)));
  const whole = input.segments.length === 1 ? input.segments[0]?.words.join(" ") : undefined;
  const head = headWord(input.coreWords);
  const logN = Math.log(1 + vocab.oppositeCount);
  const lookup = oppositeLookup(vocab);
  // Origins first (cheap), the features that look the keyword up only for the kept candidates (below).
  const get = (k: string) => getOrInsert(found, k, () => new Array<number>(FEATURE_COUNT).fill(0));
  const describe = (k: string, f: number[], spelled: ReadonlyArray<readonly [string, readonly string[]]>) => {
    const ws = lookup.forms.get(k) ?? keywordWords(k).map(singular);
    const df = vocab.oppositeDf.get(k) ?? 0;
    f[F.bias] = 1;
    f[ws.length === 1 ? F.len1 : ws.length === 2 ? F.len2 : F["len3+"]] = 1;
    f[F.specificity] = df > 0 ? 1 - Math.log(1 + df) / logN : 0;
    f[F.unknownOpposite] = df === 0 ? 1 : 0;
    f[F.coverage] = core.size > 0 ? ws.filter((w) => core.has(w)).length / core.size : 0;
    f[F.wholeInput] = k === whole ? 1 : 0;
    f[F.containsHead] = head !== undefined && ws.includes(head) ? 1 : 0;
    // Graded relevance often counts every item of the right product type (WANDS: "Partial"),
    // so the head noun alone ("pillow") and phrases headed by it ("dining table") get their own weights.
    f[F.isHead] = ws.length === 1 && ws[0] === head ? 1 : 0;
    f[F.endsWithHead] = ws.length > 1 && ws[ws.length - 1] === head ? 1 : 0;
    f[F.fullCoverage] = core.size > 0 && coreWords.every((w) => ws.includes(w)) ? 1 : 0;
    if (df > 0) f[df <= 5 ? F.dfUpTo5 : df <= 50 ? F.dfUpTo50 : df <= 500 ? F.dfUpTo500 : F.dfOver500] = 1;
    const profile = vocab.profiles?.get(k);
    const support = (w: string) => (ws.includes(w) ? 1 : (profile?.find(([x]) => x === w)?.[1] ?? 0));
    f[F.headSupport] = head === undefined ? 0 : support(head);
    f[F.coreSupport] = core.size > 0 ? coreWords.reduce((a, w) => a + support(w), 0) / core.size : 0;
    // Set context for a per-candidate decision: a keyword is subsumed when a longer phrase of the
    // input holding all its words is in the opposite index ("tile" beside a live "subway tile").
    // The broad keyword then mostly adds items the specific one left out on purpose; without a live
    // specific phrase ("tressler rug" is in no item set) the broad one is the query's only recall.
    f[F.subsumed] = spelled.some(([k2, ws2]) => k2 !== k && ws2.length > ws.length && ws.every((w) => ws2.includes(w))) ? 1 : 0;
  };
  for (const s of input.segments) {
    for (const g of segmentNgrams(s.words, POLICY_LIMITS.maxNgram)) {
      const prior = input.ngramPrior?.get(g);
      if (input.ngramPrior && prior === undefined) continue;
      // The n-gram as written, and the opposite index's other spellings of it ("pillows" → "pillow").
      const variants = lookup.byForm.get(keywordWords(g).map(singular).join(" ")) ?? [];
      for (const k of variants.includes(g) ? variants : [g, ...variants]) {
        const f = get(k);
        f[F.ngram] = 1;
        f[FIELD_FEATURE[s.field]] = 1;
        if (prior !== undefined) f[F.tfidf] = Math.max(f[F.tfidf] as number, prior);
      }
    }
  }
  // Containment: every word of the keyword in the input, at least one of them a core word.
  for (const w of allWords) {
    for (const k of lookup.byWord.get(w) ?? []) {
      const ws = lookup.forms.get(k) as string[];
      if (ws.every((x) => allWords.has(x)) && ws.some((x) => core.has(x))) get(k)[F.contain] = 1;
    }
  }
  // Expansions bring what the input does not spell; a keyword it spells keeps its n-gram/containment features only.
  // (Order-free: association is a max, and n-gram/containment flags are all set above.)
  for (const w of coreWords) {
    for (const [k, score] of vocab.expansions.get(w) ?? []) {
      const f = get(k);
      f[F.association] = Math.max(f[F.association] as number, score);
      if (f[F.ngram] === 1 || f[F.contain] === 1) continue;
      // An extension spells an input word and adds others ("rug" → "area rug"); an expansion spells none.
      f[(lookup.forms.get(k) ?? []).some((x) => core.has(x)) ? F.extension : F.expansion] = 1;
      if (score >= POLICY_LIMITS.strongAssociation) f[F.strongAssociation] = 1;
    }
  }
  // Hints (§4.5 "+ Search Results"): the keywords the first pass's top items share, and what share of them holds each candidate.
  const hints = input.hints;
  if (hints && hints.k > 0) {
    for (const k of hintKeywords(hints)) get(k)[F.hint] = 1;
    for (const [k, f] of found) {
      f[F.hintShare] = (hints.holders.get(k) ?? 0) / hints.k;
      f[F.hintTop] = hints.top.has(k) ? 1 : 0;
    }
  }
  // Keep the strongest-evidence candidates when there are too many: n-grams, then containment, then association and hints.
  const prior = (f: number[]) =>
    4 * (f[F.ngram] as number) + 2 * (f[F.contain] as number) + (f[F.association] as number) + (f[F.tfidf] as number) + (f[F.hintShare] as number);
  const kept = [...found].sort((a, b) => prior(b[1]) - prior(a[1]) || (a[0] < b[0] ? -1 : 1)).slice(0, POLICY_LIMITS.maxCandidates);
  // The input's own phrases (n-grams, contained keywords) that are in the opposite index, with their words.
  const spelled = kept
    .filter(([k, f]) => (f[F.ngram] === 1 || f[F.contain] === 1) && (vocab.oppositeDf.get(k) ?? 0) > 0)
    .map(([k]) => [k, lookup.forms.get(k) ?? []] as const);
  for (const [k, f] of kept) describe(k, f, spelled);
  return kept.map(([keyword, features]) => ({
    keyword,
    features,
    words: lookup.forms.get(keyword) ?? keywordWords(keyword).map(singular),
    df: vocab.oppositeDf.get(keyword) ?? 0,
  }));
}

/** A query's candidates; with `hints`, those of a hinted round (core/hints.ts). */
export function queryCandidates(vocab: PolicyVocabulary, query: string, hints?: SearchHints): Candidate[] {
  const segments = segmentText("name", query);
  return buildCandidates(vocab, { segments, coreWords: segments.flatMap((s) => s.words), ...(hints ? { hints } : {}) });
}

export function logits(params: PolicyParams, cands: readonly Candidate[]): Float64Array {
  const z = new Float64Array(cands.length);
  cands.forEach((c, j) => {
    z[j] = (params.keywordWeights.get(c.keyword) ?? 0) + termScore(params.weights, c.features);
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
