/** fast-check arbitraries the posting tests share. */
import fc from "fast-check";

/** Strictly ascending item ordinals. */
export const ascendingItems = (maxLength = 300) =>
  fc.uniqueArray(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength }).map((xs) => Uint32Array.from(xs.sort((a, b) => a - b)));

/** A word posting: ascending items with a tf and an item length each. */
export const wordPostings = (maxLength = 300) =>
  ascendingItems(maxLength).chain((items) =>
    fc
      .tuple(
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: items.length, maxLength: items.length }),
        fc.array(fc.integer({ min: 0, max: 2 ** 31 }), { minLength: items.length, maxLength: items.length }),
      )
      .map(([tfs, lengths]) => ({ items, tfs: Uint32Array.from(tfs), lengths: Uint32Array.from(lengths) })),
  );

/**
 * BM25's k1 and b. fast-check's doubles lean to a range's ends (k1 or b near 0, where an item's length no longer
 * counts), so BM25's usual values, and values drawn evenly, come first.
 */
export const bm25Params = fc.record({
  k1: fc.oneof(
    { arbitrary: fc.constantFrom(1.2, 0.9, 2), weight: 2 },
    fc.integer({ min: 0, max: 3000 }).map((x) => x / 1000),
    fc.double({ min: 0, max: 3, noNaN: true }),
  ),
  b: fc.oneof(
    { arbitrary: fc.constantFrom(0.75, 0.4, 1), weight: 2 },
    fc.integer({ min: 0, max: 1000 }).map((x) => x / 1000),
    fc.double({ min: 0, max: 1, noNaN: true }),
  ),
});
