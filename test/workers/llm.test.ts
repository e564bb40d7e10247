/**
 * The fallback chain against a local OpenAI-compatible TEST server (not
 * vLLM; see test/support/openai-test-server.ts): llm → policy → raw.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parseKeywords } from "../../core/keyword-answer.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { getJson, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

type Answer = { round: number; keywords: string[]; keywordSource: string; total: number };
const TEST_KEYWORDS = ["accent chair", "armchair", "wingback chair", "club chair"];
let n = 0;
/** A fresh query per call, so the KV keyword cache never answers for another case. */
const fresh = (q: string) => `${q} ${++n}`;
const llm = (mode: string) => ({ LLM_BASE_URL: `${env.TEST_LLM_URL}/${mode}/v1`, LLM_TIMEOUT_MS: "800" });

beforeAll(async () => {
  await publish(rounds.synthetic1); // round 1: LLM generator "test-model" with an embedded policy
});

describe("query keywords", () => {
  it("come from the LLM with App. B.2's decoding, parsed and normalised", async () => {
    for (const mode of ["ok", "json"]) {
      const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("chair"))}`, llm(mode));
      expect(body).toMatchObject({ round: 1, keywordSource: "llm", keywords: TEST_KEYWORDS });
    }
    const sent = (await (await fetch(`${env.TEST_LLM_URL}/requests`)).json()) as Array<Record<string, unknown>>;
    expect(sent.at(-1)).toMatchObject({ model: "test-model", temperature: 0.7, top_p: 0.8, top_k: 20 });
  });

  it("are cached in KV per round and normalised query", async () => {
    const q = fresh("Wing Chair");
    const first = (await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}`, llm("ok"))).body;
    expect(first.keywordSource).toBe("llm");
    // Same normalised query, LLM now broken: the cached LLM answer is used.
    const again = (await getJson<Answer>(`/v1/search?q=${encodeURIComponent(`  ${q.toUpperCase()}!`)}`, llm("error"))).body;
    expect(again).toMatchObject({ keywordSource: "llm", keywords: TEST_KEYWORDS });
  });

  it("use the one retry when the first attempt fails", async () => {
    const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("chair"))}`, llm("flaky"));
    expect(body.keywordSource).toBe("llm");
  });

  it.each(["slow", "error", "ratelimit", "garbage", "empty"])("fall back to the embedded policy when the LLM is %s", async (mode) => {
    const started = Date.now();
    const { res, body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("wood chair"))}`, llm(mode));
    expect(res.status).toBe(200);
    expect(body.keywordSource).toBe("policy");
    expect(body.keywords.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5000); // the latency budget holds (slow answers after 10 s)
  });

  it("fall back to the raw query when there is neither LLM nor policy", async () => {
    const bare = { ...rounds.synthetic1, manifest: { ...rounds.synthetic1.manifest, round: 2 } };
    const { policy: _drop, ...noPolicy } = bare.queryGenerator as typeof bare.queryGenerator & { policy?: unknown };
    await publish({ ...bare, queryGenerator: noPolicy as typeof bare.queryGenerator });
    const { body } = await getJson<Answer>("/v1/search?q=wood%20chair", llm("error"));
    expect(body).toMatchObject({ round: 2, keywordSource: "raw", keywords: [] });
    const off = (await getJson<Answer>("/v1/search?q=wood%20chair", { LLM_BASE_URL: "" })).body;
    expect(off.keywordSource).toBe("raw");
  });
});

describe("parseKeywords", () => {
  it("reads lists, bullets and JSON arrays, normalises, dedupes and caps at K_max", () => {
    expect(parseKeywords("1. Accent Chair\n- arm-chair\n* accent chair, club chair")).toEqual(["accent chair", "arm chair", "club chair"]);
    expect(parseKeywords('["Sofa", 3, "sofa bed"]')).toEqual(["sofa", "sofa bed"]);
    expect(parseKeywords(Array.from({ length: 50 }, (_, j) => `k${j}`).join(","))).toHaveLength(30);
    expect(parseKeywords("  ,, ;; !!")).toEqual([]);
    expect(normalizeKeyword("x")).toBe("x");
  });
});
