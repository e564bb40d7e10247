/** The dashboards' look times (workers/search/experiments/looks.ts): evenly spread, ascending, the last at the span's end. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lookTimes, SERIES_LIMITS } from "../../workers/search/experiments/looks.js";

describe("lookTimes", () => {
  it("gives n ascending looks ending at the span's end, for any span", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: 1, max: 1e10 }), fc.integer({ min: 2, max: 50 }), (from, width, n) => {
        const at = lookTimes(from, from + width, n);
        expect(at).toHaveLength(n);
        expect(at.at(-1)).toBe(from + width);
        for (let j = 1; j < at.length; j++) expect(at[j] as number).toBeGreaterThanOrEqual(at[j - 1] as number);
        expect(at[0] as number).toBeGreaterThan(from - 1);
      }),
    );
  });

  it("gives one look for an empty span, and the limit by default", () => {
    expect(lookTimes(5, 5)).toEqual([5]);
    expect(lookTimes(0, 1200)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200]);
    expect(lookTimes(0, 1200)).toHaveLength(SERIES_LIMITS.looksMax);
  });
});
