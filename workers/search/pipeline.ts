/**
 * The search pipeline: keywords → posting blocks (LRU → KV → D1, at most
 * one D1 query per shard) → core's union + BM25 (then the related tail past
 * I_ret(q), when the page reaches it) → the page's item rows.
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
  /** Past I_ret(q): shares a word of the plan, no keyword (core/retrieve.ts). */
  readonly related: boolean;
}

export interface SearchAnswer {
  readonly total: number;
  /** How many items the related tail holds after I_ret(q); null when the page ends inside I_ret(q) (not counted then). */
  readonly related: number | null;
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
  const fetched = postingsFromBlocks(plan, blocks, page.offset + page.limit);
  const { total, hits, related } = executeQuery(plan, fetched, round.stats, { ...page, related: true });
  const rows = await deps.catalog.itemsByOrdinal(
    round,
    hits.map((h) => h.item),
  );
  const results = hits.map((h) => {
    const r = rows.get(h.item);
    if (!r) throw new Error(`round ${round.round}: item ordinal ${h.item} has no catalogue row`);
    return { id: r.id, name: r.name, class: r.class, score: h.score, related: h.related === true };
  });
  return { total, related: related ?? null, results };
}
