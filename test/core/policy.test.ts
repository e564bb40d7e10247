import { describe, expect, it } from "vitest";
import { decode } from "../../core/policy.js";
import { buildCandidates, POLICY_LIMITS, type PolicyVocabulary, queryCandidates } from "../../core/policy-candidates.js";
import { addFeatureGradient, FEATURE_COUNT, FEATURES, featureScore, newParams, PAIR_COUNT, pairWeightIndex, WEIGHT_COUNT } from "../../core/policy-features.js";
import { loadPolicy, policySpec } from "../../core/policy-spec.js";
import { decodeQuery } from "../../core/set-policy.js";
import { loadParams } from "../../training/checkpoint.js";
import { newAdamState } from "../../training/optimizer.js";
import { sftStep } from "../../training/phase.js";
import { buildVocabulary } from "../../training/vocabulary.js";

const feature = (cands: ReturnType<typeof queryCandidates>, k: string, f: (typeof FEATURES)[number]) =>
  cands.find((c) => c.keyword === k)?.features[FEATURES.indexOf(f)];
const weight = (f: (typeof FEATURES)[number]) => FEATURES.indexOf(f);

describe("extensions: longer opposite-side phrases of an input word", () => {
  // Items: rugs keyed "area rug", two wool rugs keyed also "wool", a chair keyed "accent chair".
  const vocab = buildVocabulary([
    { words: new Set(["tressler", "rug", "area"]), keywords: ["area rug"] },
    { words: new Set(["oriental", "rug", "area"]), keywords: ["area rug", "oriental"] },
    { words: new Set(["wool", "rug", "area"]), keywords: ["area rug", "wool"] },
    { words: new Set(["wool", "rug", "area", "shag"]), keywords: ["area rug", "wool"] },
    { words: new Set(["accent", "chair"]), keywords: ["accent chair"] },
  ]);

  it("are filed under the word they hold, beside the co-occurrence expansions", () => {
    const rug = new Map(vocab.expansions.get("rug"));
    expect(rug.has("area rug")).toBe(true);
    expect(rug.get("area rug")).toBeCloseTo(1, 3); // in every unit that has "rug"
    expect(new Map(vocab.expansions.get("chair")).has("area rug")).toBe(false);
  });

  it("become candidates flagged as extensions, not expansions, when the input lacks their other words", () => {
    const cands = queryCandidates(vocab, "tressler rug");
    expect(feature(cands, "area rug", "extension")).toBe(1);
    expect(feature(cands, "area rug", "expansion")).toBe(0);
    expect(feature(cands, "area rug", "ngram")).toBe(0);
    // "wool" co-occurs with "rug" without holding it: an expansion.
    expect(feature(cands, "wool", "expansion")).toBe(1);
    expect(feature(cands, "wool", "extension")).toBe(0);
    // When the input spells the phrase, it is an n-gram, not an extension.
    expect(feature(queryCandidates(vocab, "area rug"), "area rug", "extension")).toBe(0);
  });
});

describe("subsumed candidates", () => {
  const vocab: PolicyVocabulary = {
    oppositeDf: new Map([
      ["tile", 400],
      ["subway tile", 60],
    ]),
    oppositeCount: 1000,
    expansions: new Map(),
  };

  it("are the input's broad keywords beside a longer live phrase of the input", () => {
    const cands = queryCandidates(vocab, "dolomite subway tile");
    expect(feature(cands, "tile", "subsumed")).toBe(1);
    expect(feature(cands, "subway", "subsumed")).toBe(1);
    expect(feature(cands, "subway tile", "subsumed")).toBe(0);
    // The longer n-grams are not in the index, so nothing subsumes "subway tile".
    expect(feature(cands, "dolomite subway tile", "subsumed")).toBe(0);
  });

  it("need the longer phrase to be in the opposite index", () => {
    const cands = buildCandidates(
      { ...vocab, oppositeDf: new Map([["tile", 400]]) },
      { segments: [{ field: "name", words: ["subway", "tile"] }], coreWords: ["subway", "tile"] },
    );
    expect(feature(cands, "tile", "subsumed")).toBe(0);
  });
});

describe("query decoding", () => {
  const vocab: PolicyVocabulary = {
    oppositeDf: new Map([
      ["area rug", 250],
      ["wool", 40],
      ["rug", 0],
    ]),
    oppositeCount: 1000,
    expansions: new Map([
      [
        "rug",
        [
          ["area rug", 0.9],
          ["wool", 0.3],
          ["oriental", 0.2],
        ] as const,
      ],
    ]),
  };
  // n-grams are kept (z > 0), everything else is not.
  const params = newParams(-1);
  params.weights[weight("ngram")] = 2;
  params.weights[weight("association")] = 1;

  it("adds the best live candidates when nothing it keeps is in the item index", () => {
    const cands = queryCandidates(vocab, "tressler rug");
    const kept = decode(params, cands, 30);
    expect(new Set(kept)).toEqual(new Set(["tressler rug", "tressler", "rug"]));
    const out = decodeQuery(params, cands, 30);
    // Then the live ones by score: "area rug" (association 0.9) before "wool" (0.3); "oriental" is in no item set.
    expect(out).toEqual([...kept, "area rug", "wool"]);
  });

  it("is plain decoding once a kept keyword is live", () => {
    const cands = queryCandidates(vocab, "wool rug");
    expect(decode(params, cands, 30)).toContain("wool");
    expect(decodeQuery(params, cands, 30)).toEqual(decode(params, cands, 30));
  });

  it("keeps every z above the threshold, the mode (z > 0) by default", () => {
    const cands = queryCandidates(vocab, "tressler rug");
    // z: n-grams 1, "area rug" −0.1, "wool" −0.7, "oriental" −0.8.
    expect(decode(params, cands, 30)).toHaveLength(3);
    expect(decode(params, cands, 30, -0.5)).toEqual([...decode(params, cands, 30), "area rug"]);
    expect(decode(params, cands, 30, -1)).toEqual([...decode(params, cands, 30), "area rug", "wool", "oriental"]);
    expect(decode(params, cands, 30, 1)).toEqual([]);
  });

  it("adds at most queryFallbackKeywords and respects K_max", () => {
    const many: PolicyVocabulary = {
      oppositeDf: new Map(Array.from({ length: 10 }, (_, j) => [`k${j}`, 5] as const)),
      oppositeCount: 100,
      expansions: new Map([["zzz", Array.from({ length: 10 }, (_, j) => [`k${j}`, 0.5 - j / 100] as const)]]),
    };
    const cands = queryCandidates(many, "zzz");
    expect(decodeQuery(params, cands, 30)).toEqual(["zzz", ...Array.from({ length: POLICY_LIMITS.queryFallbackKeywords }, (_, j) => `k${j}`)]);
    expect(decodeQuery(params, cands, 2)).toEqual(["zzz", "k0"]);
  });
});

describe("pairwise feature interactions", () => {
  const phi = (on: Record<number, number>) => {
    const f = new Array<number>(FEATURE_COUNT).fill(0);
    f[0] = 1;
    for (const [j, x] of Object.entries(on)) f[Number(j)] = x;
    return f;
  };
  const [a, b, c] = [weight("isHead"), weight("subsumed"), weight("specificity")];

  it("give every pair of non-bias features its own weight, after the features' weights", () => {
    const seen = new Set<number>();
    for (let i = 1; i < FEATURE_COUNT; i++) for (let j = i + 1; j < FEATURE_COUNT; j++) seen.add(pairWeightIndex(i, j));
    expect(seen.size).toBe(PAIR_COUNT);
    expect(Math.min(...seen)).toBe(FEATURE_COUNT);
    expect(Math.max(...seen)).toBe(WEIGHT_COUNT - 1);
    expect(pairWeightIndex(b, a)).toBe(pairWeightIndex(a, b));
  });

  it("score w·φ + Σ W_ab·φ_a·φ_b, and only pairs that are both present", () => {
    const w = newParams(-1).weights;
    w[a] = 0.5;
    w[c] = 2;
    w[pairWeightIndex(a, b)] = -3;
    w[pairWeightIndex(a, c)] = 4;
    w[pairWeightIndex(b, c)] = 100; // b is absent below: must not count
    expect(featureScore(w, phi({ [a]: 1, [c]: 0.25 }))).toBeCloseTo(-1 + 0.5 + 2 * 0.25 + 4 * 0.25);
    expect(featureScore(w, phi({ [a]: 1, [b]: 1 }))).toBeCloseTo(-1 + 0.5 - 3);
  });

  it("have the gradient of the score (finite differences)", () => {
    const f = phi({ [a]: 1, [b]: 1, [c]: 0.3 });
    const w = Float64Array.from({ length: WEIGHT_COUNT }, (_, j) => Math.sin(j));
    const grad = new Float64Array(WEIGHT_COUNT);
    addFeatureGradient(grad, f, 2);
    for (const j of [0, a, b, c, pairWeightIndex(a, b), pairWeightIndex(a, c), pairWeightIndex(b, c), pairWeightIndex(1, 2)]) {
      const up = Float64Array.from(w);
      up[j] = (up[j] as number) + 1e-6;
      expect(grad[j]).toBeCloseTo((2 * (featureScore(up, f) - featureScore(w, f))) / 1e-6, 4);
    }
  });

  it("make a policy saved without them unloadable, in a round or a checkpoint", () => {
    const vocab: PolicyVocabulary = { oppositeDf: new Map([["rug", 3]]), oppositeCount: 10, expansions: new Map() };
    const spec = policySpec("query", newParams(-1), vocab, 30);
    expect(loadPolicy(spec).params.weights).toHaveLength(WEIGHT_COUNT);
    expect(() => loadPolicy({ ...spec, weights: spec.weights.slice(0, FEATURE_COUNT) })).toThrow(/feature set differs/);
    expect(() => loadParams({ weights: Array(FEATURE_COUNT).fill(0), keywordWeights: [] })).toThrow(/retrain from round 0/);
  });

  it("let the policy learn a choice no linear score can make (keep when exactly one of two features is on)", () => {
    // XOR of two features: a linear logit cannot separate it; the pair weight can.
    const cands = [phi({}), phi({ [a]: 1 }), phi({ [b]: 1 }), phi({ [a]: 1, [b]: 1 })].map((features, j) => ({ keyword: `k${j}`, features }));
    const inputs = [cands];
    const targets = [new Set(["k1", "k2"])];
    const params = newParams(0);
    const adam = newAdamState();
    for (let s = 0; s < 400; s++) sftStep(params, adam, inputs, targets, [0], 0.1);
    expect(new Set(decode(params, cands, 30))).toEqual(new Set(["k1", "k2"]));
  });
});
