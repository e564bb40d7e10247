import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BM25_DEFAULTS } from "../../core/bm25.js";
import { itemKeywordSet, KeywordIndex } from "../../core/inverted-index.js";
import { keywordWords } from "../../core/normalize.js";
import { planQuery, rankTop } from "../../core/retrieve.js";
import { indexFromPostings, indexHeader, indexPostings, parseIndexHeader, parsePostingLine, postingLine } from "../../core/round-format.js";

const VOCAB = ["chair", "arm chair", "red", "red chair", "table", "oak table", "lamp", "desk lamp", "sofa", "Sofa-Bed"];

const catalogue = fc.array(
  fc.record({
    name: fc.constantFrom("alpha", "beta chair", "gamma table", "delta", "red chair"),
    keywords: fc.subarray(VOCAB, { maxLength: 5 }),
  }),
  { minLength: 1, maxLength: 25 },
);

/** Brute force straight from §2.1 and the BM25 formula, with no index. */
function bruteForce(items: Array<{ id: string; name: string; keywords: string[] }>, generated: string[], raw: string) {
  const plan = planQuery(generated, raw);
  const sets = items.map((it) => itemKeywordSet(it));
  const bags = sets.map((s) => s.flatMap(keywordWords));
  const avg = bags.reduce((s, b) => s + b.length, 0) / bags.length || 1;
  const retrieved = items.map((_, j) => j).filter((j) => plan.keywords.some((k) => sets[j]?.includes(k)));
  const scores = new Map<number, number>();
  for (const j of retrieved) {
    let s = 0;
    for (const w of plan.words) {
      const df = bags.filter((b) => b.includes(w)).length;
      if (df === 0) continue;
      const tf = bags[j]?.filter((x) => x === w).length ?? 0;
      if (tf === 0) continue;
      const idf = Math.log(1 + (items.length - df + 0.5) / (df + 0.5));
      const len = bags[j]?.length ?? 0;
      s += (idf * tf * (BM25_DEFAULTS.k1 + 1)) / (tf + BM25_DEFAULTS.k1 * (1 - BM25_DEFAULTS.b + (BM25_DEFAULTS.b * len) / avg));
    }
    scores.set(j, s);
  }
  return { retrieved, scores };
}

describe("retrieval (§2.1) and BM25 ranking", () => {
  it("retrieves exactly the items sharing a keyword with S_q ∪ {q}, scored by BM25", () => {
    fc.assert(
      fc.property(catalogue, fc.subarray(VOCAB, { maxLength: 4 }), fc.constantFrom("red chair", "Lamp", "nothing here", "!!"), (raw, generated, q) => {
        const items = raw.map((r, j) => ({ id: String(j), ...r }));
        const index = KeywordIndex.build(items);
        const page = index.search(planQuery(generated, q));
        const expected = bruteForce(items, generated, q);
        expect(page.total).toBe(expected.retrieved.length);
        expect(page.hits.map((h) => h.item).sort((a, b) => a - b)).toEqual(expected.retrieved);
        for (const h of page.hits) expect(h.score).toBeCloseTo(expected.scores.get(h.item) ?? Number.NaN, 10);
        for (let j = 1; j < page.hits.length; j++) {
          const a = page.hits[j - 1];
          const b = page.hits[j];
          if (!a || !b) continue;
          expect(a.score > b.score || (a.score === b.score && a.item < b.item)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("matches multi-word keywords as whole units", () => {
    const index = KeywordIndex.build([
      { id: "1", name: "x", keywords: ["arm chair"] },
      { id: "2", name: "y", keywords: ["chair"] },
      { id: "3", name: "z", keywords: ["arm"] },
    ]);
    const page = index.search(planQuery(["arm chair"], ""));
    expect(page.hits.map((h) => index.ids[h.item])).toEqual(["1"]);
  });

  it("always holds the item's own name and the raw query", () => {
    const index = KeywordIndex.build([{ id: "9", name: "Wing-Back Chair", keywords: [] }]);
    expect(index.search(planQuery([], "wing back chair")).total).toBe(1);
    expect(index.search(planQuery([], "wing")).total).toBe(0);
  });

  it("breaks ties by item id (numeric ids in numeric order) and pages", () => {
    const index = KeywordIndex.build(["10", "9", "100", "2"].map((id) => ({ id, name: `n${id}`, keywords: ["same"] })));
    const all = index.search(planQuery(["same"], ""));
    expect(all.hits.map((h) => index.ids[h.item])).toEqual(["2", "9", "10", "100"]);
    const page = index.search(planQuery(["same"], ""), { limit: 2, offset: 1 });
    expect(page.total).toBe(4);
    expect(page.hits.map((h) => index.ids[h.item])).toEqual(["9", "10"]);
    expect(index.search(planQuery(["same"], ""), { offset: 10 }).hits).toEqual([]);
  });

  it("honours k1 and b", () => {
    const index = KeywordIndex.build([
      { id: "1", name: "a", keywords: ["oak"] },
      { id: "2", name: "b", keywords: ["oak", "long bag of many words"] },
    ]);
    const flat = index.search(planQuery(["oak"], ""), { params: { k1: 1.2, b: 0 } });
    expect(flat.hits[0]?.score).toBe(flat.hits[1]?.score);
    const norm = index.search(planQuery(["oak"], ""), { params: { k1: 1.2, b: 1 } });
    expect(index.ids[norm.hits[0]?.item ?? -1]).toBe("1");
  });

  it("round-trips through the artifact's posting lines and refuses unknown versions", () => {
    const index = KeywordIndex.build([
      { id: "a", name: "red chair", keywords: ["chair", "red"] },
      { id: "b", name: "oak table", keywords: ["table"] },
    ]);
    const header = indexHeader(index, 128);
    const lines = [...indexPostings(index, 128)].map(postingLine);
    const back = indexFromPostings(index.ids, parseIndexHeader(JSON.stringify(header), "x").totalLength, lines.map(parsePostingLine));
    const plan = planQuery(["chair", "table"], "red");
    expect(back.search(plan)).toEqual(index.search(plan));
    expect(() => parseIndexHeader(JSON.stringify({ ...header, version: 99 }), "f")).toThrow(/f: unsupported cogr-index version 99/);
    expect(() => parseIndexHeader(JSON.stringify({ ...header, format: "x" }), "f")).toThrow(/not a cogr-index/);
  });

  it("rejects duplicate ids", () => {
    expect(() =>
      KeywordIndex.build([
        { id: "1", name: "a", keywords: [] },
        { id: "1", name: "b", keywords: [] },
      ]),
    ).toThrow(/duplicate/);
  });
});

describe("rankTop", () => {
  it("equals the full sort's first k, ties included, for every k", () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.integer({ min: 0, max: 10_000 }), { maxLength: 300 })
          .chain((ids) =>
            fc.tuple(
              fc.constant(ids),
              fc.array(fc.constantFrom(0, 0.5, 1, 1.5, 2.25, 7), { minLength: ids.length, maxLength: ids.length }),
              fc.nat({ max: ids.length + 3 }),
            ),
          ),
        ([ids, raw, k]) => {
          const candidates = Uint32Array.from([...ids].sort((a, b) => a - b));
          const scores = Float64Array.from(raw);
          const full = [...candidates.keys()].sort(
            (a, b) => (scores[b] as number) - (scores[a] as number) || (candidates[a] as number) - (candidates[b] as number),
          );
          expect([...rankTop(scores, candidates, k)]).toEqual(full.slice(0, k));
        },
      ),
      { numRuns: 400 },
    );
  });
});
