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
