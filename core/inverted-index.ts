/**
 * The keyword index of one round: keyword → items, word → (item, tf, length),
 * and the BM25 statistics. Built from per-item keyword sets; every item's set
 * also holds its own normalised name, the paper's {i} (§2.1).
 */
import { getOrInsert } from "./collections.js";
import { compareIds } from "./ids.js";
import { normalizeKeyword } from "./normalize.js";
import type { WordPosting } from "./postings.js";
import { NO_QUERY_TERMS, type QueryTerms } from "./query-terms.js";
import { KEYWORD_RANKER, type RankerSpec, rankerBag } from "./ranker.js";
import { executeQuery, type FetchedPostings, type IndexStats, type PageOptions, type QueryPlan, type SearchPage } from "./retrieve.js";

export interface ItemKeywords {
  readonly id: string;
  readonly name: string;
  /** S_i: raw keywords, normalised here. */
  readonly keywords: readonly string[];
  /**
   * The BM25 bag. Defaults to the words of the keyword set (name included),
   * each keyword counted once. The text-BM25 baseline passes its token stream.
   */
  readonly bag?: readonly string[];
  /** The item's text, for a ranker that weighs it (core/ranker.ts). */
  readonly text?: string;
}

export interface BuildOptions {
  /** Add the item's normalised name to its keyword set ({i} in §2.1). Default true. */
  readonly includeName?: boolean;
  /** Which words the BM25 bags hold (core/ranker.ts). Default: the keyword bag, the paper's. */
  readonly ranker?: RankerSpec;
  /** How the round plans a query's BM25 words (core/query-terms.ts). Default: none, every word alike. */
  readonly queryTerms?: QueryTerms;
}

export class KeywordIndex implements IndexStats {
  readonly avgLength: number;

  private constructor(
    readonly ids: readonly string[],
    readonly totalLength: number,
    readonly keywordPostings: ReadonlyMap<string, Uint32Array>,
    readonly wordPostings: ReadonlyMap<string, WordPosting>,
    readonly ranker: RankerSpec,
    readonly queryTerms: QueryTerms,
  ) {
    // avgdl of an index of empty bags is 0; 1 keeps the length norm finite (b * 0 / 1).
    this.avgLength = ids.length > 0 && totalLength > 0 ? totalLength / ids.length : 1;
  }

  get itemCount(): number {
    return this.ids.length;
  }

  static build(items: readonly ItemKeywords[], opts: BuildOptions = {}): KeywordIndex {
    const builder = new IndexBuilder(opts);
    for (const item of [...items].sort((a, b) => compareIds(a.id, b.id))) builder.add(item);
    return builder.finish();
  }

  /** An index from decoded postings (a round artifact's). */
  static fromPostings(
    ids: readonly string[],
    totalLength: number,
    keywords: ReadonlyMap<string, Uint32Array>,
    words: ReadonlyMap<string, WordPosting>,
    ranker: RankerSpec = KEYWORD_RANKER,
    queryTerms: QueryTerms = NO_QUERY_TERMS,
  ): KeywordIndex {
    return new KeywordIndex(ids, totalLength, keywords, words, ranker, queryTerms);
  }

  /** The postings a plan needs, as the worker fetches them from D1/KV. */
  fetch(plan: QueryPlan): FetchedPostings {
    const keywords = new Map<string, Uint32Array>();
    for (const k of plan.keywords) {
      const p = this.keywordPostings.get(k);
      if (p) keywords.set(k, p);
    }
    const words = new Map<string, WordPosting>();
    for (const w of plan.words) {
      const p = this.wordPostings.get(w);
      if (p) words.set(w, p);
    }
    return { keywords, words };
  }

  search(plan: QueryPlan, opts?: PageOptions): SearchPage {
    return executeQuery(plan, this.fetch(plan), this, opts);
  }

  private inverse: string[][] | null = null;

  /** S_i ∪ {i} of the item at an ordinal, sorted (the keyword postings inverted on first use: core/hints.ts). */
  keywordsOf(ordinal: number): readonly string[] {
    if (!this.inverse) {
      const inv: string[][] = Array.from({ length: this.ids.length }, () => []);
      for (const k of [...this.keywordPostings.keys()].sort()) for (const o of this.keywordPostings.get(k) as Uint32Array) inv[o]?.push(k);
      this.inverse = inv;
    }
    return this.inverse[ordinal] ?? [];
  }
}

/**
 * Builds an index one item at a time, in ascending id order (the ordinal is
 * the arrival position), so a streamed catalogue never has to be held whole.
 * Postings grow as plain arrays: word postings interleave (item, tf, length).
 */
export class IndexBuilder {
  private readonly includeName: boolean;
  private readonly ranker: RankerSpec;
  private readonly queryTerms: QueryTerms;
  private readonly ids: string[] = [];
  private readonly kwLists = new Map<string, number[]>();
  private readonly wordLists = new Map<string, number[]>();
  private totalLength = 0;

  constructor(opts: BuildOptions = {}) {
    this.includeName = opts.includeName ?? true;
    this.ranker = opts.ranker ?? KEYWORD_RANKER;
    this.queryTerms = opts.queryTerms ?? NO_QUERY_TERMS;
  }

  add(item: ItemKeywords): void {
    const prev = this.ids[this.ids.length - 1];
    if (prev !== undefined && compareIds(prev, item.id) >= 0) {
      throw new RangeError(prev === item.id ? `duplicate item id: ${item.id}` : `items must arrive in ascending id order: ${item.id} after ${prev}`);
    }
    const ordinal = this.ids.length;
    this.ids.push(item.id);
    const set = itemKeywordSet(item, this.includeName);
    for (const k of set) getOrInsert(this.kwLists, k, () => []).push(ordinal);
    const bag = item.bag ? item.bag.map(normalizeKeyword).filter((w) => w !== "") : rankerBag(this.ranker, set, item.text);
    this.totalLength += bag.length;
    const tf = new Map<string, number>();
    for (const w of bag) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const [w, n] of tf) getOrInsert(this.wordLists, w, () => []).push(ordinal, n, bag.length);
  }

  finish(): KeywordIndex {
    // Each list is dropped as soon as it is converted, so the arrays and their typed copies never coexist whole.
    const kw = new Map<string, Uint32Array>();
    for (const [k, l] of this.kwLists) {
      kw.set(k, Uint32Array.from(l));
      this.kwLists.delete(k);
    }
    const words = new Map<string, WordPosting>();
    for (const [w, l] of this.wordLists) {
      const n = l.length / 3;
      const p = { items: new Uint32Array(n), tfs: new Uint32Array(n), lengths: new Uint32Array(n) };
      for (let j = 0; j < n; j++) {
        p.items[j] = l[3 * j] as number;
        p.tfs[j] = l[3 * j + 1] as number;
        p.lengths[j] = l[3 * j + 2] as number;
      }
      words.set(w, p);
      this.wordLists.delete(w);
    }
    return KeywordIndex.fromPostings(this.ids, this.totalLength, kw, words, this.ranker, this.queryTerms);
  }
}

/** S_i ∪ {i}, normalised and distinct, in first-seen order. */
export function itemKeywordSet(item: Pick<ItemKeywords, "name" | "keywords">, includeName = true): string[] {
  const set = new Set<string>();
  for (const k of item.keywords) {
    const n = normalizeKeyword(k);
    if (n !== "") set.add(n);
  }
  if (includeName) {
    const name = normalizeKeyword(item.name);
    if (name !== "") set.add(name);
  }
  return [...set];
}
