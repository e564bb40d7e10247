import { describe, expect, it } from "vitest";
import { buildCandidates, type Candidate, FEATURE_COUNT, logits, newParams, sampleSet, setLogProb } from "../../core/policy.js";
import { Rng } from "../../core/rng.js";
import { clippedSurrogate, grpoAdvantages, supervisedLoss } from "../../training/grpo.js";
import { newAdamState } from "../../training/optimizer.js";
import { grpoStep } from "../../training/phase.js";

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
  const f = new Float64Array(FEATURE_COUNT);
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
    expect([...z].every((v) => v === 0)).toBe(true);
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
