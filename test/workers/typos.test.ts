/**
 * Typo tolerance and stop words through the worker (issue 25 §1, §4): the
 * answer says what was corrected, the corrected query finds what the clean
 * one finds, verbatim=1 reads it as typed, and the trained policy's keywords
 * for a misspelled query equal Node's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { wireIndex } from "../support/wire-round.js";
import { getJson, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

type Answer = {
  corrected: string | null;
  keywords: string[];
  total: number;
  results: Array<{ id: string; score: number; explain?: { words: Array<{ word: string }> } }>;
};

describe("a misspelled query over round 0 (extractor)", () => {
  beforeAll(async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
  });

  it("is corrected, says so, and finds what the clean query finds", async () => {
    const clean = (await getJson<Answer>("/v1/search?q=velvet%20sofa&limit=20")).body;
    const { res, body } = await getJson<Answer>("/v1/search?q=velvte%20sofa&limit=20");
    expect(res.status).toBe(200);
    expect(clean.corrected).toBeNull();
    expect(body.corrected).toBe("velvet sofa");
    expect(body.keywords).toEqual(clean.keywords);
    expect(clean.total).toBeGreaterThan(0);
    expect(body.total).toBe(clean.total);
    expect(body.results.map((r) => r.id)).toEqual(clean.results.map((r) => r.id));
  });

  it("verbatim=1 reads the query as typed", async () => {
    const { body } = await getJson<Answer>("/v1/search?q=velvte%20sofa&limit=20&verbatim=1");
    expect(body.corrected).toBeNull();
    expect(body.keywords).not.toContain("velvet");
    expect((await getJson("/v1/search?q=sofa&verbatim=yes")).res.status).toBe(400);
  });

  it("gives stop words no weight and no highlight", async () => {
    const withStop = (await getJson<Answer>("/v1/search?q=sofa%20for%20the%20bed&limit=10&explain=1")).body;
    const without = (await getJson<Answer>("/v1/search?q=sofa%20bed&limit=10&explain=1")).body;
    expect(withStop.results.length).toBeGreaterThan(0);
    const explained = withStop.results.flatMap((r) => r.explain?.words.map((w) => w.word) ?? []);
    expect(explained.length).toBeGreaterThan(0);
    expect(explained).not.toContain("for");
    expect(explained).not.toContain("the");
    expect(withStop.results.map((r) => r.score)).toEqual(without.results.map((r) => r.score));
  });
});

describe("a misspelled query over a trained round (lexical policy)", () => {
  it("gives the keywords Node's generator gives, and reports the correction Node's corrector makes", async () => {
    expect(await publish(rounds.trained)).toBe("published");
    const { loadQueryCorrector, loadQueryGenerator } = await import("../../core/query-generator.js");
    const generate = loadQueryGenerator(rounds.trained.queryGenerator, wireIndex(rounds.trained));
    const correct = loadQueryCorrector(rounds.trained.queryGenerator);
    let corrected = 0;
    for (const q of ["wood chiar", "metl table", "velvet lmap", "glass tabel", "blue sfoa rug"]) {
      const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}`);
      expect(body.keywords, q).toEqual(generate?.(q));
      expect(body.corrected, q).toBe(correct(q)?.text ?? null);
      if (body.corrected !== null) corrected++;
    }
    expect(corrected).toBeGreaterThanOrEqual(4);
  });
});
