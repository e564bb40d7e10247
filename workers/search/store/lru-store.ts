/**
 * The in-isolate cache in front of KV and D1: a byte-budgeted LRU of encoded
 * postings (absent ones too), shared by every request an isolate serves.
 */

import type { PostingBlock } from "../../../core/blocks.js";
import { SERVING_LIMITS } from "../limits.js";
import { blocksBytes, type IndexStore, type RoundRef } from "./index-store.js";
import { ByteLru } from "./lru.js";

/** Entry overhead: key characters (UTF-16) plus a fixed allowance for the Map entry and array header. */
const ENTRY_OVERHEAD_BYTES = 96;

export function newPostingLru(budgetBytes: number = SERVING_LIMITS.postingLruBytes): ByteLru<PostingBlock[] | null> {
  return new ByteLru<PostingBlock[] | null>(budgetBytes, (key, v) => key.length * 2 + (v ? blocksBytes(v) : 0) + ENTRY_OVERHEAD_BYTES);
}

export class LruCachedStore implements IndexStore {
  constructor(
    private readonly lru: ByteLru<PostingBlock[] | null>,
    private readonly inner: IndexStore,
  ) {}

  async postings(round: RoundRef, keys: readonly string[]): Promise<Map<string, PostingBlock[]>> {
    const out = new Map<string, PostingBlock[]>();
    const misses: string[] = [];
    const prefix = `${round.round}:${round.contentHash}:`;
    for (const k of new Set(keys)) {
      const v = this.lru.get(prefix + k);
      if (v === undefined) misses.push(k);
      else if (v !== null) out.set(k, v);
    }
    if (misses.length === 0) return out;
    const fetched = await this.inner.postings(round, misses);
    for (const k of misses) {
      const v = fetched.get(k) ?? null;
      this.lru.set(prefix + k, v);
      if (v) out.set(k, v);
    }
    return out;
  }
}
