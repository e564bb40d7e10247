import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decode } from "../../core/policy.js";
import { type Candidate, POLICY_LIMITS } from "../../core/policy-candidates.js";
import { FEATURE_COUNT, FEATURES, newParams, pairWeightIndex, WEIGHT_COUNT } from "../../core/policy-features.js";
import { Rng } from "../../core/rng.js";
import { decodeQuery, decodeSequential, inContext, sampleSequential, usesSetFeatures, walkMode } from "../../core/set-policy.js";
import { newAdamState } from "../../training/optimizer.js";
import { grpoStep } from "../../training/phase.js";

const F = (name: (typeof FEATURES)[number]) => FEATURES.indexOf(name);
const SET = FEATURES.filter((f) => f.startsWith("set"));

function candidate(keyword: string, df: number, on: Array<(typeof FEATURES)[number]> = []): Candidate {
  const features = new Array<number>(FEATURE_COUNT).fill(0);
  for (const f of ["bias", "ngram", ...on] as const) features[F(f)] = 1;
  return { keyword, features, words: keyword.split(" "), df };
}

describe("set-aware decoding (core/set-policy.ts)", () => {
  it("describes what the kept set already does for each candidate", () => {
    const pouf = candidate("pouf", 44, ["containsHead", "isHead"]);
    const small = candidate("small pouf", 2, ["containsHead"]);
    const woven = candidate("woven", 300);
    const get = (c: Candidate, kept: Candidate[]) => Object.fromEntries(SET.map((f) => [f, inContext(c, kept).features[F(f)]]));
    expect(get(pouf, [])).toEqual({ setEmpty: 1, setCovered: 0, setSharesWord: 0, setHeadKept: 0, setMaxDfUpTo5: 0, setMaxDfUpTo50: 0, setMaxDfOver50: 0 });
    expect(get(pouf, [small])).toEqual({
      setEmpty: 0,
      setCovered: 1,
      setSharesWord: 0,
      setHeadKept: 1,
      setMaxDfUpTo5: 1,
      setMaxDfUpTo50: 0,
      setMaxDfOver50: 0,
    });
    expect(get(small, [pouf, woven])).toEqual({
      setEmpty: 0,
      setCovered: 0,
      setSharesWord: 1,
      setHeadKept: 1,
      setMaxDfUpTo5: 0,
      setMaxDfUpTo50: 0,
      setMaxDfOver50: 1,
    });
    // The candidate's own features are untouched.
    expect(inContext(pouf, [small]).features.filter((_, j) => !FEATURES[j]?.startsWith("set"))).toEqual(
      pouf.features.filter((_, j) => !FEATURES[j]?.startsWith("set")),
    );
  });

  it("decodes as independent decisions when every set weight is 0", () => {
    const names = FEATURES.filter((f) => !f.startsWith("set"));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("pouf", "small pouf", "woven pouf", "desk", "kids desk", "rug", "area rug"), fc.integer({ min: 0, max: 500 })), {
          maxLength: 12,
        }),
        fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: names.length, maxLength: names.length }),
        fc.integer({ min: 1, max: 5 }),
        (rows, w, kMax) => {
          const seen = new Set<string>();
          const cands = rows.filter(([k]) => !seen.has(k) && seen.add(k)).map(([k, df]) => candidate(k, df, df === 0 ? ["unknownOpposite"] : []));
          const params = newParams();
          names.forEach((n, j) => {
            params.weights[F(n)] = w[j] as number;
          });
          expect(usesSetFeatures(params)).toBe(false);
          expect(walkMode(params, cands, kMax)).toEqual(decode(params, cands, kMax));
          expect(decodeSequential(params, cands, kMax)).toEqual(decode(params, cands, kMax));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("walks whenever a weight reads a set feature, its own or a pair's", () => {
    const params = newParams();
    params.weights[pairWeightIndex(F("isHead"), F("setMaxDfOver50"))] = -1;
    expect(usesSetFeatures(params)).toBe(true);
    params.weights[pairWeightIndex(F("isHead"), F("setMaxDfOver50"))] = 0;
    params.weights[F("setEmpty")] = 0.5;
    expect(usesSetFeatures(params)).toBe(true);
  });

  it("drops a keyword the kept set already covers, when its weight says so", () => {
    const cands = [candidate("small pouf", 2, ["len2"]), candidate("pouf", 44, ["len1", "isHead"])];
    const params = newParams(1);
    params.weights[F("len1")] = -0.5; // the broad head ranks second
    expect(decodeQuery(params, cands, 5)).toEqual(["small pouf", "pouf"]);
    params.weights[F("setCovered")] = -5;
    expect(decodeQuery(params, cands, 5)).toEqual(["small pouf"]);
    // Stopping at K_max: the walk ends once K_max keywords are kept.
    params.weights[F("setCovered")] = 0;
    expect(sampleSequential(params, cands, 1, new Rng(1)).length).toBeLessThanOrEqual(2);
    expect(decodeQuery(params, cands, 1)).toEqual(["small pouf"]);
  });

  it("learns through GRPO what independent decisions cannot: keep exactly one of two look-alike keywords", () => {
    // Two candidates with identical features per input, new keywords for every input: per-keyword weights
    // cannot carry over, and independent decisions keep both or neither as often as one (reward ≤ 0.5).
    const input = (i: number) => [candidate(`a${i}`, 10), candidate(`b${i}`, 10)];
    const train = Array.from({ length: 48 }, (_, i) => input(i));
    const reward = (i: number, kw: readonly string[]) => (kw.length === 1 && kw[0]?.endsWith(String(i)) ? 1 : 0);
    const params = newParams(0);
    const adam = newAdamState();
    const rng = new Rng(11);
    expect(params.weights.length).toBe(WEIGHT_COUNT);
    for (let step = 0; step < 150; step++) {
      const batch = Array.from({ length: 16 }, () => Math.floor(rng.next() * train.length));
      grpoStep(params, adam, train, batch, reward, rng, { lr: 0.05, groupSize: 8, sequentialKMax: POLICY_LIMITS.maxCandidates });
    }
    const fresh = Array.from({ length: 20 }, (_, i) => input(1000 + i));
    const mean = fresh.reduce((s, c, i) => s + reward(1000 + i, decodeSequential(params, c, POLICY_LIMITS.maxCandidates)), 0) / fresh.length;
    expect(mean).toBe(1);
    expect(params.weights[F("setEmpty")]).toBeGreaterThan(params.weights[F("setSharesWord")] as number);
  });
});
