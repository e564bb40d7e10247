/**
 * BM25 scores of I_ret(q)'s candidates read straight from the word blocks:
 * for each word of the plan, in the plan's order, its blocks that hold a
 * candidate are decoded one at a time and merged into the scores. The same
 * terms, added in the same order, as scoreCandidates over the joined
 * postings (core/retrieve.ts, which wordPostingsFromBlocks would make), so
 * the same scores bit for bit; what it saves is the joined copies of every
 * word's entries, which for a trained policy's common query at a million
 * items (5–12 words, up to 130k entries each) were a large part of a search.
 */
import { blocksHolding, type PostingBlock, postingCount } from "./blocks.js";
import { BM25_DEFAULTS, type Bm25Params, idf } from "./bm25.js";
import { type IndexStats, mergeTerms, type QueryPlan } from "./retrieve.js";
import { wordKey } from "./shard.js";
import { decodeWordBlock } from "./word-blocks.js";

export function scoreFromBlocks(
  candidates: Uint32Array,
  plan: QueryPlan,
  blocks: ReadonlyMap<string, readonly PostingBlock[]>,
  stats: IndexStats,
  params: Bm25Params = BM25_DEFAULTS,
): Float64Array {
  const scores = new Float64Array(candidates.length);
  if (candidates.length === 0) return scores;
  for (let wj = 0; wj < plan.words.length; wj++) {
    const all = blocks.get(wordKey(plan.words[wj] as string));
    if (!all) continue;
    const weight = plan.weights?.[wj] ?? 1;
    // The word's df is its whole posting's, as wordPostingsFromBlocks gives it.
    const idfW = idf(stats.itemCount, postingCount(all));
    let c = 0;
    for (const block of blocksHolding(all, candidates))
      c = mergeTerms(scores, candidates, c, decodeWordBlock(block.data), weight, idfW, stats.avgLength, params);
  }
  return scores;
}
