/**
 * GET /readyz — readiness: a round is published and every store answers.
 * One catalogue query, one query per shard and one KV read; never cached,
 * so a load balancer sees the stores as they are now.
 */
import { createRoute } from "@hono/zod-openapi";
import type { ServingManifest } from "../../../core/contract.js";
import { queryGeneratorKey } from "../../../core/contract.js";
import type { ApiApp } from "../api/app-type.js";
import { EVERY_ROUTE, json, problems } from "../api/responses.js";
import { Ready } from "../api/schemas.js";
import { shardDatabases } from "../bindings.js";
import { Catalog } from "../catalog.js";
import { Problem } from "../errors.js";
import { storageProblem } from "../storage.js";

type Check = "ok" | "failed" | "missing";

export const readyRoute = createRoute({
  method: "get",
  path: "/readyz",
  operationId: "readiness",
  summary: "Readiness: a round is published and D1 and KV answer",
  tags: ["operations"],
  responses: { 200: json("Ready to serve searches.", Ready), ...problems(...EVERY_ROUTE, 503) },
});

/** A probe's state; a failure is kept as the problem it would be in a search (unmigrated vs unavailable). */
async function check(what: string, probe: () => Promise<boolean>, failures: Problem[]): Promise<Check> {
  try {
    return (await probe()) ? "ok" : "missing";
  } catch (e) {
    failures.push(storageProblem(`readiness: ${what}`, e));
    return "failed";
  }
}

export function mountReady(app: ApiApp) {
  app.openapi(readyRoute, async (c) => {
    const failures: Problem[] = [];
    let serving: ServingManifest | undefined;
    const catalog = await check(
      "catalogue",
      async () => {
        serving = (await new Catalog(c.env.CATALOG, 0).publishedRounds())[0];
        return serving !== undefined;
      },
      failures,
    );
    const shardDbs = shardDatabases(c.env); // a missing binding is a deployment error (500), not unreadiness
    const shards = await check(
      "shards",
      async () => (await Promise.all(shardDbs.map((db) => db.prepare("SELECT 1 FROM postings LIMIT 1").all()))).length > 0,
      failures,
    );
    const kv = await check(
      "KV",
      async () => {
        if (!serving) return false;
        const generator = await c.env.CACHE.get(queryGeneratorKey(serving.round, serving.contentHash), "stream");
        await generator?.cancel();
        return generator !== null;
      },
      failures,
    );
    const checks = { catalog, shards, kv };
    if (serving && catalog === "ok" && shards === "ok" && kv === "ok") return c.json({ status: "ready" as const, round: serving.round, checks }, 200);
    const failed = failures[0];
    if (failed) throw new Problem(failed.type, `Not ready: ${failed.detail}`, { checks });
    if (catalog === "missing") throw new Problem("noRound", "Not ready: no round is published yet.", { checks });
    throw new Problem("unavailable", "Not ready: the serving round's query generator is missing from KV.", { checks });
  });
}
