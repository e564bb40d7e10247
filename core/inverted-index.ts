/**
 * The keyword index of one round: keyword → items, word → (item, tf, length),
 * and the BM25 statistics. Built from per-item keyword sets; every item's set
 * also holds its own normalised name, the paper's {i} (§2.1).
 */
import { fromBase64, toBase64 } from "./base64.js";
import { getOrInsert } from "./collections.js";
import { compareIds } from "./ids.js";
import { keywordWords, normalizeKeyword } from "./normalize.js";
import { decodeKeywordPosting, decodeWordPosting, encodeKeywordPosting, encodeWordPosting, type WordPosting } from "./postings.js";
import { executeQuery, type FetchedPostings, type IndexStats, type PageOptions, type QueryPlan, type SearchPage } from "./retrieve.js";

export const INDEX_FORMAT = "cogr-index";
export const INDEX_FORMAT_VERSION = 1;

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
}

export interface BuildOptions {
  /** Add the item's normalised name to its keyword set ({i} in §2.1). Default true. */
  readonly includeName?: boolean;
}

export interface SerializedIndex {
  readonly format: typeof INDEX_FORMAT;
  readonly version: number;
  readonly itemCount: number;
  readonly totalLength: number;
  readonly ids: readonly string[];
  readonly keywords: ReadonlyArray<readonly [string, string]>;
  readonly words: ReadonlyArray<readonly [string, string]>;
}

export class KeywordIndex implements IndexStats {
  readonly avgLength: number;

  private constructor(
    readonly ids: readonly string[],
    readonly totalLength: number,
    readonly keywordPostings: ReadonlyMap<string, Uint32Array>,
    readonly wordPostings: ReadonlyMap<string, WordPosting>,
  ) {
    // avgdl of an index of empty bags is 0; 1 keeps the length norm finite (b * 0 / 1).
    this.avgLength = ids.length > 0 && totalLength > 0 ? totalLength / ids.length : 1;
  }

  get itemCount(): number {
    return this.ids.length;
  }

  static build(items: readonly ItemKeywords[], opts: BuildOptions = {}): KeywordIndex {
    const includeName = opts.includeName ?? true;
    const sorted = [...items].sort((a, b) => compareIds(a.id, b.id));
    const ids = sorted.map((it) => it.id);
    for (let j = 1; j < ids.length; j++) {
      if (ids[j] === ids[j - 1]) throw new RangeError(`duplicate item id: ${ids[j]}`);
    }
    const kwLists = new Map<string, number[]>();
    const wordLists = new Map<string, { items: number[]; tfs: number[]; lengths: number[] }>();
    let totalLength = 0;
    sorted.forEach((item, ordinal) => {
      const set = itemKeywordSet(item, includeName);
      for (const k of set) {
        getOrInsert(kwLists, k, () => []).push(ordinal);
      }
      const bag = item.bag ? item.bag.map(normalizeKeyword).filter((w) => w !== "") : set.flatMap(keywordWords);
      totalLength += bag.length;
      const tf = new Map<string, number>();
      for (const w of bag) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const [w, n] of tf) {
        const l = getOrInsert(wordLists, w, () => ({ items: [] as number[], tfs: [] as number[], lengths: [] as number[] }));
        l.items.push(ordinal);
        l.tfs.push(n);
        l.lengths.push(bag.length);
      }
    });
    const kw = new Map<string, Uint32Array>();
    for (const [k, l] of kwLists) kw.set(k, Uint32Array.from(l));
    const words = new Map<string, WordPosting>();
    for (const [w, l] of wordLists) {
      words.set(w, { items: Uint32Array.from(l.items), tfs: Uint32Array.from(l.tfs), lengths: Uint32Array.from(l.lengths) });
    }
    return new KeywordIndex(ids, totalLength, kw, words);
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

  serialize(): SerializedIndex {
    return {
      format: INDEX_FORMAT,
      version: INDEX_FORMAT_VERSION,
      itemCount: this.ids.length,
      totalLength: this.totalLength,
      ids: this.ids,
      keywords: [...this.keywordPostings].map(([k, p]) => [k, toBase64(encodeKeywordPosting(p))] as const),
      words: [...this.wordPostings].map(([w, p]) => [w, toBase64(encodeWordPosting(p))] as const),
    };
  }

  static deserialize(data: SerializedIndex): KeywordIndex {
    if (data?.format !== INDEX_FORMAT) throw new Error(`not a ${INDEX_FORMAT} artifact`);
    if (data.version !== INDEX_FORMAT_VERSION) {
      throw new Error(`unsupported ${INDEX_FORMAT} version ${data.version} (this build reads ${INDEX_FORMAT_VERSION})`);
    }
    if (data.ids.length !== data.itemCount) throw new Error("index item count does not match its ids");
    const kw = new Map<string, Uint32Array>(data.keywords.map(([k, b]) => [k, decodeKeywordPosting(fromBase64(b))]));
    const words = new Map<string, WordPosting>(data.words.map(([w, b]) => [w, decodeWordPosting(fromBase64(b))]));
    return new KeywordIndex(data.ids, data.totalLength, kw, words);
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
