/**
 * IndexStore: where the worker reads a round's encoded postings from. Every
 * backend (D1 shards, KV cache, in-isolate LRU, in-memory) implements this
 * one method and passes the conformance suite in test/workers/index-store.
 */
export interface RoundRef {
  readonly round: number;
  /** The round's content hash: cache keys carry it, so a republished round never meets stale entries. */
  readonly contentHash: string;
  readonly shardCount: number;
}

export interface IndexStore {
  /**
   * The encoded postings (core/postings.ts) for the given posting keys
   * (core/shard.ts). Keys with no posting are absent from the result.
   */
  postings(round: RoundRef, keys: readonly string[]): Promise<Map<string, Uint8Array>>;
}

/** Accepts the shapes D1 and KV return for binary values. */
export function toBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (Array.isArray(v)) return Uint8Array.from(v as number[]);
  throw new TypeError("posting data is not binary");
}
