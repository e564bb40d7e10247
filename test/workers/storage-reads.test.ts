/**
 * The storage-read bound per search (DESIGN.md "What a search reads"),
 * counted on the real local D1 bindings: every statement a search runs
 * against the catalogue and each shard is counted through a wrapper that
 * passes it on unchanged. Isolate caches are emptied before each counted
 * search and every query is new to KV, so each count is the cold worst case.
 *
 *   plain search             ≤ 1 query per shard, 1 catalogue query (the page's item rows)
 *   hinted keyword miss      the first pass adds ≤ 1 per shard and 1 catalogue query (its ten rows)
 *   interleaved              both rounds' pipelines: the sum of their two bounds
 *   stale round list         + 1 catalogue query (the published rounds, cached per isolate for ROUND_CACHE_TTL_MS)
 *   filters and facets       + 0 (their columns are KV values)
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { shardDatabases } from "../../workers/search/bindings.js";
import { itemLru } from "../../workers/search/catalog.js";
import { columnLru } from "../../workers/search/facets.js";
import { clearGeneratorCache, keywordLru } from "../../workers/search/keywords.js";
import { postingLru } from "../../workers/search/middleware/services.js";
import { dfBucketLru } from "../../workers/search/query-df.js";
import { admin } from "./admin.js";
import { countingD1, type QueryCount } from "./d1-count.js";
import { get, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();
const SHARDS = shardDatabases(env).length;

/** Empties the isolate's posting, row, keyword and generator caches; the round list stays (its own read is counted apart). */
function coldCaches(): void {
  postingLru.clear();
  itemLru.clear();
  keywordLru.clear();
  dfBucketLru.clear();
  clearGeneratorCache();
}

/** One search with counting bindings, from cold isolate caches; returns its status, body and the D1 statements per binding. */
async function countedSearch(path: string, headers: Record<string, string> = {}, vars: Record<string, string> = {}) {
  coldCaches();
  const catalog: QueryCount = { queries: 0 };
  const perShard: QueryCount[] = Array.from({ length: SHARDS }, () => ({ queries: 0 }));
  const overrides: Record<string, unknown> = { CATALOG: countingD1(env.CATALOG, catalog), ...vars };
  for (let s = 0; s < SHARDS; s++) overrides[`SHARD_${s}`] = countingD1(env[`SHARD_${s}` as keyof typeof env] as D1Database, perShard[s] as QueryCount);
  const res = await get(path, overrides, headers);
  const body = (await res.json()) as { round: number; total: number; keywordSource: string; keywords: string[] };
  const shards = perShard.map((c) => c.queries);
  return { status: res.status, body, catalog: catalog.queries, shards, shardTotal: shards.reduce((a, b) => a + b, 0) };
}

/** A round list that stays fresh during the request, so only the search's own reads are counted (a stale one adds 1, counted below). */
const FRESH_ROUNDS = { ROUND_CACHE_TTL_MS: "600000" };

describe("D1 reads per search", () => {
  beforeAll(async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
  });

  it("a plain search: at most one query per shard and one catalogue query", async () => {
    // Warm the round list (per isolate), then count a search for a query nothing has cached.
    await get("/v1/search?q=warmup", FRESH_ROUNDS);
    const r = await countedSearch("/v1/search?q=wood%20table&limit=10", {}, FRESH_ROUNDS);
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThan(0);
    expect(Math.max(...r.shards)).toBeLessThanOrEqual(1);
    expect(r.shardTotal).toBeGreaterThan(0);
    expect(r.catalog).toBe(1);
  });

  it("filters and facets add no D1 query (their columns are KV values), also on a cold column cache", async () => {
    columnLru.clear();
    const r = await countedSearch("/v1/search?q=wood%20lamp&limit=10&class=Lamps&facets=class,category", {}, FRESH_ROUNDS);
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThan(0);
    expect(Math.max(...r.shards)).toBeLessThanOrEqual(1);
    expect(r.catalog).toBe(1);
  });

  it("a stale round list adds exactly one catalogue query", async () => {
    const r = await countedSearch("/v1/search?q=red%20lamp&limit=10", {}, { ROUND_CACHE_TTL_MS: "0" });
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThan(0);
    expect(Math.max(...r.shards)).toBeLessThanOrEqual(1);
    expect(r.catalog).toBe(2);
  });

  it("a hinted round's keyword-cache miss: the first pass adds at most one query per shard and one catalogue query", async () => {
    expect(await publish(rounds.trained)).toBe("published");
    await get("/v1/search?q=warmup", FRESH_ROUNDS);
    const query = Object.keys(rounds.policyKeywords).find((q) => (rounds.policyKeywords[q] ?? []).length > 0) as string;
    const r = await countedSearch(`/v1/search?q=${encodeURIComponent(query)}&limit=10`, {}, FRESH_ROUNDS);
    expect(r.status).toBe(200);
    expect(r.body.round).toBe(rounds.trained.manifest.round);
    expect(r.body.keywordSource).toBe("policy");
    expect(r.body.keywords).toEqual(rounds.policyKeywords[query]);
    // The first pass reads its words' postings (≤ 1 per shard) and its ten rows (1); the search then reads the keywords' postings
    // and any word of theirs the first pass did not (≤ 1 per shard) and the page's rows (1).
    expect(Math.max(...r.shards)).toBeLessThanOrEqual(2);
    expect(r.catalog).toBe(2);
    // The same query again: its keywords are cached (KV), so no first pass runs; the postings and rows are read again from D1 (isolate caches emptied).
    const again = await countedSearch(`/v1/search?q=${encodeURIComponent(query)}&limit=10`, {}, FRESH_ROUNDS);
    expect(Math.max(...again.shards)).toBeLessThanOrEqual(1);
    expect(again.catalog).toBe(1);
  });

  it("an interleaved search: both rounds' pipelines, at most the sum of their bounds", async () => {
    const started = await admin("POST", "/admin/experiments", {
      id: "reads-il",
      design: "interleave",
      control: rounds.synthetic0.manifest.round,
      treatment: rounds.trained.manifest.round,
      shareBp: 10_000,
    });
    expect(started.res.status).toBe(201);
    await get("/v1/search?q=warmup", FRESH_ROUNDS);
    const r = await countedSearch("/v1/search?q=walnut%20side%20table&limit=10", { "x-user-id": "reads-user-1" }, FRESH_ROUNDS);
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThan(0);
    // Control (round 0, extractor): ≤ 1 per shard + 1 page read; treatment (hinted, keyword miss): ≤ 2 per shard + 2.
    expect(Math.max(...r.shards)).toBeLessThanOrEqual(3);
    expect(r.catalog).toBeLessThanOrEqual(3);
    // It read for both rounds: more than one plain search's worth.
    expect(r.catalog).toBeGreaterThan(1);
    expect((await admin("POST", "/admin/experiments/reads-il/rollback", { reason: "test over" })).res.status).toBe(200);
  });
});
