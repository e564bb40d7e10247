/**
 * Search hints for the query policy: the paper's "+ Search Results" input
 * (§4.5, Table 4: F1 0.396 → 0.438), for a CPU policy.
 *
 * Before the query's keywords are chosen, a first pass ranks the round's
 * items by plain BM25 over the raw query's words (no keywords, so every hit
 * is in the related tail: core/retrieve.ts) and keeps the top k. Their
 * keyword sets S_i ∪ {i} become the hints:
 *   - holders(k): how many of the top k hold keyword k (the policy's
 *     `hintShare` = holders / k; "pouf" held by 9 of 10 for "small woven pouf");
 *   - top: the first item's set (`hintTop`);
 *   - the keywords ≥ HINT_LIMITS.minHolders of them hold become candidates
 *     of their own (`hint`), so a query can reach the item index's own word
 *     for what it asks ("desk for kids" → "kids desk" and "writing desk").
 * The first pass is a pure function of the round's postings and the query,
 * so the trainer (indexHints, over the in-memory index) and the worker
 * (workers/search/pipeline.ts firstPassHints, over D1/KV) compute the same
 * hints, and so the same keywords (test/workers/policy.test.ts).
 */
import { getOrInsert } from "./collections.js";
import type { KeywordIndex } from "./inverted-index.js";
import { planQuery, type QueryPlan } from "./retrieve.js";

export const HINT_LIMITS = {
  /** Items the first pass keeps (the paper shows its generator the top results; 10 fits one page). */
  topK: 10,
  /** Holders a keyword needs among them to become a candidate of its own. */
  minHolders: 2,
  /** Hint candidates per query, most held first. */
  maxHintKeywords: 8,
  /** The largest top k a round may ask for. */
  maxTopK: 100,
} as const;

export interface SearchHints {
  /** How many items the first pass returned (≤ the round's top k; 0 when nothing shares a word). */
  readonly k: number;
  /** Keyword → how many of those items hold it. */
  readonly holders: ReadonlyMap<string, number>;
  /** The first item's keyword set. */
  readonly top: ReadonlySet<string>;
}

export const NO_HINTS: SearchHints = { k: 0, holders: new Map(), top: new Set() };

/** The first pass's plan: the raw query's words and no keywords (plain BM25 over the round's bags). */
export function firstPassPlan(query: string): QueryPlan {
  return { keywords: [], words: planQuery([], query).words };
}

/** Hints from the first pass's items' keyword sets, in rank order. */
export function searchHints(sets: ReadonlyArray<readonly string[]>): SearchHints {
  const holders = new Map<string, number>();
  for (const set of sets) for (const k of new Set(set)) holders.set(k, (holders.get(k) ?? 0) + 1);
  return { k: sets.length, holders, top: new Set(sets[0] ?? []) };
}

/** The hint keywords that become candidates: held by ≥ minHolders, most held first (ties by keyword). */
export function hintKeywords(h: SearchHints): string[] {
  return [...h.holders]
    .filter(([, n]) => n >= HINT_LIMITS.minHolders)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, HINT_LIMITS.maxHintKeywords)
    .map(([k]) => k);
}

/** What a hinted generator asks of the index it serves with: the hints for one query. */
export type HintSource = (query: string) => SearchHints;

/** The first pass over an in-memory index (the trainer's, the evaluator's). */
export function indexHints(index: KeywordIndex, query: string, topK: number): SearchHints {
  const { hits } = index.search(firstPassPlan(query), { limit: topK, related: true });
  return searchHints(hits.map((h) => index.keywordsOf(h.item)));
}

/** An index's hint source, memoised per query (training asks for the same query's hints every epoch). */
export function indexHintSource(index: KeywordIndex, topK: number): HintSource {
  const memo = new Map<string, SearchHints>();
  return (query) => getOrInsert(memo, query, () => indexHints(index, query, topK));
}
