import { describe, expect, it } from "vitest";
import { logits, sampleSet, setLogProb } from "../../core/policy.js";
import { buildCandidates, type Candidate, headWord } from "../../core/policy-candidates.js";
import { FEATURE_COUNT, FEATURES, newParams } from "../../core/policy-features.js";
import { Rng } from "../../core/rng.js";
import { clippedSurrogate, grpoAdvantages, supervisedLoss } from "../../training/grpo.js";
import { carryOver } from "../../training/lexical-data.js";
import { newAdamState } from "../../training/optimizer.js";
import { grpoStep } from "../../training/phase.js";
import { buildVocabulary } from "../../training/vocabulary.js";

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

describe("GRPO advantage (verl's outcome advantage)", () => {
  it("normalises within each group by the unbiased std", () => {
    const a = grpoAdvantages([1, 0, 0, 1, 0.5, 0.5, 0.5, 0.5], 4);
    const std = Math.sqrt((4 * 0.25) / 3);
    const d = std + 1e-6;
    expect([...a.slice(0, 4)].map((x) => x.toFixed(9))).toEqual([0.5 / d, -0.5 / d, -0.5 / d, 0.5 / d].map((x) => x.toFixed(9)));
    expect([...a.slice(4)]).toEqual([0, 0, 0, 0]); // equal rewards carry no signal
  });

  it("treats a group of one as mean 0, std 1, and can skip the std", () => {
    expect([...grpoAdvantages([0.3, -2], 1)]).toEqual([0.3, -2].map((r) => r / (1 + 1e-6)));
    expect([...grpoAdvantages([1, 0], 2, false)]).toEqual([0.5, -0.5]);
    expect(() => grpoAdvantages([1, 2, 3], 2)).toThrow(/whole groups/);
  });
});

describe("clipped surrogate", () => {
  it("is −A per decision on-policy, with dL/dz = −A(a − σ(z))/n", () => {
    const { loss, dz, clippedFraction } = clippedSurrogate([
      { z: 0.4, zOld: 0.4, action: 1, advantage: 2 },
      { z: -1, zOld: -1, action: 0, advantage: -1 },
    ]);
    expect(loss).toBeCloseTo(-(2 - 1) / 2);
    expect(dz[0]).toBeCloseTo((-2 * (1 - sigmoid(0.4))) / 2);
    expect(dz[1]).toBeCloseTo((1 * (0 - sigmoid(-1))) / 2);
    expect(clippedFraction).toBe(0);
  });

  it("stops the gradient where the clipped branch is the minimum", () => {
    const ratio = sigmoid(2) / 0.5; // 1.76
    const pos = clippedSurrogate([{ z: 2, zOld: 0, action: 1, advantage: 1 }], 0.2);
    expect(pos.loss).toBeCloseTo(-1.2);
    expect(pos.dz[0]).toBe(0);
    expect(pos.clippedFraction).toBe(1);
    const neg = clippedSurrogate([{ z: 2, zOld: 0, action: 1, advantage: -1 }], 0.2);
    expect(neg.loss).toBeCloseTo(ratio);
    expect(neg.dz[0]).toBeCloseTo(ratio * (1 - sigmoid(2)));
  });

  it("supervised loss is binary cross-entropy", () => {
    const { loss, dz } = supervisedLoss([0, 2], [1, 0]);
    expect(loss).toBeCloseTo((Math.log(2) + -Math.log(1 - sigmoid(2))) / 2);
    expect(dz[0]).toBeCloseTo((0.5 - 1) / 2);
  });
});

function candidate(keyword: string, feature: number): Candidate {
  const f = new Array<number>(FEATURE_COUNT).fill(0);
  f[0] = 1;
  f[feature] = 1;
  return { keyword, features: f };
}

describe("the lexical policy", () => {
  it("assigns each set the probability it is sampled with", () => {
    const params = newParams(0.3);
    params.keywordWeights.set("b", -1.2);
    params.keywordWeights.set("c", 2);
    const cands = [candidate("a", 1), candidate("b", 2), candidate("c", 3)];
    const rng = new Rng(9);
    const counts = new Map<string, number>();
    const n = 40_000;
    for (let j = 0; j < n; j++) {
      const key = [...sampleSet(params, cands, rng)].join("");
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    let total = 0;
    for (let m = 0; m < 8; m++) {
      const chosen = Uint8Array.from([m & 1, (m >> 1) & 1, (m >> 2) & 1]);
      const p = Math.exp(setLogProb(params, cands, chosen));
      total += p;
      const freq = (counts.get([...chosen].join("")) ?? 0) / n;
      expect(Math.abs(freq - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n) + 1e-3);
    }
    expect(total).toBeCloseTo(1, 10);
  });

  it("builds n-gram, containment and expansion candidates with features", () => {
    const vocab = {
      oppositeDf: new Map([
        ["accent chair", 5],
        ["armchair", 9],
        ["chair", 100],
      ]),
      oppositeCount: 200,
      expansions: new Map([["accent", [["armchair", 0.4] as const]]]),
    };
    const cands = buildCandidates(vocab, { segments: [{ field: "name", words: ["chair", "accent"] }], coreWords: ["chair", "accent"] });
    const keys = cands.map((c) => c.keyword);
    expect(keys).toEqual(expect.arrayContaining(["chair", "accent", "chair accent", "accent chair", "armchair"]));
    const z = logits(newParams(0), cands);
    expect([...z]).toEqual(new Array(cands.length).fill(0));
    expect(cands.length).toBeGreaterThan(0);
  });

  it("matches plural and singular forms and asks the opposite side what a keyword is about", () => {
    const vocab = {
      oppositeDf: new Map([
        ["dining chair", 20],
        ["leather", 50],
        ["sofa", 80],
        ["recliner", 30],
      ]),
      oppositeCount: 500,
      expansions: new Map([
        [
          "leather",
          [
            ["dining chair", 0.7],
            ["recliner", 0.6],
          ] as const,
        ],
      ]),
      profiles: new Map([["leather", [["sofa", 0.6] as const, ["chair", 0.3] as const]]]),
    };
    const cands = buildCandidates(vocab, { segments: [{ field: "name", words: ["leather", "dining", "chairs"] }], coreWords: ["leather", "dining", "chairs"] });
    const feature = (k: string, f: (typeof FEATURES)[number]) => cands.find((c) => c.keyword === k)?.features[FEATURES.indexOf(f)];
    // "dining chair" is in the opposite index; the query says "chairs": it is the n-gram, in the index's spelling.
    expect(feature("dining chair", "ngram")).toBe(1);
    expect(feature("dining chair", "contain")).toBe(1);
    expect(feature("dining chair", "expansion")).toBe(0);
    expect(feature("dining chair", "association")).toBeCloseTo(0.7);
    expect(feature("recliner", "expansion")).toBe(1);
    expect(feature("recliner", "strongAssociation")).toBe(1);
    expect(feature("dining chair", "containsHead")).toBe(1);
    expect(feature("dining chair", "coverage")).toBeCloseTo(2 / 3);
    expect(feature("sofa", "contain")).toBeUndefined();
    // Items keyed "leather" are sofas more often than chairs: head support 0.3, core support (1 + 0 + 0.3) / 3.
    expect(feature("leather", "headSupport")).toBeCloseTo(0.3);
    expect(feature("leather", "coreSupport")).toBeCloseTo(1.3 / 3);
    expect(feature("dining chair", "headSupport")).toBe(1);
  });

  it("finds the head noun before a prepositional modifier", () => {
    expect(headWord(["salon", "chairs"])).toBe("chair");
    expect(headWord(["desk", "for", "kids"])).toBe("desk");
    expect(headWord(["sofa", "with", "cushions"])).toBe("sofa");
    expect(headWord(["for", "kids"])).toBe("kid");
    expect(headWord(["the", "and"])).toBeUndefined();
  });

  it("a vocabulary profiles each keyword by the words of the units that hold it", () => {
    const vocab = buildVocabulary([
      { words: new Set(["leather", "sofas"]), keywords: ["leather"] },
      { words: new Set(["leather", "sofa", "brown"]), keywords: ["leather", "brown"] },
      { words: new Set(["leather", "chair"]), keywords: ["leather"] },
      { words: new Set(["oak", "chair"]), keywords: ["oak"] },
    ]);
    const profile = new Map(vocab.profiles?.get("leather"));
    expect(profile.get("sofa")).toBeCloseTo(2 / 3, 3);
    expect(profile.get("chair")).toBeCloseTo(1 / 3, 3);
    expect(profile.has("leather")).toBe(false);
    expect(vocab.oppositeDf.get("leather")).toBe(3);
  });

  it("a few GRPO steps raise the mean reward on a small task", () => {
    // Reward: 1 for keeping "good" and dropping "bad", less otherwise.
    const cands = [[candidate("good", 1), candidate("bad", 2), candidate("meh", 3)]];
    const reward = (_: number, k: readonly string[]) => (k.includes("good") ? 0.6 : 0) + (k.includes("bad") ? 0 : 0.4);
    const params = newParams(0);
    const adam = newAdamState();
    const rng = new Rng(1);
    const first = grpoStep(params, adam, cands, [0, 0, 0, 0], reward, rng, { lr: 0.1 }).meanReward;
    let last = first;
    for (let s = 0; s < 40; s++) last = grpoStep(params, adam, cands, [0, 0, 0, 0], reward, rng, { lr: 0.1 }).meanReward;
    expect(first).toBeLessThan(0.7);
    expect(last).toBeGreaterThan(0.9);
    expect(params.keywordWeights.get("good")).toBeGreaterThan(0);
    expect(params.keywordWeights.get("bad")).toBeLessThan(0);
  });
});

describe("item-phase carry-over", () => {
  it("decides what the query index sees and keeps the rest of S_i as it was", () => {
    const visible = new Set(["sofa", "leather sofa"]);
    const previous = [["sofa", "tufted", "chesterfield"], ["oak table"], []];
    const decided = [["leather sofa"], ["sofa"], []];
    // Item 0 drops "sofa" (seen, decided against) and keeps its unseen keywords; item 1 adds "sofa".
    expect(carryOver(decided, previous, visible)).toEqual([["leather sofa", "tufted", "chesterfield"], ["sofa", "oak table"], []]);
  });

  it("never exceeds K_max", () => {
    const previous = [Array.from({ length: 30 }, (_, j) => `old ${j}`)];
    const decided = [["new"]];
    const out = carryOver(decided, previous, new Set(["new"]));
    expect(out[0]).toHaveLength(30);
    expect(out[0]?.[0]).toBe("new");
  });
});
