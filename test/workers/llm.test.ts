/**
 * The fallback chain against a local OpenAI-compatible TEST server (not
 * vLLM; see test/support/openai-test-server.ts): llm → policy → raw.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parseKeywords } from "../../core/keyword-answer.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { clearIsolateCaches, getJson, publish, testRounds } from "./helpers.js";

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

describe("the circuit breaker", () => {
  const count = async () => ((await (await fetch(`${env.TEST_LLM_URL}/count`)).json()) as { count: number }).count;
  const health = async (overrides: Record<string, string>) =>
    (await getJson<{ llm: { state: string; consecutiveFailures?: number } }>("/healthz", overrides)).body.llm;

  it("opens after repeated failures: searches skip the hanging LLM and answer from the fallback at once", async () => {
    clearIsolateCaches();
    const hang = { LLM_BASE_URL: `${env.TEST_LLM_URL}/hang/v1`, LLM_TIMEOUT_MS: "300" };
    expect((await health(hang)).state).toBe("ok");
    for (let j = 0; j < 3; j++) expect((await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("oak bed"))}`, hang)).body.keywordSource).toBe("policy");
    expect(await health(hang)).toMatchObject({ state: "open", consecutiveFailures: 3 });
    const asked = await count();
    // "At once": with the circuit open, no search waits on the LLM, because none reaches it (the test server counts
    // every request it gets). Latency itself is a benchmark's figure (npm run bench:serve), never a test's.
    for (let j = 0; j < 5; j++) {
      const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("oak bed"))}`, hang);
      expect(body.keywordSource).toBe("policy");
    }
    expect(await count()).toBe(asked);
  });

  it("probes after the cool-down and closes when the LLM answers again", async () => {
    clearIsolateCaches();
    const sw = { LLM_BASE_URL: `${env.TEST_LLM_URL}/switch/v1`, LLM_TIMEOUT_MS: "400", LLM_BREAKER_COOLDOWN_MS: "200" };
    await fetch(`${env.TEST_LLM_URL}/switch?to=error`);
    for (let j = 0; j < 3; j++) await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("sofa"))}`, sw);
    expect((await health(sw)).state).toBe("open");
    await fetch(`${env.TEST_LLM_URL}/switch?to=echo`);
    expect((await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("sofa"))}`, sw)).body.keywordSource).toBe("policy"); // still open
    await new Promise((r) => setTimeout(r, 250));
    await fetch(`${env.TEST_LLM_URL}/count`); // workerd's clock moves across I/O
    const probe = (await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("velvet sofa"))}`, sw)).body;
    expect(probe.keywordSource).toBe("llm");
    expect(probe.keywords).toContain("velvet sofa");
    expect((await health(sw)).state).toBe("ok");
  });

  it("caches fallback answers briefly, so a hot query does not call a failing endpoint every time", async () => {
    clearIsolateCaches();
    const err = { LLM_BASE_URL: `${env.TEST_LLM_URL}/error/v1`, LLM_TIMEOUT_MS: "800" };
    const q = fresh("rug");
    const before = await count();
    expect((await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}`, err)).body.keywordSource).toBe("policy");
    const after = await count();
    expect(after).toBeGreaterThan(before);
    for (let j = 0; j < 3; j++) expect((await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}`, err)).body.keywordSource).toBe("policy");
    expect(await count()).toBe(after);
    // A fresh isolate reads the fallback from KV (60 s expiry) instead of calling again.
    clearIsolateCaches({ keepGenerators: true });
    expect((await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}`, err)).body.keywordSource).toBe("policy");
    expect(await count()).toBe(after);
  });
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
    // A "slow" answer comes after 10 s: the policy's keywords here mean the timeout cut the wait short, not a clock.
    const { res, body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(fresh("wood chair"))}`, llm(mode));
    expect(res.status).toBe(200);
    expect(body.keywordSource).toBe("policy");
    expect(body.keywords.length).toBeGreaterThan(0);
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
