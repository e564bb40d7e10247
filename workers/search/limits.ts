/** Serving limits and tunables, with their units in their names. */
export const SERVING_LIMITS = {
  queryMaxChars: 256,
  limitMax: 100,
  limitDefault: 10,
  /** In-isolate posting LRU budget (Workers give an isolate 128 MB). */
  postingLruBytes: 16 * 2 ** 20,
  /** In-isolate LRU of item rows shown in results. */
  itemLruBytes: 8 * 2 ** 20,
  /** In-isolate LRU of generated query keywords (in front of the KV keyword cache). */
  keywordLruBytes: 2 * 2 ** 20,
  /** KV keys are at most 512 bytes; longer posting keys skip the KV cache. */
  kvKeyMaxBytes: 512,
  /** KV bulk get takes at most 100 keys. */
  kvBulkGetKeys: 100,
  /** Loaded query generators kept per isolate. */
  generatorCacheEntries: 4,
  llmTimeoutMsDefault: 2000,
  roundCacheTtlMsDefault: 5000,
} as const;
