/**
 * Why a result matched (GET /v1/search?explain=1, the workbench pages): the
 * query keywords S_q ∪ {q} that hit the item's S_i ∪ {i} (§2.1's
 * intersection; none for a hit of the related tail), and the BM25
 * contribution of each query word (times its weight, core/query-terms.ts). The contributions are added in the
 * plan's word order, as scoreCandidates adds them, so they sum to the hit's
 * score exactly.
 */

import { BM25_DEFAULTS, type Bm25Params, idf, termScore } from "./bm25.js";
import { indexOfSorted } from "./collections.js";
import { itemKeywordSet } from "./inverted-index.js";
import type { FetchedPostings, IndexStats, QueryPlan } from "./retrieve.js";

export interface Explanation {
  /** The plan's keywords the item's keyword set (its name included) holds. */
  readonly keywords: string[];
  /** Each plan word the item's bag holds, with its BM25 term score. */
  readonly words: Array<{ readonly word: string; readonly score: number }>;
}

/**
 * Explains one hit. `fetched` must hold the hit's word entries (the blocks
 * executeQuery scored it from); `item` is its name and S_i as stored.
 */
export function explainHit(
  plan: QueryPlan,
  fetched: FetchedPostings,
  stats: IndexStats,
  ordinal: number,
  item: { readonly name: string; readonly keywords: readonly string[] },
  params: Bm25Params = BM25_DEFAULTS,
): Explanation {
  const own = new Set(itemKeywordSet(item));
  const keywords = plan.keywords.filter((k) => own.has(k));
  const words: Array<{ word: string; score: number }> = [];
  for (let wj = 0; wj < plan.words.length; wj++) {
    const w = plan.words[wj] as string;
    const p = fetched.words.get(w);
    if (!p || p.items.length === 0) continue;
    const j = indexOfSorted(p.items, ordinal);
    if (j < 0) continue;
    words.push({
      word: w,
      score:
        (plan.weights?.[wj] ?? 1) *
        termScore(idf(stats.itemCount, p.df ?? p.items.length), p.tfs[j] as number, p.lengths[j] as number, stats.avgLength, params),
    });
  }
  return { keywords, words };
}
