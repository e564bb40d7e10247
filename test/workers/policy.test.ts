/** A trained round's query policy gives the same keywords in workerd as in Node, and the worker serves with it. */
import { describe, expect, it } from "vitest";
import { wireIndex } from "../support/wire-round.js";
import { getJson, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

describe("the lexical query policy in workerd", () => {
  it("matches Node keyword for keyword, and the worker serves them", async () => {
    expect(rounds.trained.queryGenerator.kind).toBe("lexical-policy");
    expect(await publish(rounds.trained)).toBe("published");
    const { firstPassOf, loadQueryGenerator } = await import("../../core/query-generator.js");
    // A hinted policy: its first pass runs over the round's index, in Node here and over D1/KV in the worker.
    expect(firstPassOf(rounds.trained.queryGenerator)).toEqual({ topK: 10 });
    expect(() => loadQueryGenerator(rounds.trained.queryGenerator)).toThrow(/search hints/);
    const generate = loadQueryGenerator(rounds.trained.queryGenerator, wireIndex(rounds.trained));
    const queries = Object.keys(rounds.policyKeywords);
    expect(queries.length).toBeGreaterThan(20);
    let nonEmpty = 0;
    for (const q of queries) {
      expect(generate?.(q), q).toEqual(rounds.policyKeywords[q]);
      const { body } = await getJson<{ round: number; keywords: string[]; keywordSource: string }>(`/v1/search?q=${encodeURIComponent(q)}`);
      expect(body.round).toBe(7);
      expect(body.keywordSource).toBe("policy");
      expect(body.keywords, q).toEqual(rounds.policyKeywords[q]);
      if (body.keywords.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(10);
  });
});
