/**
 * The lexical policy's feature schema (core/policy.ts): the features φ of a
 * candidate keyword, one weight per feature and per pair of features, and
 * the score they give, z − u[keyword] = w·φ + Σ_{a<b} W_ab·φ_a·φ_b, with its
 * gradient. Candidate building (core/policy-candidates.ts) fills φ;
 * sampling and decoding (core/policy.ts) turn scores into keyword sets.
 */
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
  // Spelling (core/typos.ts): the candidate holds a word the query did not spell, one edit from a word it did.
  "corrected",
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
export function featureScore(weights: ArrayLike<number>, f: readonly number[]): number {
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

/** Adds dz · ∂featureScore/∂weights (the candidate's features and feature pairs) into grad. */
export function addFeatureGradient(grad: Float64Array, f: readonly number[], dz: number): void {
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
/** Feature name → its index in FEATURES. */
export const F = Object.fromEntries(FEATURES.map((f, j) => [f, j])) as Record<(typeof FEATURES)[number], number>;

export interface PolicyParams {
  readonly weights: Float64Array;
  readonly keywordWeights: Map<string, number>;
}

export function newParams(bias = 0): PolicyParams {
  const weights = new Float64Array(WEIGHT_COUNT);
  weights[F.bias] = bias;
  return { weights, keywordWeights: new Map() };
}
