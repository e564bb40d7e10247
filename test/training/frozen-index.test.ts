/**
 * The query phase's frozen item index read from the served index
 * (training/rewards.ts FrozenIndex.fromIndex): eq. 2.2's rewards are the
 * ones a keyword → ordinals table built from S_i ∪ {i} gives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { itemKeywordSet, KeywordIndex } from "../../core/inverted-index.js";
import { FrozenIndex, queryRewardFn } from "../../training/rewards.js";

const keyword = fc.constantFrom("chair", "oak chair", "rug", "Wool Rug", "lamp", "desk lamp", "sofa", "");

describe("the frozen item index from the served index", () => {
  it("retrieves and rewards as one built from the item sets", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: keyword, keywords: fc.array(keyword, { maxLength: 5 }) }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.array(keyword, { maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        (raw, querySets) => {
          // Ids in index order (compareIds: numeric ids by value), as the training view holds them.
          const items = raw.map((it, j) => ({ ...it, id: String(j) }));
          const index = KeywordIndex.build(items);
          const sets = items.map((it) => itemKeywordSet(it));
          const ids = items.map((it) => it.id);
          const queries = querySets.map((_, q) => ({ text: q % 2 ? "chair" : "rug", relevant: new Set([q % items.length]) }));
          const [a, b] = [new FrozenIndex(sets), FrozenIndex.fromIndex(index, ids)];
          for (const ks of querySets) expect(b.retrieve(ks)).toEqual(a.retrieve(ks));
          const [ra, rb] = [queryRewardFn(new FrozenIndex(sets), queries), queryRewardFn(FrozenIndex.fromIndex(index, ids), queries)];
          querySets.forEach((ks, q) => {
            expect(rb(q, ks)).toBe(ra(q, ks));
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses an index whose items are in another order", () => {
    const index = KeywordIndex.build([
      { id: "b", name: "oak chair", keywords: [] },
      { id: "a", name: "rug", keywords: [] },
    ]);
    expect(() => FrozenIndex.fromIndex(index, ["b", "a"])).toThrow(/order/);
  });
});
