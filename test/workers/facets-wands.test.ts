/** Filters and facets on WANDS (COGR_DATA): the worker's filtered pages and facet counts equal core's over the same round. */
import { describe, expect, it } from "vitest";
import { buildColumns } from "../../core/columns.js";
import { compileFilters, countFacet, type FilterRequest, facetColumn, filterPredicate } from "../../core/filters.js";
import { loadQueryCorrector, loadQueryGenerator } from "../../core/query-generator.js";
import { planQuery } from "../../core/retrieve.js";
import { type WireRound, wireIndex } from "../support/wire-round.js";
import { getJson, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

type Answer = {
  total: number;
  related: number | null;
  results: Array<{ id: string; score: number; related: boolean }>;
  facets: Record<string, Array<{ value: string; count: number }>>;
};

describe("worker = core, filtered and faceted", () => {
  it.skipIf(!rounds.wands0)("on 40 WANDS queries under a category filter, with facets and the related tail (COGR_DATA)", async () => {
    const w = rounds.wands0 as WireRound;
    const input = { ...w, manifest: { ...w.manifest, round: 6 } };
    expect(await publish(input)).toBe("published");
    const index = wireIndex(input);
    const generate = loadQueryGenerator(input.queryGenerator, index);
    if (!generate) throw new Error("test round needs a CPU generator");
    const correct = loadQueryCorrector(input.queryGenerator);
    const { meta, codes } = buildColumns(input.items);
    const reqs: FilterRequest[] = [{ parameter: "category", field: "category", raw: "furniture" }];
    const keep = filterPredicate(compileFilters(meta, reqs), codes);
    const queries = rounds.wandsQueries.filter((_, j) => j % 11 === 2).slice(0, 40);
    expect(queries.length).toBe(40);
    let compared = 0;
    for (const q of queries) {
      const { res, body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}&limit=60&category=Furniture&facets=class,category`);
      expect(res.status, q).toBe(200);
      const page = index.search(planQuery(generate(q), q, index.queryTerms, correct(q)?.text), { limit: 60, related: true, filter: keep, keepRetrieved: true });
      expect(body.total, q).toBe(page.total);
      expect(body.related, q).toBe(page.related ?? null);
      expect(
        body.results.map((r) => [r.id, r.score, r.related]),
        q,
      ).toEqual(page.hits.map((h) => [index.ids[h.item], h.score, h.related === true]));
      const retrieved = page.retrieved ?? new Uint32Array();
      expect(body.facets, q).toEqual({
        class: countFacet(meta, "class", codes.get("class"), retrieved),
        category: countFacet(meta, facetColumn(meta, "category", reqs), codes.get(facetColumn(meta, "category", reqs)), retrieved),
      });
      compared += page.hits.length;
    }
    expect(compared).toBeGreaterThan(500);
  });
});
