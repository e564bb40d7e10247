/**
 * GET /readyz — readiness: a round is published and every store answers.
 * One catalogue query, one query per shard (the search's own query, with
 * nothing to look up: store/d1-store.ts probeShard) and one KV read. The
 * answer, ready or not, is kept per isolate for READY_CACHE_TTL_MS (default
 * SERVING_LIMITS.readyCacheTtlMsDefault): the route is open and unthrottled,
 * so repeating it must not repeat S + 2 storage reads. A load balancer sees
 * the stores as they were at most that long ago.
 */
import { createRoute } from "@hono/zod-openapi";
import type { ServingManifest } from "../../../core/contract.js";
import { queryGeneratorKey } from "../../../core/contract.js";
import type { ApiApp } from "../api/app-type.js";
import { EVERY_ROUTE, json, problems } from "../api/responses.js";
import { Ready } from "../api/schemas.js";
import { type Env, intVar, shardDatabases } from "../bindings.js";
import { Catalog } from "../catalog.js";
import { Problem } from "../errors.js";
import { SERVING_LIMITS } from "../limits.js";
import { storageProblem } from "../storage.js";
import { probeShard } from "../store/d1-store.js";

type Check = "ok" | "failed" | "missing";
type Checks = { catalog: Check; shards: Check; kv: Check };
/** What /readyz answers: ready, or the problem it throws. */
type Answer = { readonly ready: true; readonly round: number; readonly checks: Checks } | { readonly ready: false; readonly problem: Problem };

let lastAnswer: { readonly atMs: number; readonly answer: Answer } | null = null;

/** Forget the isolate's readiness answer (as a fresh isolate would start). */
export function clearReadyCache(): void {
  lastAnswer = null;
}

export const readyRoute = createRoute({
  method: "get",
  path: "/readyz",
  operationId: "readiness",
  summary: "Readiness: a round is published and D1 and KV answer",
  tags: ["operations"],
  responses: { 200: json("Ready to serve searches.", Ready), ...problems(...EVERY_ROUTE, 503) },
});

/** A probe's state; a failure is kept as the problem it would be in a search (unmigrated vs unavailable). */
async function check(what: string, run: () => Promise<boolean>, failures: Problem[]): Promise<Check> {
  try {
    return (await run()) ? "ok" : "missing";
  } catch (e) {
    failures.push(storageProblem(`readiness: ${what}`, e));
    return "failed";
  }
}

async function probe(env: Env): Promise<Answer> {
  const failures: Problem[] = [];
  let serving: ServingManifest | undefined;
  const catalog = await check(
    "catalogue",
    async () => {
      serving = (await new Catalog(env.CATALOG, 0).publishedRounds())[0];
      return serving !== undefined;
    },
    failures,
  );
  const shardDbs = shardDatabases(env); // a missing binding is a deployment error (500, never cached), not unreadiness
  // Each shard answers on its own: one that cannot (e.g. a dropped table) fails the check and is named in the log.
  const perShard = await Promise.all(shardDbs.map((db, s) => check(`shard ${s}`, () => probeShard(db), failures)));
  const shards: Check = perShard.every((state) => state === "ok") ? "ok" : "failed";
  const kv = await check(
    "KV",
    async () => {
      if (!serving) return false;
      const generator = await env.CACHE.get(queryGeneratorKey(serving.round, serving.contentHash), "stream");
      await generator?.cancel();
      return generator !== null;
    },
    failures,
  );
  const checks = { catalog, shards, kv };
  if (serving && catalog === "ok" && shards === "ok" && kv === "ok") return { ready: true, round: serving.round, checks };
  const failed = failures[0];
  if (failed) return { ready: false, problem: new Problem(failed.type, `Not ready: ${failed.detail}`, { checks }) };
  if (catalog === "missing") return { ready: false, problem: new Problem("noRound", "Not ready: no round is published yet.", { checks }) };
  return { ready: false, problem: new Problem("unavailable", "Not ready: the serving round's query generator is missing from KV.", { checks }) };
}

export function mountReady(app: ApiApp) {
  app.openapi(readyRoute, async (c) => {
    const ttlMs = intVar(c.env.READY_CACHE_TTL_MS, SERVING_LIMITS.readyCacheTtlMsDefault);
    const now = Date.now();
    let answer = lastAnswer !== null && now - lastAnswer.atMs < ttlMs ? lastAnswer.answer : null;
    if (answer === null) {
      answer = await probe(c.env);
      if (ttlMs > 0) lastAnswer = { atMs: now, answer };
    }
    if (!answer.ready) throw answer.problem;
    return c.json({ status: "ready" as const, round: answer.round, checks: answer.checks }, 200);
  });
}
