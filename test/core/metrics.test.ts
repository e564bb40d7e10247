import { describe, expect, it } from "vitest";
import { bestCutoff, f1FromCounts, macroAverage, queryMetrics } from "../../core/metrics.js";

describe("metrics", () => {
  it("computes P, R, F1 over the retrieved set and @k metrics by hand", () => {
    // ranking: 5 items, relevant = {2, 4, 9}; item 9 is never retrieved.
    const m = queryMetrics([1, 2, 3, 4, 5], 5, new Set([2, 4, 9]));
    expect(m.p).toBeCloseTo(2 / 5);
    expect(m.r).toBeCloseTo(2 / 3);
    expect(m.f1).toBeCloseTo((2 * (2 / 5) * (2 / 3)) / (2 / 5 + 2 / 3));
    expect(m.at[10].mrr).toBeCloseTo(1 / 2);
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(5);
    const idcg = 1 + 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(m.at[10].ndcg).toBeCloseTo(dcg / idcg);
    expect(m.at[10].p).toBeCloseTo(2 / 10);
    expect(m.at[10].r).toBeCloseTo(2 / 3);
    expect(m.at[10].f1).toBeCloseTo((2 * 0.2 * (2 / 3)) / (0.2 + 2 / 3));
  });

  it("uses only the retrieved prefix for P/R/F1", () => {
    const m = queryMetrics([7, 1, 2], 1, new Set([1, 2]));
    expect(m.p).toBe(0);
    expect(m.f1).toBe(0);
    expect(m.at[10].r).toBe(1);
  });

  it("gives zeros for an empty retrieval", () => {
    const m = queryMetrics([], 0, new Set([1]));
    expect([m.p, m.r, m.f1, m.at[100].mrr, m.at[100].ndcg]).toEqual([0, 0, 0, 0, 0]);
    expect(f1FromCounts(0, 0, 0)).toBe(0);
  });

  it("macro-averages and reports what was left out", () => {
    const a = queryMetrics([1], 1, new Set([1]));
    const b = queryMetrics([2], 1, new Set([1]));
    const s = macroAverage([a, b], 3);
    expect(s.f1).toBeCloseTo(0.5);
    expect(s.queries).toBe(2);
    expect(s.leftOut).toBe(3);
  });

  it("sweeps the cutoff that maximises macro F1", () => {
    const runs = [
      { ranked: [1, 2, 3, 4], relevant: new Set([1, 2]) },
      { ranked: [5, 6, 7, 8], relevant: new Set([5, 9]) },
    ];
    // k=1: (2/3 + 2/3)/2, k=2: (1 + 1/2)/2 = .75, k=3: (.8 + .4)/2
    expect(bestCutoff(runs, 4)).toBe(2);
  });
});
