import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundedDistance, prefixDistance } from "../../core/edit-distance.js";

/** The textbook O(|a|·|b|) optimal string alignment distance, unbounded. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

const word = fc.string({ unit: fc.constantFrom("a", "b", "c", "r", "m"), maxLength: 9 });

describe("boundedDistance", () => {
  it("counts each of the four one-word typos as 1", () => {
    expect(boundedDistance("armchiar", "armchair", 2)).toBe(1); // transposition
    expect(boundedDistance("armchar", "armchair", 2)).toBe(1); // deletion
    expect(boundedDistance("armchairr", "armchair", 2)).toBe(1); // insertion
    expect(boundedDistance("armchsir", "armchair", 2)).toBe(1); // substitution
    expect(boundedDistance("sofa", "table", 1)).toBe(2);
  });

  it("equals the unbounded distance up to max, and max + 1 past it", () => {
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, max) => {
        expect(boundedDistance(a, b, max)).toBe(Math.min(osa(a, b), max + 1));
      }),
    );
  });
});

describe("prefixDistance", () => {
  it("is the least distance to any prefix of the word", () => {
    expect(prefixDistance("armc", "armchair", 1)).toBe(0);
    expect(prefixDistance("amrc", "armchair", 1)).toBe(1);
    expect(prefixDistance("sofx", "armchair", 1)).toBe(2);
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 2 }), (p, w, max) => {
        const best = Math.min(...Array.from({ length: w.length + 1 }, (_, n) => osa(p, w.slice(0, n))));
        expect(prefixDistance(p, w, max)).toBe(Math.min(best, max + 1));
      }),
    );
  });
});
