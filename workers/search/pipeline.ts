/**
 * The search pipeline: keywords → posting blocks (LRU → KV → D1, at most
 * one D1 query per shard) → core's union + BM25 → the page's item rows.
 * Ranking is core's `executeQuery`, so results equal the trainer's.
 */

import { postingsFromBlocks } from "../../core/blocks.js";
import { executeQuery, planQuery } from "../../core/retrieve.js";
import { keywordKey, wordKey } from "../../core/shard.js";
import type { ServingManifest } from "../publish/manifest.js";
import type { Catalog } from "./catalog.js";
import type { QueryKeywords } from "./keywords.js";
import type { IndexStore } from "./store/index-store.js";

export interface SearchResult {
  readonly id: string;
  readonly name: string;
  readonly class: string;
  readonly score: number;
}

export interface SearchAnswer {
  readonly total: number;
  readonly results: SearchResult[];
}

export async function runSearch(
  deps: { store: IndexStore; catalog: Catalog },
  round: ServingManifest,
  query: string,
  generated: QueryKeywords,
  page: { limit: number; offset: number },
): Promise<SearchAnswer> {
  const plan = planQuery(generated.keywords, query);
  const blocks = await deps.store.postings(round, [...plan.keywords.map(keywordKey), ...plan.words.map(wordKey)]);
  const fetched = postingsFromBlocks(plan, blocks);
  const { total, hits } = executeQuery(plan, fetched, round.stats, page);
  const rows = await deps.catalog.itemsByOrdinal(
    round,
    hits.map((h) => h.item),
  );
  const results = hits.map((h) => {
    const r = rows.get(h.item);
    if (!r) throw new Error(`round ${round.round}: item ordinal ${h.item} has no catalogue row`);
    return { id: r.id, name: r.name, class: r.class, score: h.score };
  });
  return { total, results };
}
