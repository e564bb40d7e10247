/** Serving limits and tunables, with their units in their names. */
export const SERVING_LIMITS = {
  queryMaxChars: 256,
  limitMax: 100,
  limitDefault: 10,
  /** In-isolate posting LRU budget (Workers give an isolate 128 MB). */
  postingLruBytes: 16 * 2 ** 20,
  /**
   * In-isolate LRU of word blocks decoded with their BM25 terms (core/score-blocks.ts, 12 bytes an entry): at a million
   * items the five common queries' words hold ~850k entries, ~10 MB.
   */
  blockTermsLruBytes: 12 * 2 ** 20,
  /** In-isolate LRU of item rows shown in results. */
  itemLruBytes: 8 * 2 ** 20,
  /** In-isolate LRU of generated query keywords (in front of the KV keyword cache). */
  keywordLruBytes: 2 * 2 ** 20,
  /** Facet columns' dictionaries and codes (facets.ts), per isolate: at 1M items a class column is 2 MB (2-byte codes), each category level 1–2 MB. */
  columnLruBytes: 24 * 2 ** 20,
  /** A large round's extractor df tail (query-df.ts), per isolate. */
  dfBucketLruBytes: 4 * 2 ** 20,
  /** A large round's query-policy vocabulary tail (policy-tail.ts), per isolate. */
  policyTailLruBytes: 4 * 2 ** 20,
  /** KV keys are at most 512 bytes; longer posting keys skip the KV cache. */
  kvKeyMaxBytes: 512,
  /** KV's value limit (25 MiB), as base64 text. */
  kvValueMaxBytes: 25 * 2 ** 20,
  /** KV bulk get takes at most 100 keys. */
  kvBulkGetKeys: 100,
  /** Loaded query generators kept per isolate. */
  generatorCacheEntries: 4,
  llmTimeoutMsDefault: 2000,
  roundCacheTtlMsDefault: 5000,
  /** All request header names and values together (Cloudflare's own edge limit is 32 KB; `wrangler dev`'s proxy refuses over 16 KiB with a bare 431). */
  requestHeaderBytesMax: 8 * 1024,
  /** The request target (path and query); Cloudflare's edge refuses over 16 KB itself. */
  urlBytesMax: 8 * 1024,
  /** The `X-User-Id` (or `x-cogr-user`) experiment and rate-limit key. */
  userKeyMaxChars: 128,
  /** The `cogr_uid` cookie's lifetime: a year. */
  userCookieMaxAgeS: 365 * 24 * 3600,
  /** Retry-After while no round is published or storage is not migrated. */
  retryAfterNoRoundS: 30,
  /** Retry-After when D1 or KV fails inside a request. */
  retryAfterUnavailableS: 5,
  /** Retry-After for a 429 when RATE_LIMIT_PERIOD_S is not set: the longest window the Rate Limiting binding has. */
  rateLimitPeriodSDefault: 60,
  /** The deepest a search pages: offset + limit. Each result up to it costs ranking, a row read and (interleaved) an explanation; deep paging is not a search use. */
  pageDepthMax: 1000,
  /** How long a query's generated keywords (`kw:` in KV) live when KEYWORD_CACHE_TTL_S is not set: a week, so distinct queries cannot grow KV without bound. */
  keywordCacheTtlSDefault: 7 * 24 * 3600,
  /** KV's shortest expiration; a shorter KEYWORD_CACHE_TTL_S is raised to it. */
  kvTtlSMin: 60,
  /** How long an isolate reuses its /readyz answer when READY_CACHE_TTL_MS is not set: a probe costs S + 2 storage reads, so repeating it cannot multiply them. */
  readyCacheTtlMsDefault: 5000,
} as const;
