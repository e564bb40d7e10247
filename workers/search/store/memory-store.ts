/** An IndexStore over an in-memory KeywordIndex: the reference the other backends must agree with. */
import type { KeywordIndex } from "../../../core/inverted-index.js";
import { encodeKeywordPosting, encodeWordPosting } from "../../../core/postings.js";
import { POSTING_PREFIX } from "../../../core/shard.js";
import type { IndexStore, RoundRef } from "./index-store.js";

export class MemoryIndexStore implements IndexStore {
  constructor(private readonly rounds: ReadonlyMap<number, KeywordIndex>) {}

  async postings(round: RoundRef, keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    const index = this.rounds.get(round.round);
    const out = new Map<string, Uint8Array>();
    if (!index) return out;
    for (const k of keys) {
      if (k.startsWith(POSTING_PREFIX.keyword)) {
        const p = index.keywordPostings.get(k.slice(POSTING_PREFIX.keyword.length));
        if (p) out.set(k, encodeKeywordPosting(p));
      } else if (k.startsWith(POSTING_PREFIX.word)) {
        const p = index.wordPostings.get(k.slice(POSTING_PREFIX.word.length));
        if (p) out.set(k, encodeWordPosting(p));
      }
    }
    return out;
  }
}
