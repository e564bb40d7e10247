/**
 * The training view of a dataset and a starting round: items in index order
 * with their text segments, the train/dev queries of the round's split, and
 * the decoded keyword sets each side's policy produces.
 */

import { getOrInsert } from "../core/collections.js";
import { facetsField } from "../core/columns.js";
import { countItemNgrams, EXTRACTOR_DEFAULTS, extractKeywords, itemSegments, scoreNgrams } from "../core/extract.js";
import type { HintSource } from "../core/hints.js";
import { compareIds } from "../core/ids.js";
import { IndexBuilder, itemKeywordSet, type KeywordIndex } from "../core/inverted-index.js";
import { keywordWords, normalizeKeyword } from "../core/normalize.js";
import { decode } from "../core/policy.js";
import { buildCandidates, type Candidate, type CandidateInput, type PolicyVocabulary, queryCandidates } from "../core/policy-candidates.js";
import type { PolicyParams } from "../core/policy-features.js";
import { KEYWORD_RANKER, type RankerSpec } from "../core/ranker.js";
import { REWARD_LIMITS } from "../core/reward.js";
import type { RoundItem } from "../core/round-format.js";
import { decodeQuery } from "../core/set-policy.js";
import { buildCandidateStore, CANDIDATE_BUDGETS, type CandidateStore } from "./candidate-store.js";
import type { Dataset, Product } from "./data/wands.js";
import { type EvalQuery, productText, toEvalQueries } from "./evaluate.js";
import { ROUND_QUERY_TERMS } from "./query-terms.js";
import type { Round } from "./round-artifact.js";
import { type SupervisedQueries, supervisedQueries } from "./supervision/supervision.js";
import { buildVocabulary, topByScore } from "./vocabulary.js";

export const DATA_LIMITS = { ngramCandidatesPerItem: 40, sftQueryTargets: 15, itemMinLogit: -1 } as const;

export interface TrainItem {
  readonly product: Product;
  /** The normalised name ({i}). */
  readonly name: string;
}

export interface TrainData {
  readonly items: readonly TrainItem[];
  readonly ids: readonly string[];
  readonly names: readonly string[];
  readonly train: readonly EvalQuery[];
  readonly dev: readonly EvalQuery[];
  readonly devLeftOut: number;
  readonly trainLeftOut: number;
  /** Round-0 S_i (the extractor's, M = 10): Phase 1's item targets. */
  readonly baseItemSets: ReadonlyArray<readonly string[]>;
  /**
   * The catalogue's n-gram df (core/extract.ts), from which an item's n-gram
   * prior is computed when its candidates are built: per-item segments and
   * priors are never held (at 100k items they were 0.8 GB).
   */
  readonly ngramDf: ReadonlyMap<string, number>;
}

/** What an item's candidates are built from (core/policy-candidates.ts): its segments, core words and n-gram prior. */
export function itemCandidateInput(data: TrainData, j: number): CandidateInput {
  const make = () => candidateInputOf((data.items[j] as TrainItem).product, data.ngramDf, data.items.length);
  // A catalogue whose candidates stay in memory (training/candidate-store.ts) keeps its inputs too, as it always did:
  // every phase rebuilds candidates from them. Past that budget they are made again each time, never held.
  if (data.items.length * CANDIDATE_BUDGETS.maxCandidatesPerItem > CANDIDATE_BUDGETS.inMemoryCandidates) return make();
  const cache = getOrInsert(inputCache, data, (): Array<CandidateInput | undefined> => []);
  cache[j] ??= make();
  return cache[j];
}
const inputCache = new WeakMap<TrainData, Array<CandidateInput | undefined>>();

/** The same from a product alone, the catalogue's n-gram df and its size (what a worker thread holds, training/parallel/). */
export function candidateInputOf(product: Product, ngramDf: ReadonlyMap<string, number>, itemCount: number): CandidateInput {
  const segs = itemSegments(product);
  const scored = scoreNgrams(segs, ngramDf, itemCount).slice(0, DATA_LIMITS.ngramCandidatesPerItem);
  const top = scored[0]?.[1] ?? 1;
  const core = segs.filter((s) => s.field === "name" || s.field === "class" || s.field === "category").flatMap((s) => s.words);
  return { segments: segs, coreWords: core, ngramPrior: new Map(scored.map(([g, s]) => [g, s / top])) };
}

/**
 * `queries`: what to train on and score after each phase (training/supervision/supervision.ts);
 * default the hand-labelled queries of the starting round's split.
 */
export function prepareData(
  dataset: Dataset,
  start: Round,
  queries: SupervisedQueries = supervisedQueries(dataset, start.manifest.split, "labels", 0),
): TrainData {
  const byId = new Map(dataset.products.map((p) => [p.id, p]));
  const ids = start.index.ids;
  const products = ids.map((id) => {
    const p = byId.get(id);
    if (!p) throw new Error(`round ${start.manifest.round} indexes product ${id}, which COGR_DATA lacks`);
    return p;
  });
  byId.clear();
  const ngramDf = new Map<string, number>();
  for (const p of products) countItemNgrams(ngramDf, itemSegments(p));
  // An n-gram of one item is never scored (scoreNgrams skips df < minItemDf): dropped, it changes no prior and no
  // keyword, and the table every candidate worker copies shrinks by the catalogue's unique phrases.
  for (const [g, d] of ngramDf) if (d < EXTRACTOR_DEFAULTS.minItemDf) ngramDf.delete(g);
  const items = products.map((p) => ({ product: p, name: normalizeKeyword(p.name) }));
  const train = toEvalQueries(queries.train, queries.relevant, start.index, queries.judged, queries.clicks?.unknownWeight);
  const dev = toEvalQueries(queries.dev, queries.relevant, start.index);
  const itemById = new Map(start.items.map((i) => [i.id, i]));
  const base = ids.map((id, j) => {
    const it = itemById.get(id);
    return it ? [...it.keywords] : extractKeywords(itemSegments(products[j] as Product), ngramDf, ids.length);
  });
  const data = {
    items,
    ids,
    names: items.map((i) => i.name),
    train: train.queries,
    dev: dev.queries,
    devLeftOut: dev.leftOut,
    trainLeftOut: train.leftOut,
    baseItemSets: base,
    ngramDf,
  };
  internSets(data, base);
  return data;
}

/**
 * One string per distinct keyword across a run's item sets. A decoded set's
 * keywords are new strings each time (read back from a candidate file or a
 * worker's message), so a million items' sets held their keywords ten
 * million times over; shared, a generation of sets costs its arrays only.
 */
const keywordTables = new WeakMap<TrainData, Map<string, string>>();
export function internSets<T extends string[][]>(data: TrainData, sets: T): T {
  const table = getOrInsert(keywordTables, data, () => new Map<string, string>());
  for (const set of sets) {
    for (let k = 0; k < set.length; k++) {
      const s = set[k] as string;
      const seen = table.get(s);
      if (seen === undefined) table.set(s, s);
      else set[k] = seen;
    }
  }
  return sets;
}

/** What the query side sees of an item index: df over S_i and word → keyword associations. */
export function itemSideVocabulary(data: TrainData, itemSets: ReadonlyArray<readonly string[]>): PolicyVocabulary {
  // Units made as each pass visits them: a word set per item is never held for the whole catalogue.
  return buildVocabulary((visit) => {
    itemSets.forEach((set, j) => {
      visit({ words: new Set([...keywordWords(data.names[j] ?? ""), ...set.flatMap(keywordWords)]), keywords: set });
    });
  });
}

/** What the item side sees of a query index (training queries only): df over S_q ∪ {q} and associations. */
export function querySideVocabulary(data: TrainData, querySets: ReadonlyArray<readonly string[]>): PolicyVocabulary {
  return buildVocabulary(
    querySets.map((set, j) => ({ words: new Set(keywordWords(normalizeKeyword(data.train[j]?.text ?? ""))), keywords: set })),
    { minCooccurrence: 1 },
  );
}

/** An input's candidates against `vocab`, those whose keyword `keep` holds (all without it). */
export function keptCandidates(vocab: PolicyVocabulary, input: CandidateInput, keep: ReadonlySet<string> | null): Candidate[] {
  const all = buildCandidates(vocab, input);
  return keep ? all.filter((c) => keep.has(c.keyword)) : all;
}

/**
 * Every item's candidates against `vocab` (or those of `items`, item ordinals
 * in order: the store's position p is then item items[p]), those `keep`
 * holds (training/candidate-store.ts holds them).
 */
export function itemCandidates(
  data: TrainData,
  vocab: PolicyVocabulary,
  keep: ReadonlySet<string> | null,
  budget?: number,
  items?: readonly number[] | null,
): CandidateStore {
  return buildCandidateStore(
    items ? items.length : data.items.length,
    (p) => keptCandidates(vocab, itemCandidateInput(data, items ? (items[p] as number) : p), keep),
    budget,
  );
}

/** The queries' candidates; with `hints`, each query's first pass over the item index (core/hints.ts). */
export function queryCandidateSets(queries: readonly EvalQuery[], vocab: PolicyVocabulary, hints?: HintSource): Candidate[][] {
  return queries.map((q) => queryCandidates(vocab, q.text, hints?.(q.text)));
}

/**
 * Item sets as the index gets them: every keyword the item policy keeps with
 * P ≥ σ(itemMinLogit). Below the mode (0): over two full runs, −1 gave the best
 * training-query F1 of {−2, −1, −0.5, 0, 0.5} (dev was not consulted).
 */
export const decodeItemSets = (params: PolicyParams, cands: CandidateStore) =>
  Array.from({ length: cands.count }, (_, j) => decode(params, cands.get(j), REWARD_LIMITS.kMax, DATA_LIMITS.itemMinLogit));
/** Query sets as serving decodes them (core's decodeQuery), so the frozen query index is the one users get. */
export const decodeQueries = (params: PolicyParams, cands: ReadonlyArray<readonly Candidate[]>) => cands.map((c) => decodeQuery(params, c, REWARD_LIMITS.kMax));

/** S_q ∪ {q}: what the frozen query index holds for each training query. */
export function queryIndexSets(data: TrainData, querySets: ReadonlyArray<readonly string[]>): string[][] {
  return querySets.map((s, j) => [...new Set([...s, normalizeKeyword(data.train[j]?.text ?? "")])].filter((k) => k !== ""));
}

/** S_i ∪ {i} of item j. */
export const itemIndexSet = (data: TrainData, itemSets: ReadonlyArray<readonly string[]>, j: number) =>
  itemKeywordSet({ name: data.items[j]?.product.name ?? "", keywords: itemSets[j] ?? [] });

/** Alg. 1, lines 5–8: the top-N most frequent keywords pooled over the relevant items' S_i. */
export function sftQueryTargets(data: TrainData, itemSets: ReadonlyArray<readonly string[]>): Set<string>[] {
  return data.train.map((q) => {
    const counts = new Map<string, number>();
    for (const i of q.relevant) for (const k of itemSets[i] ?? []) counts.set(k, (counts.get(k) ?? 0) + 1);
    return new Set(topByScore([...counts], DATA_LIMITS.sftQueryTargets).map(([k]) => k));
  });
}

export function roundItems(data: TrainData, itemSets: ReadonlyArray<readonly string[]>): RoundItem[] {
  return data.items.map((it, j) => ({
    id: it.product.id,
    name: it.product.name,
    class: it.product.class,
    category: it.product.category,
    keywords: [...(itemSets[j] ?? [])],
    ...facetsField(it.product.facets),
  }));
}

/** A round's item keyword sets in this data's item order. */
export function itemSetsOf(data: TrainData, round: Round): string[][] {
  const byId = new Map(round.items.map((it) => [it.id, it.keywords]));
  return data.ids.map((id) => [...(byId.get(id) ?? [])]);
}

/**
 * An item phase's new S_i. Eq. 2.3 is zero for keywords that no training
 * query's S_q ∪ {q} holds (they retrieve nothing for Q), so the phase's
 * rollouts decide only keywords the frozen query index can see, and the
 * others are carried over from the previous S_i unchanged: the reward gives
 * no evidence about them, and letting them drift with shared feature weights
 * would strip items of the keywords unseen queries need. At most K_max.
 */
export function carryOver(decided: ReadonlyArray<readonly string[]>, previous: ReadonlyArray<readonly string[]>, visible: ReadonlySet<string>): string[][] {
  return decided.map((set, j) => [...new Set([...set, ...(previous[j] ?? []).filter((k) => !visible.has(k))])].slice(0, REWARD_LIMITS.kMax));
}

/**
 * The round's index over these item sets, its word postings under `ranker`
 * (core/ranker.ts). Items go in one at a time, in id order, each product's
 * text made as it goes in: every text at once was 1.5 GB at a million items.
 */
export function buildItemIndex(data: TrainData, itemSets: ReadonlyArray<readonly string[]>, ranker: RankerSpec = KEYWORD_RANKER): KeywordIndex {
  const builder = new IndexBuilder({ ranker, queryTerms: ROUND_QUERY_TERMS });
  const order = data.items.map((_, j) => j).sort((a, b) => compareIds(data.ids[a] as string, data.ids[b] as string));
  for (const j of order) {
    const p = (data.items[j] as TrainItem).product;
    builder.add({ id: p.id, name: p.name, keywords: [...(itemSets[j] ?? [])], text: productText(p) });
  }
  return builder.finish();
}
