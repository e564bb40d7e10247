/**
 * Storage faults inside a request: D1 failing gives a 503 problem (never a
 * 500 with internals), a KV outage falls back to D1 with the same results,
 * and the isolate's caches never answer with another round's data.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { failingD1, failingKv } from "./faults.js";
import { clearIsolateCaches, get, getJson, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();
type Answer = {
  requestId: string;
  round: number;
  keywords: string[];
  keywordSource: string;
  total: number;
  results: Array<{ id: string; score: number }>;
  tookMs: number;
};

describe("storage faults", () => {
  beforeAll(async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
  });

  it("failing shards give 503 problem+json with Retry-After", async () => {
    clearIsolateCaches();
    const shards = Object.fromEntries(Array.from({ length: Number(env.SHARD_COUNT) }, (_, s) => [`SHARD_${s}`, failingD1()]));
    const res = await get("/v1/search?q=oak%20table", { ...shards, CACHE: failingKv() });
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("retry-after")).toBe("5");
    const body = (await res.json()) as { title: string; detail: string };
    expect(body.title).toBe("Storage unavailable");
    expect(body.detail).not.toMatch(/simulated|shard|D1_ERROR/);
  });

  it("a KV outage falls back to D1, with the same results", async () => {
    const path = "/v1/search?q=blue%20velvet%20sofa&limit=20";
    const normal = (await getJson<Answer>(path)).body;
    expect(normal.total).toBeGreaterThan(0);
    // Cold postings and keyword caches; the parsed generator stays, as in a warm isolate.
    clearIsolateCaches({ keepGenerators: true });
    const { res, body } = await getJson<Answer>(path, { CACHE: failingKv() });
    expect(res.status).toBe(200);
    expect({ ...body, requestId: "", tookMs: 0 }).toEqual({ ...normal, requestId: "", tookMs: 0 });
  });

  it("a KV outage in a fresh isolate answers from the raw query, never an error", async () => {
    clearIsolateCaches();
    const { res, body } = await getJson<Answer>("/v1/search?q=round%20mirror", { CACHE: failingKv() });
    expect(res.status).toBe(200);
    expect(body.keywordSource).toBe("raw");
    expect(body.keywords).toEqual([]);
  });
});

describe("isolate caches and rounds", () => {
  it("never serve another round's data after round N is replaced", async () => {
    const path = "/v1/search?q=wood%20chair&limit=50";
    expect(await publish(rounds.synthetic0)).not.toBe("replaced");
    const before = (await getJson<Answer>(path)).body; // caches now hold round 0 as first published
    const other = { ...rounds.trained, manifest: { ...rounds.trained.manifest, round: 0 } };
    expect(await publish(other, undefined, { replace: true })).toBe("replaced");
    const warm = (await getJson<Answer>(path)).body;
    clearIsolateCaches();
    const cold = (await getJson<Answer>(path)).body;
    expect({ ...warm, requestId: "", tookMs: 0 }).toEqual({ ...cold, requestId: "", tookMs: 0 });
    expect(warm.keywords).not.toEqual(before.keywords); // the replacement really differs
    expect(env.ROUND_CACHE_TTL_MS).toBe("0");
  });
});
