/**
 * The search pipeline: keywords → posting blocks (LRU → KV → D1, at most
 * one D1 query per shard) → core's union + block-max top-k BM25 (core/topk.ts; the related tail past
 * I_ret(q), when the page reaches it) → the page's item rows.
 * Ranking is core's `executeQuery`, so results equal the trainer's.
 */

import { postingsFromBlocks } from "../../core/blocks.js";
import { indexOfSorted } from "../../core/collections.js";
import type { ServingManifest } from "../../core/contract.js";
import { type Explanation, explainHit } from "../../core/explain.js";
import type { FacetValue } from "../../core/filters.js";
import { firstPassPlan, NO_HINTS, type SearchHints, searchHints } from "../../core/hints.js";
import { itemKeywordSet } from "../../core/inverted-index.js";
import { executeQuery, planQuery, type QueryPlan, unionPostings } from "../../core/retrieve.js";
import { keywordKey, wordKey } from "../../core/shard.js";
import { executeTopK } from "../../core/topk.js";
import type { Catalog, ItemRow } from "./catalog.js";
import { facetCounts, type Narrowing, narrows, prepareNarrowing } from "./facets.js";
import type { QueryKeywords } from "./keywords.js";
import type { KeptBlockTerms } from "./store/block-terms.js";
import type { IndexStore } from "./store/index-store.js";

export interface SearchResult {
  readonly id: string;
  readonly name: string;
  readonly class: string;
  readonly score: number;
  /** Past I_ret(q): shares a word of the plan, no keyword (core/retrieve.ts). */
  readonly related: boolean;
  /** With `explain`: the keywords that hit and each word's BM25 contribution (core/explain.ts). */
  readonly explain?: Explanation;
}

export interface SearchAnswer {
  readonly total: number;
  /** How many items the related tail holds after I_ret(q); null when the page ends inside I_ret(q) (not counted then). */
  readonly related: number | null;
  readonly results: SearchResult[];
  /** Whether an item ordinal is in I_ret(q) (the workbench's P/R/F1 over the whole set). */
  readonly retrieves: (ordinal: number) => boolean;
  /** With facets asked: each one's top values over the filtered I_ret(q) (facets.ts). */
  readonly facets?: Record<string, FacetValue[]>;
}

export interface SearchOptions {
  readonly explain?: boolean;
  /**
   * Plain BM25 (the workbench's baseline side): no keywords at all, so every
   * result is in the related tail, every item sharing a word of the query,
   * ranked by BM25 over the round's bags.
   */
  readonly bm25?: boolean;
  /** Filters narrowing I_ret(q) and its tail, and facets to count (facets.ts); needs `deps.kv`. */
  readonly narrowing?: Narrowing;
}

export async function runSearch(
  deps: { store: IndexStore; catalog: Catalog; kv?: KVNamespace; blockTerms?: KeptBlockTerms },
  round: ServingManifest,
  query: string,
  generated: QueryKeywords,
  page: { limit: number; offset: number },
  opts: SearchOptions = {},
): Promise<SearchAnswer> {
  const full = planQuery(generated.keywords, query, round.queryTerms, generated.corrected);
  const plan: QueryPlan = opts.bm25 ? firstPassPlan(query) : full;
  const narrowing = opts.narrowing && deps.kv && narrows(opts.narrowing) ? opts.narrowing : null;
  const [blocks, narrowed] = await Promise.all([
    deps.store.postings(round, [...plan.keywords.map(keywordKey), ...plan.words.map(wordKey)]),
    narrowing && deps.kv ? prepareNarrowing(deps.kv, round, narrowing) : null,
  ]);
  const keep = narrowed?.keep ?? undefined;
  // Block-max top-k (core/topk.ts): the reference's page exactly, scoring only what can reach it; filters narrow I_ret(q) first.
  const ranked = executeTopK(
    plan,
    blocks,
    round.stats,
    {
      ...page,
      related: true,
      ...(keep ? { filter: keep } : {}),
      keepRetrieved: (narrowed?.facets.length ?? 0) > 0,
    },
    deps.blockTerms ? { blockTerms: deps.blockTerms.forRound(round) } : {},
  );
  const { total, hits, related, retrieved } = ranked.page;
  const fetched = opts.explain ? ranked.fetched() : null;
  const rows = await deps.catalog.itemsByOrdinal(
    round,
    hits.map((h) => h.item),
  );
  const results = hits.map((h) => {
    const r = rowAt(rows, round, h.item);
    const result: SearchResult = { id: r.id, name: r.name, class: r.class, score: h.score, related: h.related === true };
    return fetched ? { ...result, explain: explainHit(plan, fetched, round.stats, h.item, r) } : result;
  });
  // I_ret(q) as a sorted list, built only if asked (the workbench's P/R/F1), never on a plain search.
  let set: Uint32Array | null = null;
  const retrieves = (o: number) => {
    set ??= unionPostings(ranked.fetched().keywords.values());
    return indexOfSorted(set, o) >= 0;
  };
  return { total, related: related ?? null, results, retrieves, ...(narrowed && retrieved ? { facets: facetCounts(narrowed, retrieved) } : {}) };
}

/** Plain BM25's first k item ordinals for a query (its words over the round's bags; no item rows read). */
export async function rankedOrdinals(store: IndexStore, round: ServingManifest, query: string, k: number): Promise<number[]> {
  const plan = firstPassPlan(query);
  const blocks = await store.postings(round, plan.words.map(wordKey));
  const { hits } = executeQuery(plan, postingsFromBlocks(plan, blocks, k), round.stats, { limit: k, related: true });
  return hits.map((h) => h.item);
}

/**
 * A hinted query policy's first pass (core/hints.ts) over the served round:
 * plain BM25's top k, then their S_i ∪ {i} from one catalogue read. The
 * trainer's indexHints over the same round gives the same hints.
 */
export async function firstPassHints(deps: { store: IndexStore; catalog: Catalog }, round: ServingManifest, query: string, k: number): Promise<SearchHints> {
  const ordinals = await rankedOrdinals(deps.store, round, query, k);
  if (ordinals.length === 0) return NO_HINTS;
  const rows = await deps.catalog.itemsByOrdinal(round, ordinals);
  return searchHints(ordinals.map((o) => itemKeywordSet(rowAt(rows, round, o))));
}

/** A hit's catalogue row: every ordinal of a published round has one, so a missing row is a broken publish. */
function rowAt(rows: ReadonlyMap<number, ItemRow>, round: ServingManifest, ordinal: number): ItemRow {
  const r = rows.get(ordinal);
  if (!r) throw new Error(`round ${round.round}: item ordinal ${ordinal} has no catalogue row`);
  return r;
}
