/**
 * A trained round's query policy gives the same keywords in workerd as in
 * Node, and the worker serves with it; a policy whose vocabulary's tail ships
 * apart reads it from KV per query and still answers as Node does.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { queryDfKey } from "../../core/contract.js";
import { policyOf } from "../../core/query-generator.js";
import { wireIndex } from "../support/wire-round.js";
import { clearIsolateCaches, getJson, publish, testRounds } from "./helpers.js";

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

type Answer = { round: number; keywords: string[]; keywordSource: string; corrected: string | null };

describe("a policy whose vocabulary's tail ships apart (a large catalogue)", () => {
  const { tailed, tailedAnswers } = rounds;
  const meta = policyOf(tailed.queryGenerator)?.policy.tail;
  const half = Math.floor(tailedAnswers.length / 2);

  it("reads the query's tail entries from KV and answers as Node does with the whole tail", async () => {
    expect(meta?.buckets).toBeGreaterThan(1);
    expect(policyOf(tailed.queryGenerator)?.policy.tailWords).toBeUndefined();
    // The tail matters: many of these queries get other keywords from the head alone.
    expect(tailedAnswers.filter((a) => a.headOnly.join("|") !== a.keywords.join("|")).length).toBeGreaterThan(10);
    expect(tailedAnswers.filter((a) => a.corrected !== null).length).toBeGreaterThan(5);
    expect(await publish(tailed)).toBe("published");
    clearIsolateCaches();
    for (const a of tailedAnswers.slice(0, half)) {
      const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(a.query)}`);
      expect(body.round).toBe(8);
      expect(body.keywordSource).toBe("policy");
      expect(body.keywords, a.query).toEqual(a.keywords);
      expect(body.corrected, a.query).toBe(a.corrected);
    }
  });

  it("answers from the head when its tail cannot be read, and does not keep that answer", async () => {
    const keys = Array.from({ length: meta?.buckets ?? 0 }, (_, j) => queryDfKey(8, tailed.manifest.contentHash, j));
    const saved = await Promise.all(keys.map((k) => env.CACHE.get(k, "text")));
    expect(saved.every((v) => v !== null)).toBe(true);
    await Promise.all(keys.map((k) => env.CACHE.delete(k)));
    clearIsolateCaches();
    const rest = tailedAnswers.slice(half).filter((a) => a.headOnly.join("|") !== a.keywords.join("|"));
    expect(rest.length).toBeGreaterThan(3);
    for (const a of rest) {
      const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(a.query)}`);
      expect(body.keywords, a.query).toEqual(a.headOnly);
    }
    // The tail back: the same queries get the whole tail's answers (the head's were not cached).
    await Promise.all(keys.map((k, j) => env.CACHE.put(k, saved[j] as string)));
    clearIsolateCaches();
    for (const a of rest) {
      const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(a.query)}`);
      expect(body.keywords, a.query).toEqual(a.keywords);
    }
  });
});
