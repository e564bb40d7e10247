/**
 * A state whose migrations were never applied (the tables are dropped here,
 * in this file's own isolated databases): every data route answers 503
 * problem+json with Retry-After instead of a bare 500, readiness says so,
 * and liveness stays ok.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { shardDatabases } from "../../workers/search/bindings.js";
import { clearIsolateCaches, get } from "./helpers.js";

describe("before migrations", () => {
  beforeAll(async () => {
    await env.CATALOG.batch([env.CATALOG.prepare("DROP TABLE items"), env.CATALOG.prepare("DROP TABLE rounds")]);
    for (const shard of shardDatabases(env)) await shard.prepare("DROP TABLE postings").run();
    clearIsolateCaches();
  });

  it.each(["/v1/search?q=chair", "/v1/items/1", "/v1/rounds"])("%s answers 503 Storage not ready", async (path) => {
    const res = await get(path);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("retry-after")).toBe("30");
    const body = (await res.json()) as { title: string; detail: string };
    expect(body.title).toBe("Storage not ready");
    expect(body.detail).toMatch(/migrat/);
    expect(body.detail).not.toMatch(/no such table/);
  });

  it("readiness is 503 naming the failed stores; liveness is ok", async () => {
    const ready = await get("/readyz");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ title: "Storage not ready", checks: { catalog: "failed", shards: "failed", kv: "missing" } });
    expect((await get("/healthz")).status).toBe(200);
  });
});
