/**
 * A round's keyword suggestions (core/suggest.ts), built while the plan
 * streams the round's postings: every keyword posting `k:<keyword>` is a
 * suggestion scored by its df (the posting's length), filed into bounded
 * buckets, and written to KV with the round's other values. Memory stays
 * bounded by the budgets, not by the vocabulary.
 */
import { suggestKeywordKey } from "../core/contract.js";
import type { PostingEntry } from "../core/round-format.js";
import { POSTING_PREFIX } from "../core/shard.js";
import { SuggestBuilder } from "../core/suggest.js";

export class KeywordSuggestions {
  private readonly builder = new SuggestBuilder("keyword");

  /** Called with every posting of the round, in any order. */
  readonly observe = (e: PostingEntry): void => {
    if (e.key.startsWith(POSTING_PREFIX.keyword)) this.builder.add(e.key.slice(POSTING_PREFIX.keyword.length), e.count);
  };

  /** The round's suggestion buckets as KV pairs. */
  kvValues(round: number, contentHash: string): Array<[string, string]> {
    return [...this.builder.build()].map(([bucket, value]) => [suggestKeywordKey(round, contentHash, bucket), JSON.stringify(value)]);
  }
}
