/** core/retrieve.ts unionPostings: the sorted, distinct ordinals of its lists, by bitmap or by sort alike. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unionPostings } from "../../core/retrieve.js";

const naive = (lists: readonly number[][]) => [...new Set(lists.flat())].sort((a, b) => a - b);
const sortedList = (max: number) => fc.uniqueArray(fc.nat(max), { maxLength: 60 }).map((xs) => xs.sort((a, b) => a - b));

describe("unionPostings", () => {
  it("is the sorted distinct union, for dense lists (bitmap) and sparse ones (sort)", () => {
    const lists = fc.constantFrom(100, 5_000, 2 ** 31 + 5).chain((max) => fc.array(sortedList(max), { maxLength: 8 }));
    fc.assert(
      fc.property(lists, (ls) => {
        expect([...unionPostings(ls.map((l) => Uint32Array.from(l)))]).toEqual(naive(ls));
      }),
      { numRuns: 300 },
    );
  });

  it("takes both paths: a million ordinals under 300k entries, and a few entries far apart", () => {
    const dense = Array.from({ length: 12 }, (_, j) => Array.from({ length: 25_000 }, (_, i) => (i * 37 + j * 1_001) % 1_000_000).sort((a, b) => a - b));
    expect([...unionPostings(dense.map((l) => Uint32Array.from(new Set(l))))]).toEqual(naive(dense));
    const sparse = [[3, 4_000_000_000], [7, 2 ** 31 + 1], [3]];
    expect([...unionPostings(sparse.map((l) => Uint32Array.from(l)))]).toEqual([3, 7, 2 ** 31 + 1, 4_000_000_000]);
    // A list out of order is still unioned right (the bitmap gives way to the sort).
    expect([...unionPostings([Uint32Array.of(5, 900, 2), Uint32Array.of(1, 3, 4)])]).toEqual([1, 2, 3, 4, 5, 900]);
  });
});
