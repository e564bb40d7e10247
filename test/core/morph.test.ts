import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { singular } from "../../core/morph.js";

describe("singular", () => {
  it("folds the plural forms a catalogue uses", () => {
    const cases: Record<string, string> = {
      pillows: "pillow",
      chairs: "chair",
      benches: "bench",
      boxes: "box",
      glasses: "glass",
      accessories: "accessory",
      shelves: "shelf",
      ottomans: "ottoman",
    };
    for (const [plural, one] of Object.entries(cases)) expect(singular(plural)).toBe(one);
  });

  it("leaves singulars and short words alone", () => {
    for (const w of ["glass", "dress", "bus", "this", "sofa", "tvs", "gas", "analysis", "ceramics"]) expect(singular(w)).toBe(w);
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{0,12}$/), (w) => {
        expect(singular(singular(w))).toBe(singular(w));
      }),
      { numRuns: 3000 },
    );
  });
});
