/** Publishing and requesting inside workerd, through the same code paths as production. */
import { env } from "cloudflare:workers";
import { type PublishInput, planPublish } from "../../workers/publish/plan.js";
import { publishRound } from "../../workers/publish/publisher.js";
import { d1Database, kvStore, type PublishTarget } from "../../workers/publish/target.js";
import { createApp } from "../../workers/search/app.js";
import { shardDatabases } from "../../workers/search/bindings.js";
import { clearRoundCache } from "../../workers/search/catalog.js";
import type { TestRounds } from "../support/test-rounds.js";

export function target(): PublishTarget {
  return { catalog: d1Database(env.CATALOG), shards: shardDatabases(env).map(d1Database), kv: kvStore(env.CACHE) };
}

export async function publish(input: PublishInput, t: PublishTarget = target()) {
  const outcome = await publishRound(t, planPublish(input, Number(env.SHARD_COUNT)));
  clearRoundCache();
  return outcome;
}

let rounds: Promise<TestRounds> | null = null;

/** The test rounds built in Node (test/support/worker-fixtures.ts), fetched once per test file. */
export function testRounds(): Promise<TestRounds> {
  rounds ??= fetch(`${env.TEST_FIXTURES_URL}/rounds.json`).then((r) => r.json() as Promise<TestRounds>);
  return rounds;
}

const app = createApp();

/** A request to the app with the test bindings, optionally overriding some. */
export async function get(path: string, overrides: Partial<Record<string, unknown>> = {}, headers: Record<string, string> = {}, method = "GET") {
  return app.request(path, { headers, method }, { ...env, ...overrides });
}

export async function getJson<T = Record<string, unknown>>(path: string, overrides: Partial<Record<string, unknown>> = {}) {
  const res = await get(path, overrides);
  return { res, body: (await res.json()) as T };
}
