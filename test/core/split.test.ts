import { describe, expect, it } from "vitest";
import { splitQueries } from "../../core/split.js";

describe("splitQueries", () => {
  const ids = Array.from({ length: 200 }, (_, j) => String(j));
  it("is deterministic for a seed and independent of input order", () => {
    const a = splitQueries(ids, 7, 20);
    const b = splitQueries([...ids].reverse(), 7, 20);
    expect(new Set(a.dev)).toEqual(new Set(b.dev));
    expect(a.dev).toHaveLength(20);
    expect(a.train).toHaveLength(180);
    expect(a.train.some((q) => a.dev.includes(q))).toBe(false);
  });
  it("changes with the seed", () => {
    expect(new Set(splitQueries(ids, 1, 20).dev)).not.toEqual(new Set(splitQueries(ids, 2, 20).dev));
  });
  it("rejects impossible sizes and duplicates", () => {
    expect(() => splitQueries(ids, 1, 201)).toThrow(/devQueries/);
    expect(() => splitQueries(["1", "1"], 1, 1)).toThrow(/duplicate/);
  });
});
