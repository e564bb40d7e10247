/**
 * App. B.3's reward tables as the item phase's GRPO workers get them
 * (training/lexical-phases.ts → training/parallel/item-worker.ts): built on
 * SharedArrayBuffers, a structured clone (what postMessage makes) reads the
 * same memory, and gives the same rewards as the input it was built from.
 */
import { Worker } from "node:worker_threads";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ItemRewardContext, type ItemRewardInput } from "../../core/reward.js";
import { itemRewardTables } from "../../core/reward-tables.js";

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

const shared = (bytes: number) => new SharedArrayBuffer(bytes);

describe("the reward tables shared between threads", () => {
  it("cloned as postMessage clones them, give the input's rewards", () => {
    fc.assert(
      fc.property(input, fc.array(word, { maxLength: 5 }), (x: ItemRewardInput, candidate) => {
        const tables = itemRewardTables(x, (i) => x.itemSets[i] ?? [], shared);
        const back = structuredClone(tables);
        const [a, b] = [new ItemRewardContext(x), new ItemRewardContext(back)];
        expect(b.referenceTotal()).toBe(a.referenceTotal());
        for (let i = 0; i < x.itemNames.length; i++) expect(b.reward(i, candidate)).toBe(a.reward(i, candidate));
      }),
      { numRuns: 200 },
    );
  });

  it("are one copy: a clone's arrays are views of the same SharedArrayBuffers", () => {
    const sets = Array.from({ length: 1000 }, (_, i) => ["chair", i % 2 ? "oak chair" : "rug"]);
    const tables = itemRewardTables(
      { itemNames: sets.map(() => "chair"), querySets: [["chair"], ["rug"]], relevant: [new Set([1]), new Set()] },
      (i) => sets[i] ?? [],
      shared,
    );
    const back = structuredClone(tables);
    for (const key of ["postingStart", "postingQueries", "itemStart", "itemKeywords", "names", "relStart", "relQueries", "nRet", "nTp", "nRel"] as const) {
      expect(back[key].buffer).toBeInstanceOf(SharedArrayBuffer);
    }
    back.nTp[0] = 41;
    expect(tables.nTp[0]).toBe(41);
    // Only what the query sets hold: "oak chair" is in no query set, so item 1's keywords are "chair" alone.
    expect([...tables.itemKeywords.subarray(tables.itemStart[1], tables.itemStart[2])]).toEqual([0]);
  });

  it("reach a worker thread without a copy", async () => {
    const tables = itemRewardTables(
      { itemNames: ["chair", "rug"], querySets: [["chair"]], relevant: [new Set([0])] },
      (i) => [["chair"], ["rug"]][i] ?? [],
      shared,
    );
    const worker = new Worker("const { parentPort, workerData } = require('node:worker_threads'); workerData.nRet[0] = 7; parentPort.postMessage('done');", {
      eval: true,
      workerData: tables,
    });
    await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(tables.nRet[0]).toBe(7);
  });
});
