/**
 * A KV read-through cache in front of another store. Rounds are immutable
 * and keys carry the round's content hash, so entries never need
 * invalidation. Misses are written back after the response (waitUntil);
 * absent postings are cached too, as an empty value. A value is a posting's
 * blocks packed into one byte string (core/blocks.ts packBlocks), as base64 text
 * because KV's bulk get (100 keys, one operation) returns text or JSON only.
 * KV is a cache here, never the source: a failed KV read is a miss, so a KV
 * outage falls back to D1.
 */
import { fromBase64, toBase64 } from "../../../core/base64.js";
import { type PostingBlock, packBlocks, unpackBlocks } from "../../../core/blocks.js";
import { kvPostingKeyOf } from "../../../core/contract.js";
import { SERVING_LIMITS } from "../limits.js";
import type { IndexStore, RoundRef } from "./index-store.js";
import type { ByteLru } from "./lru.js";

const encoder = new TextEncoder();

export function kvPostingKey(round: RoundRef, key: string): string | null {
  const k = kvPostingKeyOf(round, key);
  return encoder.encode(k).length <= SERVING_LIMITS.kvKeyMaxBytes ? k : null;
}

/**
 * KV bulk reads in chunks of kvBulkGetKeys (one KV operation each). A chunk
 * that fails is logged with `onFailure` and reads as misses: KV is a cache.
 */
export async function kvGetMany<T>(kv: KVNamespace, keys: readonly string[], type: "text" | "json", onFailure: string): Promise<Map<string, T | null>> {
  const out = new Map<string, T | null>();
  for (let j = 0; j < keys.length; j += SERVING_LIMITS.kvBulkGetKeys) {
    const chunk = keys.slice(j, j + SERVING_LIMITS.kvBulkGetKeys);
    try {
      const got = (await kv.get(chunk, type as "json")) as Map<string, T | null>;
      for (const [k, v] of got) out.set(k, v);
    } catch (e) {
      console.warn(onFailure, (e as Error).message);
    }
  }
  return out;
}

/**
 * JSON values of `keys`, through an isolate LRU in front of one bulk KV read
 * (a generator's tail buckets: query-df.ts, policy-tail.ts). `partial`: a
 * value the read did not return (failed or missing).
 */
export async function kvGetCachedJson<T>(
  kv: KVNamespace,
  keys: readonly string[],
  lru: ByteLru<T>,
  onFailure: string,
): Promise<{ got: Map<string, T>; partial: boolean }> {
  const got = new Map<string, T>();
  const missing = [...new Set(keys)].filter((k) => {
    const hit = lru.get(k);
    if (hit) got.set(k, hit);
    return !hit;
  });
  const read = await kvGetMany<T>(kv, missing, "json", onFailure);
  let partial = false;
  for (const k of missing) {
    const v = read.get(k);
    if (v) {
      lru.set(k, v);
      got.set(k, v);
    } else partial = true;
  }
  return { got, partial };
}

export class KvCachedStore implements IndexStore {
  constructor(
    private readonly kv: KVNamespace,
    private readonly inner: IndexStore,
    private readonly waitUntil: (p: Promise<unknown>) => void,
  ) {}

  async postings(round: RoundRef, keys: readonly string[]): Promise<Map<string, PostingBlock[]>> {
    const out = new Map<string, PostingBlock[]>();
    const kvKeys = new Map<string, string>();
    const misses: string[] = [];
    for (const k of new Set(keys)) {
      const kk = kvPostingKey(round, k);
      if (kk) kvKeys.set(kk, k);
      else misses.push(k);
    }
    const got = await kvGetMany<string>(this.kv, [...kvKeys.keys()], "text", "KV posting read failed; reading D1 instead:");
    for (const [kk, key] of kvKeys) {
      const v = got.get(kk);
      if (v === null || v === undefined) misses.push(key);
      else if (v !== "") out.set(key, unpackBlocks(fromBase64(v)));
    }
    if (misses.length === 0) return out;
    const fetched = await this.inner.postings(round, misses);
    const writes: Promise<void>[] = [];
    for (const k of misses) {
      const v = fetched.get(k);
      if (v) out.set(k, v);
      const kk = kvPostingKey(round, k);
      const text = v ? toBase64(packBlocks(v)) : "";
      // A posting over KV's value limit (100M-item catalogues) stays a D1 read.
      if (kk && text.length <= SERVING_LIMITS.kvValueMaxBytes) writes.push(Promise.resolve().then(() => this.kv.put(kk, text)));
    }
    this.waitUntil(Promise.all(writes).catch((e) => console.warn("KV write-back failed", e)));
    return out;
  }
}
