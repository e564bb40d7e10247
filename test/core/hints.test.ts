/** Search hints (core/hints.ts): the first pass, the hints it gives, and what the policy makes of them. */
import { describe, expect, it } from "vitest";
import { firstPassPlan, HINT_LIMITS, hintKeywords, indexHints, NO_HINTS, searchHints } from "../../core/hints.js";
import { KeywordIndex } from "../../core/inverted-index.js";
import { queryCandidates } from "../../core/policy-candidates.js";
import { FEATURES, newParams } from "../../core/policy-features.js";
import { loadPolicy, policySpec } from "../../core/policy-spec.js";
import { firstPassOf, loadHintedGenerator, loadQueryGenerator, policyGeneratorSpec } from "../../core/query-generator.js";
import { buildVocabulary } from "../../training/vocabulary.js";

// Poufs keyed by the item index's own words: a query "small woven pouf" spells none of "ottoman pouf".
const items = [
  { id: "p1", name: "Woven Pouf", keywords: ["ottoman pouf", "woven"] },
  { id: "p2", name: "Small Jute Pouf", keywords: ["ottoman pouf", "jute"] },
  { id: "p3", name: "Leather Pouf", keywords: ["ottoman pouf", "leather"] },
  { id: "c1", name: "Small Accent Chair", keywords: ["accent chair"] },
  { id: "r1", name: "Woven Rug", keywords: ["area rug", "woven"] },
];
const index = KeywordIndex.build(items);
const feature = (cands: ReturnType<typeof queryCandidates>, k: string, f: (typeof FEATURES)[number]) =>
  cands.find((c) => c.keyword === k)?.features[FEATURES.indexOf(f)];

describe("the first pass", () => {
  it("is plain BM25 over the raw query's words: no keywords, every hit in the related tail", () => {
    const plan = firstPassPlan("Small Woven POUF!");
    expect(plan.keywords).toEqual([]);
    expect(plan.words).toEqual(["pouf", "small", "woven"]);
    const page = index.search(plan, { limit: 3, related: true });
    expect(page.total).toBe(0);
    expect(page.hits).toHaveLength(3);
    expect(page.hits.filter((h) => !h.related)).toEqual([]);
    // p1 holds "woven" and "pouf"; the other poufs one of the rarer words each.
    expect(index.ids[page.hits[0]?.item as number]).toBe("p1");
  });

  it("reads each item's S_i ∪ {i} back from the index", () => {
    const o = index.ids.indexOf("p2");
    expect([...index.keywordsOf(o)]).toEqual(["jute", "ottoman pouf", "small jute pouf"]);
    expect(index.keywordsOf(999)).toEqual([]);
  });
});

describe("hints", () => {
  it("count holders over the top k and keep the top item's set", () => {
    const h = indexHints(index, "small woven pouf", HINT_LIMITS.topK);
    expect(h.k).toBe(5); // everything shares a word; fewer than top k items exist
    expect(h.holders.get("ottoman pouf")).toBe(3);
    expect(h.holders.get("woven")).toBe(2);
    expect(h.holders.get("accent chair")).toBe(1);
    expect([...h.top].sort()).toEqual(["ottoman pouf", "woven", "woven pouf"]);
    // Held by ≥ minHolders, most held first, ties by keyword.
    expect(hintKeywords(h)).toEqual(["ottoman pouf", "woven"]);
    expect(indexHints(index, "quartz", 10)).toEqual(searchHints([]));
  });

  it("cap the hint candidates at maxHintKeywords", () => {
    const sets = [
      Array.from({ length: 20 }, (_, j) => `k${String(j).padStart(2, "0")}`),
      Array.from({ length: 20 }, (_, j) => `k${String(j).padStart(2, "0")}`),
    ];
    expect(hintKeywords(searchHints(sets))).toHaveLength(HINT_LIMITS.maxHintKeywords);
  });

  it("add candidates the query does not spell, with the share of the top k holding each", () => {
    const vocab = buildVocabulary(items.map((it) => ({ words: new Set(it.name.toLowerCase().split(" ")), keywords: it.keywords })));
    const plain = queryCandidates(vocab, "small woven pouf");
    const hinted = queryCandidates(vocab, "small woven pouf", indexHints(index, "small woven pouf", 10));
    expect(feature(hinted, "ottoman pouf", "hint")).toBe(1);
    expect(feature(hinted, "ottoman pouf", "hintShare")).toBeCloseTo(3 / 5);
    expect(feature(hinted, "woven", "hintTop")).toBe(1);
    expect(feature(hinted, "accent chair", "hint")).toBeUndefined(); // one holder: not a candidate
    // Without hints every hint feature is 0, so an unhinted round decodes as before.
    for (const c of plain) for (const f of ["hint", "hintShare", "hintTop"] as const) expect(c.features[FEATURES.indexOf(f)]).toBe(0);
    expect(queryCandidates(vocab, "small woven pouf", NO_HINTS)).toEqual(plain);
  });
});

describe("a hinted policy spec", () => {
  const vocab = buildVocabulary(items.map((it) => ({ words: new Set(it.name.toLowerCase().split(" ")), keywords: it.keywords })));
  const params = newParams(-1);
  params.weights[FEATURES.indexOf("hint")] = 3;
  const spec = policyGeneratorSpec(policySpec("query", params, vocab, 8, { topK: 10 }));

  it("refuses to load without the index it serves with, and uses its hints with one", () => {
    expect(firstPassOf(spec)).toEqual({ topK: 10 });
    expect(() => loadQueryGenerator(spec)).toThrow(/search hints/);
    expect(loadQueryGenerator(spec, index)?.("small woven pouf")).toContain("ottoman pouf");
    const unhinted = policyGeneratorSpec(policySpec("query", params, vocab, 8));
    expect(firstPassOf(unhinted)).toBeNull();
    const q = "small woven pouf";
    expect(loadQueryGenerator(unhinted)?.(q)).toEqual(loadHintedGenerator(unhinted)(q));
    expect(loadQueryGenerator(spec, index)?.(q)).toEqual(loadHintedGenerator(spec)(q, indexHints(index, q, 10)));
  });

  it("rejects a top k out of range, and hints on the item side", () => {
    for (const topK of [0, 1.5, HINT_LIMITS.maxTopK + 1]) {
      expect(() => loadPolicy({ ...spec.policy, hints: { topK } })).toThrow(/hints.topK/);
    }
    expect(() => loadPolicy({ ...spec.policy, side: "item" })).toThrow(/only a query policy/);
  });
});
