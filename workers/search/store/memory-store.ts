/** An IndexStore over an in-memory KeywordIndex: the reference the other backends must agree with. */
import { BLOCK_LIMITS, blockKeywordPosting, blockWordPosting, type PostingBlock } from "../../../core/blocks.js";
import type { KeywordIndex } from "../../../core/inverted-index.js";
import { POSTING_PREFIX } from "../../../core/shard.js";
import type { IndexStore, RoundRef } from "./index-store.js";

export class MemoryIndexStore implements IndexStore {
  constructor(
    private readonly rounds: ReadonlyMap<number, KeywordIndex>,
    private readonly maxBlockBytes: number = BLOCK_LIMITS.maxBlockBytes,
  ) {}

  async postings(round: RoundRef, keys: readonly string[]): Promise<Map<string, PostingBlock[]>> {
    const index = this.rounds.get(round.round);
    const out = new Map<string, PostingBlock[]>();
    if (!index) return out;
    for (const k of keys) {
      if (k.startsWith(POSTING_PREFIX.keyword)) {
        const p = index.keywordPostings.get(k.slice(POSTING_PREFIX.keyword.length));
        if (p) out.set(k, blockKeywordPosting(p, this.maxBlockBytes));
      } else if (k.startsWith(POSTING_PREFIX.word)) {
        const p = index.wordPostings.get(k.slice(POSTING_PREFIX.word.length));
        if (p) out.set(k, blockWordPosting(p, this.maxBlockBytes));
      }
    }
    return out;
  }
}
