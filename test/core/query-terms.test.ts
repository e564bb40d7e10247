import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeywordIndex } from "../../core/inverted-index.js";
import { NO_QUERY_TERMS, validateQueryTerms } from "../../core/query-terms.js";
import { planQuery } from "../../core/retrieve.js";
import { indexFromPostings, indexHeader, indexPostings, parseIndexHeader } from "../../core/round-format.js";

const TERMS = validateQueryTerms({ stopWords: ["for", "with", "the"], queryWordWeight: 3 });

const items = [
  { id: "1", name: "grey sofa", keywords: ["sofa", "grey sofa"] },
  { id: "2", name: "blue sofa", keywords: ["sofa", "couch"] },
  { id: "3", name: "kids desk", keywords: ["desk", "desk for kids", "kids"] },
  { id: "4", name: "oak desk", keywords: ["desk", "oak"] },
  { id: "5", name: "for", keywords: ["for"] },
];

describe("query terms (core/query-terms.ts)", () => {
  it("stop words weigh nothing, never retrieve alone, and a longer keyword holding one still matches", () => {
    const plan = planQuery(["desk", "for", "desk for kids"], "desk for kids", TERMS);
    expect(plan.keywords).toEqual(["desk", "desk for kids"]);
    expect(plan.words).toEqual(["desk", "kids"]);
    expect(planQuery(["for"], "for", TERMS)).toEqual({ keywords: [], words: [], weights: [] });
    const index = KeywordIndex.build(items, { queryTerms: TERMS });
    const page = index.search(plan);
    expect(page.hits.map((h) => index.ids[h.item])).toEqual(["3", "4"]);
  });

  it("the typed words, and a correction's, weigh queryWordWeight; generated ones weigh 1", () => {
    expect(planQuery(["couch", "sofa"], "grey sofa", TERMS)).toEqual({
      keywords: ["couch", "grey sofa", "sofa"],
      words: ["couch", "grey", "sofa"],
      weights: [1, 3, 3],
    });
    // words: couch, gery, grey, sofa
    expect(planQuery(["couch", "grey sofa"], "gery sofa", TERMS, "grey sofa").weights).toEqual([1, 3, 3, 3]);
    expect(planQuery(["couch", "grey sofa"], "gery sofa", TERMS).weights).toEqual([1, 3, 1, 3]);
  });

  it("with no terms a plan is what it always was, and weights of 1 score bit-identically", () => {
    const words = fc.subarray(["sofa", "grey", "desk", "kids", "oak", "couch", "for"], { minLength: 1 });
    const index = KeywordIndex.build(items);
    fc.assert(
      fc.property(words, (ws) => {
        const plain = planQuery(ws, "");
        expect(plain.weights).toBeUndefined();
        const ones = { ...plain, weights: plain.words.map(() => 1) };
        expect(index.search(ones)).toEqual(index.search(plain));
      }),
    );
  });

  it("the round records them in its index header, and a header without them reads as none", () => {
    const index = KeywordIndex.build(items, { queryTerms: TERMS });
    const header = parseIndexHeader(JSON.stringify(indexHeader(index, 4096)), "test");
    expect(header.queryTerms).toEqual(TERMS);
    const back = indexFromPostings(index.ids, index.totalLength, indexPostings(index, 4096), header.ranker, header.queryTerms);
    expect(back.queryTerms).toEqual(TERMS);
    const { queryTerms: _none, ...old } = indexHeader(index, 4096);
    expect(parseIndexHeader(JSON.stringify(old), "test").queryTerms).toEqual(NO_QUERY_TERMS);
    expect(() => parseIndexHeader(JSON.stringify({ ...old, queryTerms: { stopWords: ["For"], queryWordWeight: 2 } }), "p")).toThrow(/query terms/);
    expect(() => validateQueryTerms({ stopWords: [], queryWordWeight: 0.5 })).toThrow(/queryWordWeight/);
  });
});
