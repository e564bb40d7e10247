/**
 * Popular queries as suggestions (kind `query`), from the EVENTS database.
 *
 * The cron (index.ts `scheduled`) rebuilds them at most once per
 * `refreshIntervalMs`: the normalised queries of the last `windowDays` that
 * found something (not zero-result, not failed), each counted once per
 * distinct user key, kept when at least `minDistinctUsers` users searched
 * them, the `queriesMax` most popular, filed into core/suggest.ts's buckets
 * and written to KV under one key (SUGGEST_QUERIES_KEY) that every round's
 * suggestions read. The floor is what keeps one client from planting a
 * suggestion with one key; a client that mints user keys can still reach it
 * (searches record no network outside an experiment), which is a limit.
 */
import { SUGGEST_QUERIES_KEY } from "../../core/contract.js";
import { SUGGEST_LIMITS, type SuggestBucket, SuggestBuilder } from "../../core/suggest.js";

export const POPULAR_QUERY_LIMITS = {
  /** Distinct user keys a query needs before it is suggested. */
  minDistinctUsers: 5,
  /** Searches older than this are not counted. */
  windowDays: 30,
  /** Queries kept, most popular first. */
  queriesMax: 2000,
  /** The cron rebuilds the value at most this often. */
  refreshIntervalMs: 3_600_000,
  msPerDay: 86_400_000,
} as const;

export const POPULAR_QUERIES_FORMAT = "cogr-suggest-queries";
export const POPULAR_QUERIES_VERSION = 1;

/** The KV value: when it was built, and the query buckets by bucket key. */
export interface PopularQueries {
  readonly format: typeof POPULAR_QUERIES_FORMAT;
  readonly version: number;
  readonly refreshedAt: number;
  readonly queries: number;
  readonly buckets: Readonly<Record<string, SuggestBucket>>;
}

export function parsePopularQueries(value: unknown): PopularQueries {
  const v = value as Partial<PopularQueries> | null;
  if (!v || v.format !== POPULAR_QUERIES_FORMAT || v.version !== POPULAR_QUERIES_VERSION || typeof v.buckets !== "object" || v.buckets === null) {
    throw new Error(`unsupported popular queries ${String(v?.format)} v${String(v?.version)}`);
  }
  return v as PopularQueries;
}

/** The popular queries as the events say at `now`, in suggestion buckets. */
export async function popularQueries(events: D1Database, now: number): Promise<PopularQueries> {
  const since = now - POPULAR_QUERY_LIMITS.windowDays * POPULAR_QUERY_LIMITS.msPerDay;
  const { results } = await events
    .prepare(
      `SELECT query, COUNT(DISTINCT user_key) AS users FROM searches
       WHERE at >= ?1 AND query IS NOT NULL AND query != '' AND length(query) <= ?2 AND zero_result = 0 AND error = 0
       GROUP BY query HAVING users >= ?3 ORDER BY users DESC, query LIMIT ?4`,
    )
    .bind(since, SUGGEST_LIMITS.textMaxChars, POPULAR_QUERY_LIMITS.minDistinctUsers, POPULAR_QUERY_LIMITS.queriesMax)
    .all<{ query: string; users: number }>();
  const builder = new SuggestBuilder("query");
  for (const r of results) builder.add(r.query, r.users);
  return {
    format: POPULAR_QUERIES_FORMAT,
    version: POPULAR_QUERIES_VERSION,
    refreshedAt: now,
    queries: results.length,
    buckets: Object.fromEntries(builder.build()),
  };
}

/** The cron's step: rebuilds the KV value when it is missing, unreadable or older than the interval (or `force`). Returns whether it wrote. */
export async function refreshPopularQueries(events: D1Database, kv: KVNamespace, now: number, force = false): Promise<boolean> {
  if (!force) {
    const old = await kv.get<{ refreshedAt?: unknown; format?: unknown; version?: unknown }>(SUGGEST_QUERIES_KEY, "json").catch(() => null);
    const fresh =
      old?.format === POPULAR_QUERIES_FORMAT && old.version === POPULAR_QUERIES_VERSION && typeof old.refreshedAt === "number"
        ? now - old.refreshedAt < POPULAR_QUERY_LIMITS.refreshIntervalMs
        : false;
    if (fresh) return false;
  }
  await kv.put(SUGGEST_QUERIES_KEY, JSON.stringify(await popularQueries(events, now)));
  return true;
}
