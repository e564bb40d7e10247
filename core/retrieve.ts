/**
 * Retrieval exactly as §2.1 defines it, then BM25 ranking.
 *
 *   I_ret(q) = { i : (S_q ∪ {q}) ∩ (S_i ∪ {i}) ≠ ∅ }
 *
 * Matching is on whole normalised keywords; ranking is BM25 over the words of
 * those keywords. Past the end of I_ret(q), a page may continue with the
 * related tail: the items that share a word of the plan without sharing a
 * keyword, ranked by the same BM25 and marked as such. I_ret(q), and so
 * P/R/F1, never includes them; the @k ranking columns may, exactly as the
 * BM25 baseline's @100 columns rank past its cutoff (training/evaluate.ts).
 * The function is pure over already fetched postings, so the in-memory index
 * (trainer, eval) and the worker (D1/KV) share it and cannot disagree on a
 * result.
 */
import { BM25_DEFAULTS, type Bm25Params, idf, termScore } from "./bm25.js";
import { filterOrdinals } from "./filters.js";
import { keywordWords, normalizeKeyword } from "./normalize.js";
import type { WordPosting } from "./postings.js";
import { NO_QUERY_TERMS, type QueryTerms, stopWordSet } from "./query-terms.js";

export interface QueryPlan {
  /** S_q ∪ {q}, normalised, distinct, sorted. */
  readonly keywords: readonly string[];
  /** The distinct words of those keywords, stop words left out, sorted: the BM25 query. */
  readonly words: readonly string[];
  /** Each word's BM25 weight, aligned with `words` (core/query-terms.ts); absent when every word weighs 1. */
  readonly weights?: readonly number[];
}

export interface IndexStats {
  readonly itemCount: number;
  readonly avgLength: number;
}

export interface FetchedPostings {
  readonly keywords: ReadonlyMap<string, Uint32Array>;
  readonly words: ReadonlyMap<string, WordPosting>;
}

export interface Hit {
  readonly item: number;
  readonly score: number;
  /** Set on hits of the related tail (not in I_ret(q)). */
  readonly related?: true;
}

export interface SearchPage {
  /** |I_ret(q)|. */
  readonly total: number;
  readonly hits: Hit[];
  /** With `related`, when the page reaches past I_ret(q): how many items the related tail holds. */
  readonly related?: number;
  /** With `keepRetrieved`: the (filtered) I_ret(q), sorted. */
  readonly retrieved?: Uint32Array;
}

export interface PageOptions {
  readonly limit?: number;
  readonly offset?: number;
  readonly params?: Bm25Params;
  /**
   * Continue past I_ret(q) with the related tail. The word postings given
   * must then be whole (postingsFromBlocks decodes them so when asked for
   * more than I_ret(q) holds).
   */
  readonly related?: boolean;
  /**
   * Filters (core/filters.ts): only the items that pass are in the filtered
   * I_ret(q) and its related tail; `total` counts them. The word postings
   * must then hold every passing candidate (postingsFromBlocks with the same filter).
   */
  readonly filter?: (item: number) => boolean;
  /** Return the (filtered) I_ret(q) as `retrieved`, for facet counts over the whole set. */
  readonly keepRetrieved?: boolean;
}

/**
 * S_q ∪ {q} and its BM25 words under the round's query terms: keywords made
 * of stop words alone are left out, and so are stop words from the words;
 * the words of q (and of its spelling correction, core/typos.ts) weigh
 * `queryWordWeight`.
 */
export function planQuery(generated: Iterable<string>, rawQuery: string, terms: QueryTerms = NO_QUERY_TERMS, corrected?: string | null): QueryPlan {
  const stop = stopWordSet(terms);
  const live = (k: string) => k !== "" && (stop.size === 0 || keywordWords(k).some((w) => !stop.has(w)));
  const kw = new Set<string>();
  for (const g of generated) {
    const k = normalizeKeyword(g);
    if (live(k)) kw.add(k);
  }
  const q = normalizeKeyword(rawQuery);
  if (live(q)) kw.add(q);
  const keywords = [...kw].sort();
  const words = [...new Set(keywords.flatMap(keywordWords))].filter((w) => !stop.has(w)).sort();
  if (terms.queryWordWeight === 1) return { keywords, words };
  const typed = new Set([...keywordWords(q), ...keywordWords(normalizeKeyword(corrected ?? ""))]);
  return { keywords, words, weights: words.map((w) => (typed.has(w) ? terms.queryWordWeight : 1)) };
}

/**
 * Sorted union of the keyword postings: the item ordinals of I_ret(q).
 * Several lists are merged through a bitmap over the ordinals when it is
 * small next to them (a common query at a million items: a dozen lists,
 * 300k entries, under 1M ordinals: marking and one scan of 31k words,
 * against sorting 300k numbers, was most of a warm search); else by sorting
 * their concatenation. Both give the same sorted, distinct ordinals.
 */
export function unionPostings(lists: Iterable<Uint32Array>): Uint32Array {
  const parts = [...lists];
  let size = 0;
  let max = 0; // each list is ascending: its last entry is its largest (unionByBitmap checks it)
  for (const p of parts) {
    size += p.length;
    if (p.length > 0 && (p[p.length - 1] as number) > max) max = p[p.length - 1] as number;
  }
  const merged = unionFitsBitmap(parts.length, size, max) ? unionByBitmap(parts, size, max) : null;
  if (merged) return merged;
  const all = new Uint32Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  if (parts.length > 1) all.sort();
  let n = 0;
  for (let j = 0; j < all.length; j++) {
    if (n === 0 || all[j] !== all[n - 1]) all[n++] = all[j] as number;
  }
  return all.subarray(0, n);
}

/** A bitmap's 32-bit words per list entry up to which a union marks and scans rather than sorts. */
const UNION_BITMAP_WORDS_PER_ENTRY = 4;

/**
 * Whether a union of `lists` lists, `size` entries in all, the largest `max`, goes through a bitmap: two lists or
 * more, and a bitmap small next to them. An ordinal past 2^32 − 1 is none (and would wrap the bitmap's size).
 */
export const unionFitsBitmap = (lists: number, size: number, max: number) => lists > 1 && max <= 0xffffffff && max >>> 5 <= size * UNION_BITMAP_WORDS_PER_ENTRY;

/** Null when a list is not ascending after all (an entry past `max`): then the caller sorts. */
function unionByBitmap(parts: readonly Uint32Array[], size: number, max: number): Uint32Array | null {
  const bits = new Int32Array((max >>> 5) + 1);
  for (const p of parts) {
    for (let j = 0; j < p.length; j++) {
      const x = p[j] as number;
      if (x > max) return null;
      bits[x >>> 5] = (bits[x >>> 5] as number) | (1 << (x & 31));
    }
  }
  return bitmapOrdinals(bits, size);
}

/** The ordinals a bitmap marks, ascending; `size` is at least their number (the marked lists' total length). */
export function bitmapOrdinals(bits: Int32Array, size: number): Uint32Array {
  const out = new Uint32Array(size);
  let n = 0;
  for (let wj = 0; wj < bits.length; wj++) {
    let w = bits[wj] as number;
    while (w !== 0) {
      const low = w & -w; // lowest set bit first: ascending ordinals
      out[n++] = wj * 32 + 31 - Math.clz32(low);
      w ^= low;
    }
  }
  return out.subarray(0, n);
}

/** BM25 scores of the candidates, words added in the plan's sorted order, each term times its weight (1 when none is given). */
export function scoreCandidates(
  candidates: Uint32Array,
  words: readonly string[],
  postings: ReadonlyMap<string, WordPosting>,
  stats: IndexStats,
  params: Bm25Params = BM25_DEFAULTS,
  weights?: readonly number[],
): Float64Array {
  const scores = new Float64Array(candidates.length);
  if (candidates.length === 0) return scores;
  for (let wj = 0; wj < words.length; wj++) {
    const w = words[wj] as string;
    const weight = weights?.[wj] ?? 1;
    const p = postings.get(w);
    if (!p || p.items.length === 0) continue;
    mergeTerms(scores, candidates, 0, p, weight, idf(stats.itemCount, p.df ?? p.items.length), stats.avgLength, params);
  }
  return scores;
}

/**
 * Adds one word's terms (times `weight`) to the scores of the candidates its
 * posting holds, both lists ascending: a linear merge from candidate `from`
 * that visits each entry once. Returns where the merge stopped, for a posting
 * that goes on in a next piece (core/score-blocks.ts scores block by block).
 */
export function mergeTerms(
  scores: Float64Array,
  candidates: Uint32Array,
  from: number,
  p: WordPosting,
  weight: number,
  idfW: number,
  avgLength: number,
  params: Bm25Params,
): number {
  let c = from;
  for (let j = 0; j < p.items.length && c < candidates.length; j++) {
    const item = p.items[j] as number;
    while (c < candidates.length && (candidates[c] as number) < item) c++;
    if (c < candidates.length && candidates[c] === item) {
      scores[c] = (scores[c] as number) + weight * termScore(idfW, p.tfs[j] as number, p.lengths[j] as number, avgLength, params);
    }
  }
  return c;
}

/** Does candidate a rank after candidate b? Score descending, then item ordinal ascending: a strict total order. */
const ranksAfter = (scores: Float64Array, candidates: Uint32Array, a: number, b: number) =>
  (scores[a] as number) < (scores[b] as number) || ((scores[a] as number) === (scores[b] as number) && (candidates[a] as number) > (candidates[b] as number));

/**
 * The first k candidate indices of the ranking, in rank order. For a page
 * (k ≪ |I_ret(q)|) a bounded heap whose root is the worst kept candidate:
 * O(n log k) instead of sorting all of I_ret(q). The order is total, so the
 * result is exactly the full sort's first k (a property test checks it).
 */
export function rankTop(scores: Float64Array, candidates: Uint32Array, k: number): Uint32Array {
  const n = candidates.length;
  const cmp = (a: number, b: number) => (ranksAfter(scores, candidates, a, b) ? 1 : ranksAfter(scores, candidates, b, a) ? -1 : 0);
  if (k >= n || k > n / 8) {
    const order = new Uint32Array(n);
    for (let j = 0; j < n; j++) order[j] = j;
    order.sort(cmp);
    return order.subarray(0, Math.min(k, n));
  }
  const heap = new Uint32Array(k);
  let size = 0;
  const after = (i: number, j: number) => ranksAfter(scores, candidates, heap[i] as number, heap[j] as number);
  const swap = (i: number, j: number) => {
    const t = heap[i] as number;
    heap[i] = heap[j] as number;
    heap[j] = t;
  };
  for (let c = 0; c < n && k > 0; c++) {
    if (size < k) {
      heap[size] = c;
      // Sift up: the root holds the candidate that ranks last.
      for (let i = size++; i > 0 && after(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (ranksAfter(scores, candidates, heap[0] as number, c)) {
      heap[0] = c;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let worst = i;
        if (l < size && after(l, worst)) worst = l;
        if (r < size && after(r, worst)) worst = r;
        if (worst === i) break;
        swap(i, worst);
        i = worst;
      }
    }
  }
  return heap.subarray(0, size).sort(cmp);
}

/** Sorted items of the word postings that are not in `exclude` (sorted): the related tail's candidates. */
function relatedCandidates(words: ReadonlyMap<string, WordPosting>, exclude: Uint32Array): Uint32Array {
  const all = unionPostings([...words.values()].map((p) => p.items));
  const out = new Uint32Array(all.length);
  let n = 0;
  let e = 0;
  for (let j = 0; j < all.length; j++) {
    const item = all[j] as number;
    while (e < exclude.length && (exclude[e] as number) < item) e++;
    if (e >= exclude.length || exclude[e] !== item) out[n++] = item;
  }
  return out.subarray(0, n);
}

/** Ranks `candidates` by BM25 and returns the hits at ranks [from, to) of that ranking (none, unscored, when the range is empty). */
function rankedSlice(
  candidates: Uint32Array,
  plan: QueryPlan,
  fetched: FetchedPostings,
  stats: IndexStats,
  params: Bm25Params | undefined,
  from: number,
  to: number,
  related: boolean,
): Hit[] {
  if (to <= from) return [];
  const scores = scoreCandidates(candidates, plan.words, fetched.words, stats, params, plan.weights);
  const order = rankTop(scores, candidates, Math.min(candidates.length, to));
  return hitsAt(order, candidates, scores, from, to, related);
}

/** The hits at ranks [from, to) of `order` (candidate indices in rank order); a related hit is marked so. */
export function hitsAt(order: ArrayLike<number>, candidates: Uint32Array, scores: Float64Array, from: number, to: number, related = false): Hit[] {
  const hits: Hit[] = [];
  for (let j = from; j < Math.min(order.length, to); j++) {
    const c = order[j] as number;
    hits.push(
      related ? { item: candidates[c] as number, score: scores[c] as number, related: true } : { item: candidates[c] as number, score: scores[c] as number },
    );
  }
  return hits;
}

/**
 * Ranks I_ret(q) by BM25, ties broken by item ordinal (= item id order), and
 * returns one page; with `related`, ranks past |I_ret(q)| continue with the
 * related tail, ranked the same way.
 */
export function executeQuery(plan: QueryPlan, fetched: FetchedPostings, stats: IndexStats, opts: PageOptions = {}): SearchPage {
  const lists: Uint32Array[] = [];
  for (const k of plan.keywords) {
    const p = fetched.keywords.get(k);
    if (p) lists.push(p);
  }
  const candidates = opts.filter ? filterOrdinals(unionPostings(lists), opts.filter) : unionPostings(lists);
  const kept = opts.keepRetrieved ? { retrieved: candidates } : {};
  const offset = opts.offset ?? 0;
  const want = offset + (opts.limit ?? Number.POSITIVE_INFINITY);
  const hits = offset < candidates.length ? rankedSlice(candidates, plan, fetched, stats, opts.params, offset, want, false) : [];
  // The tail is counted only when the page reaches it: only then are the word postings whole.
  if (!opts.related || want <= candidates.length) return { total: candidates.length, hits, ...kept };
  const all = relatedCandidates(fetched.words, candidates);
  const tail = opts.filter ? filterOrdinals(all, opts.filter) : all;
  hits.push(...rankedSlice(tail, plan, fetched, stats, opts.params, Math.max(0, offset - candidates.length), want - candidates.length, true));
  return { total: candidates.length, hits, related: tail.length, ...kept };
}
