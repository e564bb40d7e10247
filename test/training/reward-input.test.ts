/**
 * The reward input packed for the GRPO workers (training/parallel/reward-input.ts):
 * unpacked, it is the input, and App. B.3's context gives the same rewards.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ItemRewardContext, type ItemRewardInput } from "../../core/reward.js";
import { packRewardInput, unpackRewardInput } from "../../training/parallel/reward-input.js";

const word = fc.constantFrom("chair", "oak chair", "rug", "wool rug", "lamp", "desk lamp", "", "sofa");
const input = fc
  .tuple(
    fc.array(fc.array(word, { maxLength: 6 }), { minLength: 1, maxLength: 40 }),
    fc.array(fc.array(word, { maxLength: 4 }), { minLength: 1, maxLength: 6 }),
  )
  .chain(([sets, querySets]) =>
    fc.record({
      itemSets: fc.constant(sets),
      itemNames: fc.array(word, { minLength: sets.length, maxLength: sets.length }),
      querySets: fc.constant(querySets),
      relevant: fc.array(
        fc.uniqueArray(fc.nat(sets.length - 1)).map((r) => new Set(r)),
        { minLength: querySets.length, maxLength: querySets.length },
      ),
    }),
  );

describe("the packed reward input", () => {
  it("unpacks to the input, and gives the same rewards", () => {
    fc.assert(
      fc.property(input, fc.array(word, { maxLength: 5 }), (x: ItemRewardInput, candidate) => {
        const packed = packRewardInput(x);
        // What a worker receives: a structured clone.
        const back = unpackRewardInput(structuredClone(packed));
        expect(back.itemSets.map((s) => [...s])).toEqual(x.itemSets.map((s) => [...s]));
        expect(back.itemNames).toEqual(x.itemNames);
        expect(back.relevant).toEqual(x.relevant);
        const [a, b] = [new ItemRewardContext(x), new ItemRewardContext(back)];
        for (let i = 0; i < x.itemNames.length; i++) expect(b.reward(i, candidate)).toBe(a.reward(i, candidate));
      }),
      { numRuns: 200 },
    );
  });

  it("sends each distinct keyword once", () => {
    const sets = Array.from({ length: 1000 }, (_, i) => ["chair", i % 2 ? "oak chair" : "rug"]);
    const packed = packRewardInput({ itemSets: sets, itemNames: sets.map(() => "chair"), querySets: [["chair"]], relevant: [new Set([1])] });
    expect(packed.strings).toEqual(["chair", "rug", "oak chair"]);
    expect(packed.ids.length).toBe(2000);
  });
});
