import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mergeLabels } from "../../core/labels.js";
import { queryMetrics } from "../../core/metrics.js";
import { jaccardAt, ndcgAt, rankChange, rboAt } from "../../core/overlap.js";
import { bootstrapCi, pairedSummary } from "../../workers/search/workbench/paired.js";

describe("overlap of two rankings", () => {
  it("Jaccard of the top-k sets", () => {
    expect(jaccardAt([1, 2, 3, 4], [3, 4, 5, 6], 4)).toBe(2 / 6);
    expect(jaccardAt([1, 2, 3, 4], [3, 4, 5, 6], 2)).toBe(0);
    expect(jaccardAt([], [], 10)).toBe(1);
  });

  it("RBO_ext: 1 for identical rankings, 0 for disjoint ones, Webber et al.'s sum otherwise", () => {
    expect(rboAt([1, 2, 3], [1, 2, 3], 3)).toBeCloseTo(1, 12);
    expect(rboAt([1, 2, 3], [4, 5, 6], 3)).toBe(0);
    // a = [1,2], b = [2,1], p = 0.9: A_1 = 0, A_2 = 1 → 1·0.81 + (0.1/0.9)·(0 + 0.81) = 0.9.
    expect(rboAt([1, 2], [2, 1], 2)).toBeCloseTo(0.9, 12);
    // A swap at the top costs more than the same swap further down.
    expect(rboAt([2, 1, 3, 4], [1, 2, 3, 4], 4)).toBeLessThan(rboAt([1, 2, 4, 3], [1, 2, 3, 4], 4));
  });

  it("RBO stays in [0, 1] and is symmetric", () => {
    const list = fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 25 });
    fc.assert(
      fc.property(list, list, fc.integer({ min: 1, max: 40 }), (a, b, k) => {
        const r = rboAt(a, b, k);
        expect(r).toBeGreaterThanOrEqual(-1e-12);
        expect(r).toBeLessThanOrEqual(1 + 1e-12);
        expect(r).toBeCloseTo(rboAt(b, a, k), 12);
      }),
    );
  });

  it("rank changes: up, down, same, new, gone", () => {
    expect(rankChange(2, 5)).toEqual({ kind: "up", by: 3 });
    expect(rankChange(7, 2)).toEqual({ kind: "down", by: 5 });
    expect(rankChange(4, 4)).toEqual({ kind: "same", by: 0 });
    expect(rankChange(1, null)).toEqual({ kind: "new" });
    expect(rankChange(null, 3)).toEqual({ kind: "gone" });
    expect(() => rankChange(null, null)).toThrow(RangeError);
  });

  it("NDCG@k over ids equals core's queryMetrics over ordinals", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 120 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 40 }),
        (ranked, rel) => {
          const relevant = new Set(rel);
          const m = queryMetrics(ranked, ranked.length, relevant);
          expect(ndcgAt(ranked, relevant, 10)).toBeCloseTo(m.at[10].ndcg, 12);
          expect(ndcgAt(ranked, relevant, 100)).toBeCloseTo(m.at[100].ndcg, 12);
        },
      ),
    );
  });
});

describe("labels merged with judgments", () => {
  it("keeps the file's label unless a judgment is newer; among raters the newest judgment", () => {
    const file = [
      { itemId: "a", label: "Exact" as const, loadedAt: "2026-01-02T00:00:00Z" },
      { itemId: "b", label: "Exact" as const, loadedAt: "2026-01-02T00:00:00Z" },
      { itemId: "c", label: "Partial" as const, loadedAt: null },
    ];
    const judged = [
      { itemId: "a", label: "Irrelevant" as const, judgedAt: "2026-01-01T00:00:00Z" },
      { itemId: "b", label: "Partial" as const, judgedAt: "2026-01-03T00:00:00Z" },
      { itemId: "b", label: "Irrelevant" as const, judgedAt: "2026-01-04T00:00:00Z" },
      { itemId: "c", label: "Exact" as const, judgedAt: "2026-01-01T00:00:00Z" },
      { itemId: "d", label: "Partial" as const, judgedAt: "2026-01-01T00:00:00Z" },
    ];
    expect(Object.fromEntries(mergeLabels(file, judged))).toEqual({ a: "Exact", b: "Irrelevant", c: "Exact", d: "Partial" });
    expect(mergeLabels([], []).size).toBe(0);
  });
});

describe("paired summary of per-query deltas", () => {
  it("counts wins, losses and ties, and gives the sign test's two-sided p", () => {
    const s = pairedSummary([
      [1, 0],
      [1, 0],
      [1, 0],
      [1, 0],
      [1, 0],
      [0.5, 0.5],
    ]);
    expect([s.queries, s.wins, s.losses, s.ties]).toEqual([6, 5, 0, 1]);
    expect(s.meanDelta).toBeCloseTo(5 / 6, 12);
    expect(s.signTestP).toBeCloseTo(2 / 32, 12); // 2 · 0.5^5
    expect(pairedSummary([]).signTestP).toBe(1);
  });

  it("bootstraps an interval that holds the mean, is seeded, and shrinks with more queries", () => {
    const few = Array.from({ length: 10 }, (_, j) => (j % 3) - 0.8);
    const many = Array.from({ length: 400 }, (_, j) => (j % 3) - 0.8);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const [lo, hi] = bootstrapCi(few);
    expect(lo).toBeLessThanOrEqual(mean(few));
    expect(hi).toBeGreaterThanOrEqual(mean(few));
    expect(bootstrapCi(few)).toEqual([lo, hi]);
    const [lo2, hi2] = bootstrapCi(many);
    expect(hi2 - lo2).toBeLessThan(hi - lo);
    expect(bootstrapCi([0.25, 0.25])).toEqual([0.25, 0.25]);
  });
});
