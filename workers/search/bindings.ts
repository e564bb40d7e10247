/** The worker's bindings, typed in one place (see wrangler.toml). */
export interface Env {
  readonly CATALOG: D1Database;
  readonly CACHE: KVNamespace;
  /** Search and feedback events (workers/experiments/events.ts); absent: events are not stored. */
  readonly EVENTS?: D1Database;
  /** Workers Analytics Engine dataset for events, when configured. */
  readonly EVENTS_AE?: AnalyticsEngineDataset;
  /** Milliseconds a search event waits to be batched with others (0: written at once). */
  readonly EVENTS_FLUSH_MS?: string;
  /** Secret mixed into the hash of every stored user key (experiments/user-hash.ts); unset: a fixed namespace only. */
  readonly USER_KEY_PEPPER?: string;
  /** Days the cron keeps search and feedback events (default 90; experiments/retention.ts). */
  readonly EVENTS_RETENTION_DAYS?: string;
  /** Bearer token of the admin API (wrangler secret put ADMIN_TOKEN; .dev.vars locally); unset: /admin answers 503. */
  readonly ADMIN_TOKEN?: string;
  /** Bearer token of the workbench's judges (POST /v1/judgments; the ADMIN_TOKEN works too); unset: judging needs the admin token. */
  readonly JUDGE_TOKEN?: string;
  readonly SHARD_COUNT: string;
  /** OpenAI-compatible base URL of the vLLM server, e.g. http://host:8000/v1; empty disables the LLM. */
  readonly LLM_BASE_URL?: string;
  /** Secret (wrangler secret put LLM_API_KEY). */
  readonly LLM_API_KEY?: string;
  readonly LLM_TIMEOUT_MS?: string;
  /** How long the LLM circuit stays open before one request probes again (default 30 s). */
  readonly LLM_BREAKER_COOLDOWN_MS?: string;
  readonly ROUND_CACHE_TTL_MS?: string;
  /** Workers Rate Limiting binding per user key (else IP) on /v1/* (wrangler.toml [[ratelimits]]); absent: no limit. */
  readonly RATE_LIMITER?: RateLimit;
  /** Per client IP address (IPv6: per /64) on /v1/*, so rotating user keys does not escape the limit; absent: no limit. */
  readonly IP_RATE_LIMITER?: RateLimit;
  /** Per client IP address on /admin/*, a budget of its own; absent: no limit. */
  readonly ADMIN_RATE_LIMITER?: RateLimit;
  /** The limiters' period in seconds (10 or 60), sent as Retry-After with a 429; kept equal to every binding's by a test. */
  readonly RATE_LIMIT_PERIOD_S?: string;
  /** Seconds a query's generated keywords stay in KV (`kw:`); default a week, at least 60. */
  readonly KEYWORD_CACHE_TTL_S?: string;
  /** Milliseconds an isolate reuses its /readyz answer (default 5000; 0: probe every time). */
  readonly READY_CACHE_TTL_MS?: string;
  /** Set by `npm start` (wrangler dev --var): /healthz echoes it, so the start-up wait knows it reached its own server. */
  readonly DEV_INSTANCE?: string;
  readonly [shard: `SHARD_${number}`]: D1Database | undefined;
}

export interface AppBindings {
  Bindings: Env;
}

/** SHARD_0..SHARD_{S-1}; a missing binding is a deployment error. */
export function shardDatabases(env: Env): D1Database[] {
  const count = Number(env.SHARD_COUNT);
  if (!Number.isInteger(count) || count < 1) throw new Error(`SHARD_COUNT must be a positive integer, got ${env.SHARD_COUNT}`);
  return Array.from({ length: count }, (_, s) => {
    const db = env[`SHARD_${s}`];
    if (!db) throw new Error(`binding SHARD_${s} is missing (SHARD_COUNT = ${count})`);
    return db;
  });
}

export function intVar(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
}
