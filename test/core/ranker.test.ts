import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BM25_DEFAULTS } from "../../core/bm25.js";
import { itemKeywordSet, KeywordIndex } from "../../core/inverted-index.js";
import { keywordWords, normalizeKeyword } from "../../core/normalize.js";
import { KEYWORD_RANKER, parseRanker, RANKER_CHOICES, type RankerSpec, rankerBag, rankerName, TEXT_RANKER, validateRanker } from "../../core/ranker.js";
import { planQuery } from "../../core/retrieve.js";
import { indexHeader, parseIndexHeader } from "../../core/round-format.js";

const VOCAB = ["chair", "arm chair", "red", "red chair", "table", "oak table", "lamp", "desk lamp", "sofa"];
const TEXTS = ["a red oak chair", "grey velvet sofa with arms", "desk lamp, brass", "oak table oak legs", "", "chair chair chair"];

const catalogue = fc.array(
  fc.record({
    name: fc.constantFrom("alpha", "beta chair", "gamma table", "red chair"),
    keywords: fc.subarray(VOCAB, { maxLength: 4 }),
    text: fc.constantFrom(...TEXTS),
  }),
  { minLength: 1, maxLength: 25 },
);
const rankers = fc.constantFrom<RankerSpec>(...RANKER_CHOICES, { keywords: 2, text: 3 });
/** A catalogue (ids by position), a ranker and a query plan. */
const searches = fc
  .tuple(catalogue, rankers, fc.subarray(VOCAB, { maxLength: 3 }), fc.constantFrom("red chair", "oak", "velvet sofa", "zzz"))
  .map(([rows, ranker, gen, q]) => ({ items: rows.map((r, j) => ({ id: String(j), ...r })), ranker, plan: planQuery(gen, q) }));

/** BM25F from its definition: tf and length are the weighted sums over the two fields. */
function bm25f(items: Array<{ name: string; keywords: string[]; text: string }>, ranker: RankerSpec, words: readonly string[]) {
  const fields = items.map((it) => ({ kw: itemKeywordSet(it).flatMap(keywordWords), text: keywordWords(normalizeKeyword(it.text)) }));
  const tf = (j: number, w: string) => {
    const f = fields[j] as { kw: string[]; text: string[] };
    return ranker.keywords * f.kw.filter((x) => x === w).length + ranker.text * f.text.filter((x) => x === w).length;
  };
  const len = fields.map((f) => ranker.keywords * f.kw.length + ranker.text * f.text.length);
  const avg = len.reduce((a, b) => a + b, 0) / len.length || 1;
  return items.map((_, j) => {
    let s = 0;
    for (const w of words) {
      const df = items.filter((_, i) => tf(i, w) > 0).length;
      const t = tf(j, w);
      if (df === 0 || t === 0) continue;
      const idf = Math.log(1 + (items.length - df + 0.5) / (df + 0.5));
      s += (idf * t * (BM25_DEFAULTS.k1 + 1)) / (t + BM25_DEFAULTS.k1 * (1 - BM25_DEFAULTS.b + (BM25_DEFAULTS.b * (len[j] as number)) / avg));
    }
    return { s, matches: words.some((w) => tf(j, w) > 0) };
  });
}

describe("rankers inside I_ret(q) (core/ranker.ts)", () => {
  it("score BM25F over the keyword bag and the text, and leave I_ret(q) alone", () => {
    fc.assert(
      fc.property(searches, ({ items, ranker, plan }) => {
        const index = KeywordIndex.build(items, { ranker });
        const paper = KeywordIndex.build(items);
        const page = index.search(plan);
        // The set is the paper's whatever the ranker: only the order and the scores move.
        expect(page.total).toBe(paper.search(plan).total);
        expect(page.hits.map((h) => h.item).sort((a, b) => a - b)).toEqual(
          paper
            .search(plan)
            .hits.map((h) => h.item)
            .sort((a, b) => a - b),
        );
        const expected = bm25f(items, ranker, plan.words);
        for (const h of page.hits) expect(h.score).toBeCloseTo(expected[h.item]?.s ?? Number.NaN, 10);
      }),
      { numRuns: 150 },
    );
  });

  it("continue past I_ret(q) with the related tail: items sharing a word but no keyword, ranked the same way", () => {
    fc.assert(
      fc.property(searches, ({ items, ranker, plan }) => {
        const index = KeywordIndex.build(items, { ranker });
        const plain = index.search(plan);
        const withTail = index.search(plan, { related: true });
        expect(withTail.total).toBe(plain.total);
        expect(withTail.hits.slice(0, plain.total)).toEqual(plain.hits);
        const inSet = new Set(plain.hits.map((h) => h.item));
        const expected = bm25f(items, ranker, plan.words);
        const tail = items.map((_, j) => j).filter((j) => !inSet.has(j) && expected[j]?.matches);
        expect(withTail.related).toBe(tail.length);
        const got = withTail.hits.slice(plain.total);
        expect(got.filter((h) => h.related !== true)).toEqual([]); // got's length is tail's, checked next
        expect(got.map((h) => h.item).sort((a, b) => a - b)).toEqual(tail);
        for (let j = 1; j < got.length; j++) {
          const a = got[j - 1] as (typeof got)[number];
          const b = got[j] as (typeof got)[number];
          expect(a.score > b.score || (a.score === b.score && a.item < b.item)).toBe(true);
        }
        // A page inside I_ret(q) does not count the tail (the worker has not decoded it then); one past its end does.
        expect(index.search(plan, { related: true, limit: 1 }).related).toBe(plain.total >= 1 ? undefined : tail.length);
      }),
      { numRuns: 150 },
    );
  });

  it("bags repeat each field by its weight", () => {
    expect(rankerBag({ keywords: 2, text: 1 }, ["red chair", "oak"], "Oak Table")).toEqual(["red", "chair", "oak", "red", "chair", "oak", "oak", "table"]);
    expect(rankerBag(KEYWORD_RANKER, ["red chair"], undefined)).toEqual(["red", "chair"]);
    expect(() => rankerBag(TEXT_RANKER, ["red chair"], undefined)).toThrow(/needs each item's text/);
  });

  it("parse their names and refuse invalid ones, in artifacts too", () => {
    for (const r of RANKER_CHOICES) expect(parseRanker(rankerName(r))).toEqual(r);
    expect(() => parseRanker("bm25")).toThrow(/unknown ranker/);
    expect(() => parseRanker("blend 0:0")).toThrow(/not both 0/);
    expect(() => validateRanker({ keywords: 1.5, text: 1 })).toThrow(RangeError);
    expect(() => validateRanker({ keywords: 99, text: 1 })).toThrow(RangeError);
    const index = KeywordIndex.build([{ id: "1", name: "red chair", keywords: ["oak"], text: "oak chair" }], { ranker: { keywords: 4, text: 1 } });
    const header = indexHeader(index, 64);
    expect(parseIndexHeader(JSON.stringify(header), "x").ranker).toEqual({ keywords: 4, text: 1 });
    // A header from before rankers reads as the paper's; a bad one is refused with the file named.
    const { ranker: _r, ...old } = header;
    expect(parseIndexHeader(JSON.stringify(old), "x").ranker).toEqual(KEYWORD_RANKER);
    expect(() => parseIndexHeader(JSON.stringify({ ...header, ranker: { keywords: -1, text: 0 } }), "p.jsonl")).toThrow(/p\.jsonl: invalid ranker/);
  });
});
