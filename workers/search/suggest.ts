/**
 * Suggestions for what a user has typed (GET /v1/suggest): the serving
 * round's keyword buckets (written at publish, publish/suggest.ts) and the
 * popular queries' buckets (written by the cron, suggest-queries.ts), read
 * from KV in one bulk read through an isolate cache, then matched and ranked
 * by core/suggest.ts. KV is where they live, and a failed read is an empty
 * bucket: suggestions degrade to fewer, never to an error.
 */
import { type ServingManifest, SUGGEST_QUERIES_KEY, suggestKeywordKey } from "../../core/contract.js";
import {
  bucketsOfTyped,
  parseSuggestBucket,
  rankSuggestions,
  SUGGEST_FORMAT,
  SUGGEST_VERSION,
  type SuggestBucket,
  type Suggestion,
} from "../../core/suggest.js";
import { kvGetMany } from "./store/kv-store.js";
import { ByteLru } from "./store/lru.js";
import { type PopularQueries, parsePopularQueries } from "./suggest-queries.js";

export const SUGGEST_SERVING = {
  /** The isolate's cache of keyword buckets (immutable per round: keys carry the content hash). */
  bucketLruBytes: 4 * 2 ** 20,
  /** How long an isolate reuses the popular queries before reading KV again (the cron rebuilds them hourly). */
  popularQueriesTtlMs: 60_000,
} as const;

const EMPTY: SuggestBucket = { format: SUGGEST_FORMAT, version: SUGGEST_VERSION, kind: "keyword", entries: [] };

export const suggestBucketLru = new ByteLru<SuggestBucket>(
  SUGGEST_SERVING.bucketLruBytes,
  (key, b) => key.length * 2 + 64 + b.entries.reduce((n, [t]) => n + t.length * 2 + 48, 0),
);

let popular: { value: PopularQueries | null; readAt: number } | null = null;

/** Forgets the isolate's popular queries (tests; a fresh isolate starts so). */
export function clearPopularQueriesCache(): void {
  popular = null;
}

async function popularQueries(kv: KVNamespace, now: number): Promise<PopularQueries | null> {
  if (popular && now - popular.readAt < SUGGEST_SERVING.popularQueriesTtlMs) return popular.value;
  let value: PopularQueries | null = null;
  try {
    const raw = await kv.get(SUGGEST_QUERIES_KEY, "json");
    value = raw === null ? null : parsePopularQueries(raw);
  } catch (e) {
    console.warn("popular queries could not be read; suggesting keywords only:", (e as Error).message);
  }
  popular = { value, readAt: now };
  return value;
}

async function keywordBuckets(kv: KVNamespace, round: ServingManifest, buckets: readonly string[]): Promise<SuggestBucket[]> {
  const keys = buckets.map((b) => suggestKeywordKey(round.round, round.contentHash, b));
  const out: SuggestBucket[] = [];
  const missing = keys.filter((k) => {
    const hit = suggestBucketLru.get(k);
    if (hit) out.push(hit);
    return !hit;
  });
  const got = await kvGetMany<unknown>(kv, missing, "json", `round ${round.round}: its keyword suggestions could not be read:`);
  for (const k of missing) {
    if (!got.has(k)) continue; // a failed read: not cached, tried again next time
    const raw = got.get(k);
    let bucket = EMPTY;
    try {
      if (raw !== null && raw !== undefined) bucket = parseSuggestBucket(raw);
    } catch (e) {
      console.warn(`round ${round.round}: suggestion bucket ${k}:`, (e as Error).message);
    }
    suggestBucketLru.set(k, bucket);
    out.push(bucket);
  }
  return out;
}

/** The best `limit` suggestions for `words` (core/suggest.ts typedWords) in the serving round. */
export async function suggest(kv: KVNamespace, round: ServingManifest, words: readonly string[], limit: number, now = Date.now()): Promise<Suggestion[]> {
  if (words.length === 0) return [];
  const buckets = bucketsOfTyped(words);
  const [keywords, queries] = await Promise.all([keywordBuckets(kv, round, buckets), popularQueries(kv, now)]);
  const queryBuckets = queries ? buckets.map((b) => queries.buckets[b]).filter((b): b is SuggestBucket => b !== undefined) : [];
  return rankSuggestions(words, [...queryBuckets, ...keywords], limit);
}
