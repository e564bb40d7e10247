/**
 * The search pipeline: keywords → posting lookups (LRU → KV → D1, at most
 * one D1 query per shard) → core's union + BM25 → the page's item rows.
 * Ranking is core's `executeQuery`, so results equal the trainer's.
 */

import { decodeKeywordPosting, decodeWordPosting, type WordPosting } from "../../core/postings.js";
import type { FetchedPostings } from "../../core/retrieve.js";
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

export async function fetchPostings(
  store: IndexStore,
  round: ServingManifest,
  keywords: readonly string[],
  words: readonly string[],
): Promise<FetchedPostings> {
  const bytes = await store.postings(round, [...keywords.map(keywordKey), ...words.map(wordKey)]);
  const kw = new Map<string, Uint32Array>();
  for (const k of keywords) {
    const b = bytes.get(keywordKey(k));
    if (b) kw.set(k, decodeKeywordPosting(b));
  }
  const wp = new Map<string, WordPosting>();
  for (const w of words) {
    const b = bytes.get(wordKey(w));
    if (b) wp.set(w, decodeWordPosting(b));
  }
  return { keywords: kw, words: wp };
}

export async function runSearch(
  deps: { store: IndexStore; catalog: Catalog },
  round: ServingManifest,
  query: string,
  generated: QueryKeywords,
  page: { limit: number; offset: number },
): Promise<SearchAnswer> {
  const plan = planQuery(generated.keywords, query);
  const fetched = await fetchPostings(deps.store, round, plan.keywords, plan.words);
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
