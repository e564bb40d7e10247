/**
 * Builds each request's services from the bindings. The posting LRU and the
 * decoded blocks' LRU live at module scope: one per isolate, shared by its
 * requests, each with a fixed budget.
 */
import { createMiddleware } from "hono/factory";
import { type Env, intVar, shardDatabases } from "../bindings.js";
import { Catalog } from "../catalog.js";
import type { KeywordDeps } from "../keywords.js";
import { SERVING_LIMITS } from "../limits.js";
import { BREAKER_LIMITS } from "../llm-breaker.js";
import { firstPassHints } from "../pipeline.js";
import { KeptBlockTerms } from "../store/block-terms.js";
import { D1IndexStore } from "../store/d1-store.js";
import type { IndexStore } from "../store/index-store.js";
import { KvCachedStore } from "../store/kv-store.js";
import { LruCachedStore, newPostingLru } from "../store/lru-store.js";

export const postingLru = newPostingLru();
export const blockTermsLru = new KeptBlockTerms();

export interface Services {
  readonly catalog: Catalog;
  readonly store: IndexStore;
  /** Word blocks kept decoded, for ranking (core/score-blocks.ts). */
  readonly blockTerms: KeptBlockTerms;
  readonly keywordDeps: KeywordDeps;
}

export type ServicesEnv = { Bindings: Env; Variables: { services: Services; userKey: string; waitUntil: (p: Promise<unknown>) => void } };

function waitUntilOf(ctx: { waitUntil(p: Promise<unknown>): void } | undefined): (p: Promise<unknown>) => void {
  return ctx ? (p) => ctx.waitUntil(p) : () => {};
}

export const services = createMiddleware<ServicesEnv>(async (c, next) => {
  let ctx: ExecutionContext | undefined;
  try {
    ctx = c.executionCtx as ExecutionContext;
  } catch {
    ctx = undefined; // app.request() in tests has no execution context
  }
  const waitUntil = waitUntilOf(ctx);
  c.set("waitUntil", waitUntil);
  const env = c.env;
  const catalog = new Catalog(env.CATALOG, intVar(env.ROUND_CACHE_TTL_MS, SERVING_LIMITS.roundCacheTtlMsDefault));
  const store = new LruCachedStore(postingLru, new KvCachedStore(env.CACHE, new D1IndexStore(shardDatabases(env)), waitUntil));
  c.set("services", {
    catalog,
    store,
    blockTerms: blockTermsLru,
    keywordDeps: {
      firstPass: (round, query, topK) => firstPassHints({ store, catalog }, round, query, topK),
      kv: env.CACHE,
      llmBaseUrl: env.LLM_BASE_URL || undefined,
      llmApiKey: env.LLM_API_KEY,
      llmTimeoutMs: intVar(env.LLM_TIMEOUT_MS, SERVING_LIMITS.llmTimeoutMsDefault),
      keywordCacheTtlS: Math.max(SERVING_LIMITS.kvTtlSMin, intVar(env.KEYWORD_CACHE_TTL_S, SERVING_LIMITS.keywordCacheTtlSDefault)),
      llmCoolDownMs: intVar(env.LLM_BREAKER_COOLDOWN_MS, BREAKER_LIMITS.coolDownMs),
      waitUntil,
    },
  });
  await next();
});
