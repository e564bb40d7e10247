/**
 * IndexStore: where the worker reads a round's blocked postings from. Every
 * backend (D1 shards, KV cache, in-isolate LRU, in-memory) implements this
 * one method and passes the conformance suite in test/workers/index-store.
 */
import type { PostingBlock } from "../../../core/blocks.js";
import type { RoundRef } from "../../../core/contract.js";

export type { RoundRef };

export interface IndexStore {
  /**
   * The blocks (core/blocks.ts), in order, of each given posting key
   * (core/shard.ts). Keys with no posting are absent from the result.
   */
  postings(round: RoundRef, keys: readonly string[]): Promise<Map<string, PostingBlock[]>>;
}

/** Bytes a block list holds (for byte-budgeted caches). */
export const blocksBytes = (blocks: readonly PostingBlock[]) => blocks.reduce((s, b) => s + b.data.byteLength + 32, 0);
