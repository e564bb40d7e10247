/** The experiment statistics against values computed by hand (Python's statistics.NormalDist, to 1e-6). */
import { describe, expect, it } from "vitest";
import {
  minimumDetectableEffect,
  msprt,
  msprtOneSample,
  percentile,
  sampleRatioMismatch,
  signTest,
  twoProportionZTest,
  verdictOf,
} from "../../workers/search/experiments/statistics.js";

const control = { successes: 100, trials: 1000 };
const treatment = { successes: 130, trials: 1000 };

describe("fixed-horizon tests", () => {
  it("two-proportion z-test: pooled z, two-sided p, unpooled 95 % interval", () => {
    const t = twoProportionZTest(control, treatment);
    expect(t.difference).toBeCloseTo(0.03, 12);
    expect(t.z).toBeCloseTo(2.102740605622114, 9);
    expect(t.pValue).toBeCloseTo(0.03548845046647475, 7);
    expect(t.ci95[0]).toBeCloseTo(0.0020679344393763725, 7);
    expect(t.ci95[1]).toBeCloseTo(0.05793206556062362, 7);
  });

  it("sign test: exact binomial, two-sided, ties left out", () => {
    expect(signTest(8, 2)).toBeCloseTo(112 / 1024, 12); // 2 · (1 + 10 + 45) / 2^10
    expect(signTest(5, 5)).toBe(1);
    expect(signTest(0, 0)).toBe(1);
    expect(signTest(20, 0)).toBeCloseTo(2 / 2 ** 20, 15);
  });

  it("chi-square SRM: flagged below p = 0.001 only", () => {
    const fair = sampleRatioMismatch([5100, 4900], [5000, 5000]);
    expect(fair.chiSquare).toBeCloseTo(4, 12); // 2 · 100² / 5000
    expect(fair.pValue).toBeCloseTo(0.04550026389635857, 9);
    expect(fair.mismatch).toBe(false);
    const skewed = sampleRatioMismatch([9100, 900], [9000, 1000]);
    expect(skewed.chiSquare).toBeCloseTo(100 ** 2 / 9000 + 100 ** 2 / 1000, 9);
    expect(skewed.mismatch).toBe(true);
  });

  it("minimum detectable effect at 80 % power", () => {
    expect(minimumDetectableEffect(0.1, 1000, 1000)).toBeCloseTo(0.03758720995475503, 7);
    expect(minimumDetectableEffect(0.1, 0, 10)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("the mixture SPRT", () => {
  it("gives 1/Λ and the confidence sequence of the normal mixture", () => {
    const s = msprt(control, treatment, { tau: 0.02, alpha: 0.05 });
    expect(s.pValue).toBeCloseTo(0.39640450262080684, 7);
    expect(s.confidenceSequence[0]).toBeCloseTo(-0.01656200046692416, 7);
    expect(s.confidenceSequence[1]).toBeCloseTo(0.07656200046692416, 7);
  });

  it("is more conservative than the z-test at one look, and decisive with more data", () => {
    expect(msprt(control, treatment).pValue).toBeGreaterThan(twoProportionZTest(control, treatment).pValue);
    const big = msprt({ successes: 1000, trials: 10_000 }, { successes: 1300, trials: 10_000 });
    expect(big.pValue).toBeLessThan(1e-6);
    expect(big.confidenceSequence[0]).toBeGreaterThan(0);
  });

  it("keeps its false-positive rate under continuous monitoring (A/A, 200 experiments, 40 looks each)", () => {
    let seed = 7;
    const uniform = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    let falsePositives = 0;
    for (let e = 0; e < 200; e++) {
      const c = { successes: 0, trials: 0 };
      const t = { successes: 0, trials: 0 };
      let minP = 1;
      for (let look = 0; look < 40; look++) {
        for (let j = 0; j < 100; j++) {
          c.trials++;
          t.trials++;
          if (uniform() < 0.1) c.successes++;
          if (uniform() < 0.1) t.successes++;
        }
        minP = Math.min(minP, msprt(c, t).pValue);
      }
      if (minP < 0.05) falsePositives++;
    }
    expect(falsePositives / 200).toBeLessThanOrEqual(0.05);
  });

  it("one-sample form for interleaving: share of wins against ½", () => {
    expect(msprtOneSample({ successes: 50, trials: 100 }, 0.5).difference).toBe(0);
    expect(msprtOneSample({ successes: 50, trials: 100 }, 0.5).pValue).toBe(1);
    expect(msprtOneSample({ successes: 700, trials: 1000 }, 0.5, { tau: 0.1 }).pValue).toBeLessThan(1e-10);
  });
});

describe("verdicts and percentiles", () => {
  it("names the winner only below α", () => {
    expect(verdictOf(0.02, 0.01)).toBe("treatment better");
    expect(verdictOf(-0.02, 0.01)).toBe("treatment worse");
    expect(verdictOf(0.02, 0.2)).toBe("no detectable difference yet");
  });

  it("nearest-rank percentiles", () => {
    const xs = Array.from({ length: 100 }, (_, j) => j + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 95)).toBe(95);
    expect(percentile([], 50)).toBe(0);
  });
});
