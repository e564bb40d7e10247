import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { itemKeywordSet } from "../../core/inverted-index.js";
import { f1FromCounts } from "../../core/metrics.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { ItemRewardContext, queryReward } from "../../core/reward.js";
import { itemRewardTables } from "../../core/reward-tables.js";
import { ReferenceItemReward } from "../support/reward-reference.js";

const VOCAB = ["a", "b", "c", "d", "e", "f", "g h", "i"];

/** Σ_q F1 over all queries, retrieval recomputed from scratch (the naive eq. 2.3). */
function totalF1(itemSets: string[][], querySets: string[][], relevant: Array<Set<number>>, judged?: Array<Set<number> | undefined>, unjudged = 0): number {
  let s = 0;
  querySets.forEach((qs, q) => {
    const j = judged?.[q];
    const ret = itemSets.map((set, i) => (set.some((k) => qs.includes(k)) ? i : -1)).filter((i) => i >= 0);
    const weight = ret.reduce((n, i) => n + (!j || j.has(i) ? 1 : unjudged), 0);
    const rel = relevant[q] ?? new Set<number>();
    s += f1FromCounts(ret.filter((i) => rel.has(i)).length, weight, rel.size);
  });
  return s;
}

describe("query reward (eq. 2.2)", () => {
  it("is F1, and 0 over the keyword budget", () => {
    expect(queryReward(3, 4, 2, 4)).toBeCloseTo(0.5);
    expect(queryReward(30, 4, 2, 4)).toBeCloseTo(0.5);
    expect(queryReward(31, 4, 2, 4)).toBe(0);
  });
});

describe("item reward (eq. 2.3, App. B.3)", () => {
  const instance = fc.record({
    items: fc.array(fc.record({ name: fc.constantFrom("x", "y", "a", ""), keywords: fc.subarray(VOCAB, { maxLength: 4 }) }), { minLength: 1, maxLength: 12 }),
    queries: fc.array(fc.subarray(VOCAB, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 10 }),
    rel: fc.array(fc.array(fc.nat(11), { maxLength: 6 }), { maxLength: 10 }),
    target: fc.nat(11),
    candidate: fc.subarray([...VOCAB, "z", "Y"], { maxLength: 5 }),
  });

  it("equals brute-force recomputation on random instances", () => {
    fc.assert(
      fc.property(instance, ({ items, queries, rel, target, candidate }) => {
        const itemSets = items.map((it) => itemKeywordSet(it));
        const names = items.map((it) => normalizeKeyword(it.name));
        const relevant = queries.map((_, q) => new Set((rel[q] ?? []).filter((i) => i < items.length)));
        const ctx = new ItemRewardContext({ itemSets, itemNames: names, querySets: queries, relevant });
        const i = target % items.length;
        const before = totalF1(itemSets, queries, relevant);
        expect(ctx.referenceTotal()).toBeCloseTo(before, 12);
        const replaced = itemSets.map((s, j) => (j === i ? itemKeywordSet({ name: items[i]?.name ?? "", keywords: candidate }) : s));
        const expected = totalF1(replaced, queries, relevant) - before;
        expect(ctx.reward(i, candidate)).toBeCloseTo(expected, 12);
      }),
      { numRuns: 500 },
    );
  });

  it("with judged items (click supervision), equals brute force where an unjudged item weighs w in |I_ret| (w = 0: it changes nothing)", () => {
    fc.assert(
      fc.property(
        instance,
        fc.array(fc.option(fc.array(fc.nat(11), { maxLength: 8 })), { maxLength: 10 }),
        fc.constantFrom(0, 0.25, 0.5, 1),
        ({ items, queries, rel, target, candidate }, judgedRaw, w) => {
          const itemSets = items.map((it) => itemKeywordSet(it));
          const names = items.map((it) => normalizeKeyword(it.name));
          const relevant = queries.map((_, q) => new Set((rel[q] ?? []).filter((i) => i < items.length)));
          // Judged sets hold the relevant items (as derived relevance does) plus some others; null: every item judged.
          const judged = queries.map((_, q) => {
            const j = judgedRaw[q];
            return j ? new Set([...(relevant[q] ?? []), ...j.filter((i) => i < items.length)]) : undefined;
          });
          const ctx = new ItemRewardContext({ itemSets, itemNames: names, querySets: queries, relevant, judged, unjudgedWeight: w });
          const i = target % items.length;
          const before = totalF1(itemSets, queries, relevant, judged, w);
          expect(ctx.referenceTotal()).toBeCloseTo(before, 12);
          const replaced = itemSets.map((s, j) => (j === i ? itemKeywordSet({ name: items[i]?.name ?? "", keywords: candidate }) : s));
          expect(ctx.reward(i, candidate)).toBeCloseTo(totalF1(replaced, queries, relevant, judged, w) - before, 12);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps in its tables only what the query sets can match, item by item, and gives the whole input's rewards", () => {
    fc.assert(
      fc.property(instance, ({ items, queries, rel, candidate }) => {
        const itemSets = items.map((it) => itemKeywordSet(it));
        const names = items.map((it) => normalizeKeyword(it.name));
        const relevant = queries.map((_, q) => new Set((rel[q] ?? []).filter((i) => i < items.length)));
        const full = new ItemRewardContext({ itemSets, itemNames: names, querySets: queries, relevant });
        const made: number[] = [];
        const tables = itemRewardTables({ itemNames: names, querySets: queries, relevant }, (i) => {
          made.push(i);
          return itemSets[i] ?? [];
        });
        expect(made).toEqual(items.map((_, i) => i)); // each item's set asked for once, in order
        const inQueries = new Set(queries.flat());
        expect(tables.keywords.every((k) => inQueries.has(k))).toBe(true);
        items.forEach((_, i) => {
          const kept = [...tables.itemKeywords.subarray(tables.itemStart[i], tables.itemStart[i + 1])].map((k) => tables.keywords[k]);
          expect(kept).toEqual((itemSets[i] ?? []).filter((k) => inQueries.has(k)));
          expect(tables.names[i]).toBe(inQueries.has(names[i] ?? "") ? tables.keywords.indexOf(names[i] ?? "") : -1);
        });
        const small = new ItemRewardContext(tables);
        expect(small.referenceTotal()).toBe(full.referenceTotal());
        items.forEach((_, i) => {
          expect(small.reward(i, candidate)).toBe(full.reward(i, candidate));
          expect(small.reward(i, [...VOCAB])).toBe(full.reward(i, [...VOCAB]));
        });
      }),
      { numRuns: 300 },
    );
  });

  it("is −1 over the budget and 0 for the reference set itself", () => {
    const ctx = new ItemRewardContext({ itemSets: [["a", "x"]], itemNames: ["x"], querySets: [["a"]], relevant: [new Set([0])] });
    expect(ctx.reward(0, ["a"])).toBe(0);
    expect(ctx.reward(0, ["a", "b", "c"], 2)).toBe(-1);
    expect(ctx.reward(0, ["b"])).toBeCloseTo(-1); // the only relevant retrieval is lost: F1 1 → 0
  });
});

describe("item reward against the reference (the state as maps and sets, test/support/reward-reference.ts)", () => {
  const instance = fc.record({
    items: fc.array(fc.record({ name: fc.constantFrom("x", "y", "a", "g h", ""), keywords: fc.array(fc.constantFrom(...VOCAB), { maxLength: 5 }) }), {
      minLength: 1,
      maxLength: 20,
    }),
    queries: fc.array(fc.array(fc.constantFrom(...VOCAB, "x"), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
    rel: fc.array(fc.array(fc.nat(24), { maxLength: 6 }), { maxLength: 12 }),
    judged: fc.array(fc.option(fc.array(fc.nat(24), { maxLength: 8 })), { maxLength: 12 }),
    weight: fc.constantFrom(0, 0.1, 1 / 3, 0.7),
    candidates: fc.array(fc.subarray([...VOCAB, "z", "Y", "X"], { maxLength: 6 }), { minLength: 1, maxLength: 4 }),
  });

  it("gives the same rewards and reference total bit for bit, duplicates and unjudged weights included", () => {
    fc.assert(
      fc.property(instance, ({ items, queries, rel, judged, weight, candidates }) => {
        // Duplicated keywords in item and query sets, relevant ordinals past the items: as the reference took them.
        const itemSets = items.map((it) => [...it.keywords, normalizeKeyword(it.name)].filter((k) => k !== ""));
        const input = {
          itemSets,
          itemNames: items.map((it) => normalizeKeyword(it.name)),
          querySets: queries,
          relevant: queries.map((_, q) => new Set(rel[q] ?? [])),
          judged: queries.map((_, q) => (judged[q] ? new Set(judged[q]) : undefined)),
          unjudgedWeight: weight,
        };
        const ours = new ItemRewardContext(input);
        const ref = new ReferenceItemReward(input);
        expect(Object.is(ours.referenceTotal(), ref.referenceTotal())).toBe(true);
        items.forEach((_, i) => {
          for (const c of candidates) {
            const [a, b] = [ours.reward(i, c), ref.reward(i, c)];
            expect(Object.is(a, b), `item ${i}, ${JSON.stringify(c)}: ${a} against ${b}`).toBe(true);
          }
          expect(ours.reward(i, ["a", "b", "c"], 2)).toBe(-1);
        });
        expect(() => ours.reward(items.length, ["a"])).toThrow(RangeError);
      }),
      { numRuns: 400 },
    );
  });
});
