/**
 * Where a posting lives in the serving index. Publisher and worker must agree
 * on both functions, so they live here.
 *
 * A posting key is "k:" + keyword (keyword → items) or "w:" + word (word →
 * (item, tf, length)). Its shard is a stable 32-bit FNV-1a hash of the key's
 * UTF-8 bytes modulo the round's shard count, recorded in the round manifest.
 */
export const POSTING_PREFIX = { keyword: "k:", word: "w:" } as const;

export const keywordKey = (keyword: string) => `${POSTING_PREFIX.keyword}${keyword}`;
export const wordKey = (word: string) => `${POSTING_PREFIX.word}${word}`;

const encoder = new TextEncoder();

export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of encoder.encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's 32-bit finaliser: spreads a hash's bits (FNV-1a alone clusters for keys that differ in their last bytes). */
export function fmix32(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A string's bucket among `buckets` (the KV buckets of a generator's tail: an extractor's df, a policy's vocabulary). */
export const bucketOf = (key: string, buckets: number) => fmix32(fnv1a32(key)) % buckets;

export function shardOf(key: string, shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1) throw new RangeError(`shard count must be ≥ 1, got ${shardCount}`);
  return fnv1a32(key) % shardCount;
}

/** Is this posting key a keyword's (else a word's)? */
export const isKeywordKey = (key: string) => key.startsWith(POSTING_PREFIX.keyword);
