import { describe, expect, it } from "vitest";
import { loadQueryCorrector, loadQueryGenerator } from "../../core/query-generator.js";
import { planQuery } from "../../core/retrieve.js";
import { SERVING_LIMITS } from "../../workers/search/limits.js";
import { blockTermsLru } from "../../workers/search/middleware/services.js";
import { type WireRound, wireIndex } from "../support/wire-round.js";
import { clearIsolateCaches, getJson, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

type Answer = { total: number; related: number | null; keywords: string[]; results: Array<{ id: string; score: number; related: boolean }> };

async function compare(input: WireRound, queries: readonly string[], limit: number) {
  expect(await publish(input)).toBe("published");
  return compareAnswers(input, queries, limit);
}

/** Asks the worker each query and compares its answer with core's over the round (published already). */
async function compareAnswers(input: WireRound, queries: readonly string[], limit: number) {
  const index = wireIndex(input);
  const generate = loadQueryGenerator(input.queryGenerator, index);
  if (!generate) throw new Error("test round needs a CPU generator");
  const correct = loadQueryCorrector(input.queryGenerator);
  let compared = 0;
  for (const q of queries) {
    const { res, body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}&limit=${limit}`);
    expect(res.status, q).toBe(200);
    const page = index.search(planQuery(generate(q), q, index.queryTerms, correct(q)?.text), { limit, related: true });
    expect(body.total, q).toBe(page.total);
    expect(body.related, q).toBe(page.related ?? null);
    expect(
      body.results.map((r) => r.related),
      q,
    ).toEqual(page.hits.map((h) => h.related === true));
    expect(
      body.results.map((r) => r.id),
      q,
    ).toEqual(page.hits.map((h) => index.ids[h.item]));
    expect(
      body.results.map((r) => r.score),
      q,
    ).toEqual(page.hits.map((h) => h.score));
    compared += page.hits.length;
  }
  return compared;
}

describe("worker = core", () => {
  it("on the synthetic round", async () => {
    const queries = [
      "chair",
      "wood chair",
      "Velvet SOFA!",
      "grey rug",
      "lamp",
      "nothing like this",
      "bed",
      "glass table",
      "red",
      "metal lamp",
      "wood chiar",
      "velvte sofa for the bed",
    ];
    expect(await compare(rounds.synthetic0, queries, 100)).toBeGreaterThan(100);
  });

  it("from the isolate's decoded word blocks (core/score-blocks.ts): cold, then warm", async () => {
    clearIsolateCaches();
    expect(blockTermsLru.size).toBe(0);
    // Pages inside I_ret(q) (past it, the related tail is ranked from joined postings, not from blocks).
    const queries = ["chair", "wood chair", "lamp", "glass table", "velvte sofa for the bed"];
    // Published already by an earlier test when the file runs whole.
    expect(["published", "unchanged"]).toContain(await publish(rounds.synthetic0));
    expect(await compareAnswers(rounds.synthetic0, queries, 5)).toBeGreaterThan(15);
    const kept = blockTermsLru.size;
    expect(kept).toBeGreaterThan(0);
    expect(blockTermsLru.bytes).toBeLessThanOrEqual(SERVING_LIMITS.blockTermsLruBytes);
    // The same searches again read the kept terms (none is made anew) and answer as core does.
    const admitted = blockTermsLru.admitted;
    expect(admitted).toBe(kept);
    expect(await compareAnswers(rounds.synthetic0, queries, 5)).toBeGreaterThan(15);
    expect([blockTermsLru.size, blockTermsLru.admitted]).toEqual([kept, admitted]);
  });

  it("under the text ranker and a blend, the related tail included", async () => {
    // Small pages reach past I_ret(q) for rare queries, long ones for every query.
    const queries = ["chair", "wood chair", "grey rug", "lamp", "nothing like this", "glass table", "red"];
    for (const [w, round] of [
      [rounds.syntheticText, 3],
      [rounds.syntheticBlend, 4],
    ] as const) {
      expect(await compare({ ...w, manifest: { ...w.manifest, round } }, queries, 100)).toBeGreaterThan(150);
    }
  });

  it.skipIf(!rounds.wands0)("on 150 WANDS queries (COGR_DATA)", async () => {
    const wands = rounds.wands0 as WireRound;
    const queries = rounds.wandsQueries.filter((_, j) => j % 3 === 0).slice(0, 150);
    expect(queries.length).toBe(150);
    expect(await compare({ ...wands, manifest: { ...wands.manifest, round: 5 } }, queries, 100)).toBeGreaterThan(5000);
  });

  it.skipIf(!rounds.wandsBlend)("on 60 WANDS queries under the blend ranker, with pages past I_ret(q) (COGR_DATA)", async () => {
    const w = rounds.wandsBlend as WireRound;
    const queries = rounds.wandsQueries.filter((_, j) => j % 7 === 1).slice(0, 60);
    expect(await compare({ ...w, manifest: { ...w.manifest, round: 6 } }, queries, 100)).toBeGreaterThan(3000);
  });
});
