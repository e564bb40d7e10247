/** core/retrieve.ts unionPostings and core/blocks.ts unionKeywordBlocks: the sorted, distinct ordinals of the lists, by bitmap or by sort alike. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockKeywordPosting, type PostingBlock, unionKeywordBlocks } from "../../core/blocks.js";
import { encodeKeywordPosting } from "../../core/postings.js";
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

describe("unionKeywordBlocks", () => {
  it("is unionPostings over the joined blocks, for dense lists (decoded into the bitmap) and sparse ones (property)", () => {
    const lists = fc.constantFrom(100, 5_000, 2 ** 31 + 5).chain((max) => fc.array(sortedList(max), { maxLength: 8 }));
    fc.assert(
      fc.property(lists, fc.integer({ min: 18, max: 80 }), (ls, maxBytes) => {
        const blocks = ls.map((l) => blockKeywordPosting(Uint32Array.from(l), maxBytes));
        expect([...unionKeywordBlocks(blocks)]).toEqual(naive(ls));
      }),
      { numRuns: 300 },
    );
  });

  it("reads a block its first, last or count misdescribe from its bytes, as the joined lists do, and refuses a corrupt one alike", () => {
    const a = blockKeywordPosting(Uint32Array.of(2, 9, 40, 41), 64);
    const b = blockKeywordPosting(Uint32Array.of(1, 3, 900), 64);
    expect(a.length).toBe(1);
    const want = [1, 2, 3, 9, 40, 41, 900];
    expect([...unionKeywordBlocks([a, b])]).toEqual(want);
    const [block] = a as [PostingBlock];
    for (const wrong of [
      { ...block, last: 40 },
      { ...block, count: 3 },
      { ...block, count: 5 },
      // An ordinal past 2^32 - 1 and a count of a billion: no bitmap sized by them is made.
      { ...block, last: 2 ** 32 + 100 },
      { ...block, count: 2 ** 30 },
      { ...block, last: 20_000 },
    ]) {
      expect([...unionKeywordBlocks([[wrong], b])]).toEqual(want);
    }
    // The largest ordinal's block says less than it holds: the bitmap would be too short for it.
    const [top] = b as [PostingBlock];
    expect([...unionKeywordBlocks([a, [{ ...top, last: 800 }]])]).toEqual(want);
    // Bytes past the entries, or entries cut short: the same RangeError either way.
    const longer = { ...block, data: Uint8Array.from([...encodeKeywordPosting(Uint32Array.of(2, 9, 40, 41)), 1]) };
    expect(() => unionKeywordBlocks([[longer], b])).toThrow(RangeError);
    const shorter = { ...block, data: block.data.subarray(0, block.data.length - 1) };
    expect(() => unionKeywordBlocks([[shorter], b])).toThrow(RangeError);
  });
});
