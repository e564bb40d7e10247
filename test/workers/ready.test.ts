/**
 * /readyz probes every shard with the query a search sends it, and an
 * isolate reuses its answer for READY_CACHE_TTL_MS, so repeating the probe
 * does not repeat its storage reads (counted on the real bindings). The
 * last test drops a shard's table in this file's own databases.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { shardDatabases } from "../../workers/search/bindings.js";
import { countingD1, type QueryCount } from "./d1-count.js";
import { clearIsolateCaches, get, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();
const READY = { status: "ready", round: 0, checks: { catalog: "ok", shards: "ok", kv: "ok" } };

/** The D1 bindings, each counting into `count`, and the readiness cache window. */
function counted(count: QueryCount, readyCacheTtlMs: string) {
  const shards = Object.fromEntries(shardDatabases(env).map((db, s) => [`SHARD_${s}`, countingD1(db, count)]));
  return { CATALOG: countingD1(env.CATALOG, count), ...shards, READY_CACHE_TTL_MS: readyCacheTtlMs };
}

describe("/readyz", () => {
  beforeAll(async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
  });

  it("asks the catalogue once and every shard once, then answers from the isolate within the window", async () => {
    clearIsolateCaches();
    const count = { queries: 0 };
    const overrides = counted(count, "60000");
    const first = await get("/readyz", overrides);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual(READY);
    expect(count.queries).toBe(1 + shardDatabases(env).length);
    for (let j = 0; j < 5; j++) {
      const again = await get("/readyz", overrides);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(READY);
    }
    expect(count.queries).toBe(1 + shardDatabases(env).length);
  });

  it("probes again every time when the window is 0, and after the window a fresh isolate's would", async () => {
    clearIsolateCaches();
    const count = { queries: 0 };
    for (let j = 0; j < 3; j++) expect((await get("/readyz", counted(count, "0"))).status).toBe(200);
    expect(count.queries).toBe(3 * (1 + shardDatabases(env).length));
  });

  it("keeps a 'not ready' answer for the window too, so a failing store is not probed once per request", async () => {
    clearIsolateCaches();
    const count = { queries: 0 };
    // No published round (the row turned back to publishing): 503 noRound, cached like a 200.
    const overrides = counted(count, "60000");
    await env.CATALOG.prepare("UPDATE rounds SET state = 'publishing' WHERE round = 0").run();
    try {
      const first = await get("/readyz", overrides);
      expect(first.status).toBe(503);
      expect(((await first.json()) as { title: string }).title).toBe("No round published");
      const queries = count.queries;
      const again = await get("/readyz", overrides);
      expect(again.status).toBe(503);
      expect(again.headers.get("content-type")).toBe("application/problem+json");
      expect(count.queries).toBe(queries);
    } finally {
      await env.CATALOG.prepare("UPDATE rounds SET state = 'published' WHERE round = 0").run();
      clearIsolateCaches();
    }
    expect((await get("/readyz")).status).toBe(200);
  });

  it("answers 503 problem+json naming the shards when one shard lost a table a search reads", async () => {
    clearIsolateCaches();
    expect((await get("/readyz")).status).toBe(200);
    // SHARD_1 keeps its postings directory but loses its blocks: every search that reads it would fail.
    await (shardDatabases(env)[1] as D1Database).prepare("DROP TABLE blocks").run();
    clearIsolateCaches();
    const res = await get("/readyz");
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ status: 503, title: "Storage not ready", checks: { catalog: "ok", shards: "failed", kv: "ok" } });
  });
});
