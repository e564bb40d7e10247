import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keywordWords, normalizeKeyword, normalizeKeywordSet } from "../../core/normalize.js";

describe("normalizeKeyword", () => {
  it("folds case, compatibility forms and punctuation", () => {
    expect(normalizeKeyword('  Bar (28"-33")  ')).toBe("bar 28 33");
    expect(normalizeKeyword("ＡＢＣ　Chair")).toBe("abc chair");
    expect(normalizeKeyword("ﬁne—art/décor")).toBe("fine art décor");
    expect(normalizeKeyword("Mid-Century\tMODERN\n")).toBe("mid century modern");
  });

  it("drops what normalises to nothing", () => {
    expect(normalizeKeyword(" -- !! ")).toBe("");
    expect(normalizeKeywordSet(["Sofa", "sofa!", "", "...", "SOFA bed"])).toEqual(["sofa", "sofa bed"]);
  });

  it("is idempotent on any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (s) => {
        const once = normalizeKeyword(s);
        expect(normalizeKeyword(once)).toBe(once);
        expect(once).not.toMatch(/^ | $| {2}/);
      }),
      { numRuns: 2000 },
    );
  });

  it("splits a multi-word keyword into its words", () => {
    expect(keywordWords("accent chair")).toEqual(["accent", "chair"]);
    expect(keywordWords("")).toEqual([]);
  });
});
