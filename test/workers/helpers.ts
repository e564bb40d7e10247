/** Publishing and requesting inside workerd, through the same code paths as production. */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { parseServingManifest } from "../../core/contract.js";
import { type PublishOptions, type PublishProgress, publishRound } from "../../publish/publisher.js";
import type { PublishBase, PublishSource } from "../../publish/source.js";
import { d1Database, kvStore, type PublishTarget } from "../../publish/target.js";
import { createApp } from "../../workers/search/app.js";
import { shardDatabases } from "../../workers/search/bindings.js";
import { clearRoundCache, itemLru } from "../../workers/search/catalog.js";
import { clearServingConfigCache } from "../../workers/search/experiments/live.js";
import { clearGeneratorCache, keywordLru } from "../../workers/search/keywords.js";
import { resetBreakers } from "../../workers/search/llm-breaker.js";
import { blockTermsLru, postingLru } from "../../workers/search/middleware/services.js";
import { tailBucketLru } from "../../workers/search/policy-tail.js";
import { dfBucketLru } from "../../workers/search/query-df.js";
import { clearReadyCache } from "../../workers/search/routes/ready.js";
import { clearPopularQueriesCache, suggestBucketLru } from "../../workers/search/suggest.js";
import type { TestRounds } from "../support/test-rounds.js";
import { type WireRound, wireSource } from "../support/wire-round.js";

export function target(): PublishTarget {
  return { catalog: d1Database(env.CATALOG), shards: shardDatabases(env).map(d1Database), kv: kvStore(env.CACHE) };
}

const asSource = (r: WireRound | PublishSource): PublishSource =>
  "postings" in r && Array.isArray(r.postings) ? wireSource(r as WireRound) : (r as PublishSource);

/** Publishes a round (in full, or on `base`, a round already published) and returns the outcome. */
type HelperOptions = PublishOptions & { base?: WireRound | PublishSource; progress?: PublishProgress };

export async function publish(input: WireRound | PublishSource, t: PublishTarget = target(), opts: HelperOptions = {}) {
  const report = await publishReport(input, t, opts);
  return report.outcome;
}

export async function publishReport(input: WireRound | PublishSource, t: PublishTarget = target(), opts: HelperOptions = {}) {
  let base: PublishBase | null = null;
  if (opts.base) {
    const source = asSource(opts.base);
    const text = (await t.catalog.scalar("SELECT manifest FROM rounds WHERE round = ? AND state = 'published'", source.manifest.round)) as string;
    base = { manifest: parseServingManifest(text), source };
  }
  try {
    return await publishRound(t, asSource(input), base, opts.progress, opts);
  } finally {
    clearRoundCache();
  }
}

/** Empties every per-isolate cache, as a fresh isolate would start (the generators too, unless `keepGenerators`). */
export function clearIsolateCaches(opts: { keepGenerators?: boolean } = {}): void {
  clearRoundCache();
  clearServingConfigCache();
  postingLru.clear();
  blockTermsLru.clear();
  itemLru.clear();
  keywordLru.clear();
  dfBucketLru.clear();
  tailBucketLru.clear();
  resetBreakers();
  clearReadyCache();
  suggestBucketLru.clear();
  clearPopularQueriesCache();
  if (!opts.keepGenerators) clearGeneratorCache();
}

let rounds: Promise<TestRounds> | null = null;

/** The test rounds built in Node (test/support/worker-fixtures.ts), fetched once per test file. */
export function testRounds(): Promise<TestRounds> {
  rounds ??= fetch(`${env.TEST_FIXTURES_URL}/rounds.json`).then((r) => r.json() as Promise<TestRounds>);
  return rounds;
}

const app = createApp();

let clients = 0;
/** A client IP of its own (TEST-NET-3 documentation range; a header value only), so the rate limit meets only the tests that aim at it. */
export function freshClientIp(): string {
  clients++;
  return `203.0.${(clients >> 8) & 255}.${clients & 255}`;
}

/** A request to the app with the test bindings, optionally overriding some; from a fresh client unless the headers name one. */
export async function get(path: string, overrides: Partial<Record<string, unknown>> = {}, headers: Record<string, string> = {}, method = "GET") {
  return send(path, { headers, method }, overrides);
}

/**
 * One request through the app with a real execution context, waited on, so what it writes after the response (events, KV) has landed;
 * from a fresh client IP unless the headers name one (the per-IP limits meet only the tests that aim at them).
 */
export async function send(path: string, init: RequestInit, overrides: Partial<Record<string, unknown>> = {}) {
  const headers = new Headers(init.headers);
  if (!headers.has("cf-connecting-ip")) headers.set("cf-connecting-ip", freshClientIp());
  const ctx = createExecutionContext();
  const res = await app.request(path, { ...init, headers }, { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export async function getJson<T = Record<string, unknown>>(path: string, overrides: Partial<Record<string, unknown>> = {}) {
  const res = await get(path, overrides);
  return { res, body: (await res.json()) as T };
}
