/**
 * Top-k over blocked postings with block-max pruning, as Lucene's block-max
 * WAND and PISA do, for a page inside I_ret(q): the same page as
 * `executeQuery` (the reference, core/retrieve.ts), bit for bit, while
 * scoring only the candidates that can still reach it.
 *
 * I_ret(q) is the union of the keyword postings, decoded whole (straight into
 * a bitmap where one fits: core/blocks.ts unionKeywordBlocks), so `total`
 * stays exact: counting needs no scores. Each word's sub-blocks
 * (core/word-blocks.ts) bound their entries' BM25 term by the largest
 * termScore over their (tf, length) frontier, which no entry exceeds for any
 * k1 ≥ 0 and b ∈ [0, 1]: termScore grows with tf and shrinks with length, and its
 * rounding keeps that order in length always and in tf while consecutive tf
 * are far enough apart (else the bound takes a slack of BOUND_SLACK).
 * I_ret(q) is cut into chunks of CHUNK consecutive candidates; a chunk's
 * bound is the sum, in the plan's word order, of each word's largest bound
 * among the sub-blocks its ordinal range meets (floating-point addition is
 * monotone, so it bounds the computed scores). Chunks are scored best bound
 * first into a heap of the k best; once the heap is full and a chunk's bound
 * is below the k-th score, no later chunk can enter the page, and the rest
 * stay unscored and their sub-blocks undecoded; a chunk whose bound only
 * ties the k-th score is skipped when all its ordinals come after the k-th's
 * (ties rank by ordinal). Small sets (under SMALL_SET candidates) take the
 * reference path: there is little to prune and the bookkeeping would cost more.
 * Scores are summed per candidate in the plan's word order, as
 * scoreCandidates sums them, and ranked by the same total order, so the page
 * is the reference's exactly (test/core/topk.test.ts checks it on random
 * indexes, k1 and b).
 */
import { blocksHolding, concatWordPostings, joinKeywordBlocks, type PostingBlock, postingCount, unionKeywordBlocks, wordPostingsFromBlocks } from "./blocks.js";
import { BM25_DEFAULTS, idf, termScore } from "./bm25.js";
import { lowerBound } from "./collections.js";
import { filterOrdinals } from "./filters.js";
import type { WordPosting } from "./postings.js";
import { executeQuery, type FetchedPostings, hitsAt, type IndexStats, type PageOptions, type QueryPlan, rankTop, type SearchPage } from "./retrieve.js";
import { type BlockTermsCache, scoreFromBlocks } from "./score-blocks.js";
import { keywordKey, wordKey } from "./shard.js";
import { decodeSubBlock, decodeWordBlock, isBoundedWordBlock, type SubBlocks, wordSubBlocks } from "./word-blocks.js";

/** Candidates per chunk: the unit a bound is computed for and scoring is skipped by. */
export const TOPK_CHUNK = 128;
/** Below this many candidates the reference path ranks I_ret(q). */
export const SMALL_SET = 1024;
/**
 * Over this many words the exhaustive path ranks I_ret(q): a chunk's bound sums each word's largest term, which
 * over several words stands above most chunks' real scores, so little is pruned. Once the exhaustive path read
 * entries in place (score-blocks.ts), it ranked plans of two and three words at a million items in a third to a
 * half of block-max's time (`table wood` 1.00 against 2.15 ms, `bed frame` 0.57 against 1.28), while block-max kept
 * one-word plans ahead (`wall` 0.90 against 2.96 ms).
 */
export const TOPK_WORDS_MAX = 1;

/** Relative slack on a term's bound where rounding could break termScore's monotonicity in tf: far above those few ulps. */
export const BOUND_SLACK = 1e-9;
/**
 * termScore's relative step between tf and tf + 1 at norm n is n / (tf (tf + 1 + n)); while it exceeds this (three
 * orders of magnitude above the ~1e-15 its four roundings can move it), the computed terms are ordered by tf as the
 * exact ones are, so termScore at a frontier point bounds every entry it dominates: a bound a tied score can meet exactly.
 */
const EXACT_BOUND_GAP = 1e-12;

export interface TopKResult {
  readonly page: SearchPage;
  /** The postings the page was computed from (the keyword postings whole; of the words, what was decoded): for explanations. */
  readonly fetched: () => FetchedPostings;
  /** Entries decoded and candidates scored (the benchmark's "postings visited"); null on the exhaustive path. */
  readonly visited: number | null;
}

/** A word's scoring unit: a sub-block (or a whole format-2 block), covering ordinals (lo, hi]. */
interface Unit {
  readonly lo: number;
  readonly hi: number;
  readonly bound: number;
  readonly data: Uint8Array;
  readonly subs: SubBlocks | null;
  readonly s: number;
  decoded?: WordPosting;
}

function unitsOf(blocks: readonly PostingBlock[], bound: (tf: number, length: number) => number): Unit[] {
  const out: Unit[] = [];
  for (const b of blocks) {
    if (!isBoundedWordBlock(b.data)) {
      out.push({ lo: b.first - 1, hi: b.last, bound: Number.POSITIVE_INFINITY, data: b.data, subs: null, s: 0 });
      continue;
    }
    const subs = wordSubBlocks(b.data);
    for (let s = 0; s < subs.count; s++) {
      const lo = s === 0 ? b.first - 1 : (subs.lasts[s - 1] as number);
      // The largest term over the sub-block's (tf, length) frontier: no entry's term exceeds it.
      let best = 0;
      for (let q = subs.frontierStarts[s] as number; q < (subs.frontierStarts[s + 1] as number); q++) {
        const t = bound(subs.frontierTfs[q] as number, subs.frontierLengths[q] as number);
        if (t > best) best = t;
      }
      out.push({ lo, hi: subs.lasts[s] as number, bound: best, data: b.data, subs, s });
    }
  }
  return out;
}

/** The first index in [lo, hi) of a sorted array whose value is ≥ x. */
function lowerBoundIn(sorted: Uint32Array, x: number, lo: number, hi: number): number {
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if ((sorted[mid] as number) < x) a = mid + 1;
    else b = mid;
  }
  return a;
}

/** The first unit whose (lo, hi] reaches x (units are sorted and disjoint). */
function lowerBoundUnit(units: readonly Unit[], x: number): number {
  let lo = 0;
  let hi = units.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((units[mid] as Unit).hi < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const decode = (u: Unit): WordPosting => {
  u.decoded ??= u.subs ? decodeSubBlock(u.data, u.subs, u.s) : decodeWordBlock(u.data);
  return u.decoded;
};

/** The k best candidate indices by (score desc, ordinal asc), kept in a heap whose root ranks last. */
class TopK {
  private readonly heap: Int32Array;
  private size = 0;
  constructor(
    private readonly k: number,
    private readonly scores: Float64Array,
    private readonly candidates: Uint32Array,
  ) {
    this.heap = new Int32Array(k);
  }

  /** Does candidate a rank after candidate b? */
  private after(a: number, b: number): boolean {
    const sa = this.scores[a] as number;
    const sb = this.scores[b] as number;
    return sa < sb || (sa === sb && (this.candidates[a] as number) > (this.candidates[b] as number));
  }

  get full(): boolean {
    return this.size >= this.k;
  }

  /** The k-th score (what a candidate must reach); -∞ until the heap is full. */
  get threshold(): number {
    return this.full ? (this.scores[this.heap[0] as number] as number) : Number.NEGATIVE_INFINITY;
  }

  /** The ordinal of the candidate that ranks last among the kept. */
  get lastOrdinal(): number {
    return this.candidates[this.heap[0] as number] as number;
  }

  push(c: number): void {
    const h = this.heap;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.after(c, h[parent] as number)) break;
        h[i] = h[parent] as number;
        i = parent;
      }
      h[i] = c;
      return;
    }
    if (!this.after(h[0] as number, c)) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const worst = r < this.size && this.after(h[r] as number, h[l] as number) ? r : l;
      if (!this.after(h[worst] as number, c)) break;
      h[i] = h[worst] as number;
      i = worst;
    }
    h[i] = c;
  }

  ranked(): number[] {
    return [...this.heap.subarray(0, this.size)].sort((a, b) => (this.after(a, b) ? 1 : this.after(b, a) ? -1 : 0));
  }
}

/** One page of I_ret(q) from blocked postings: block-max top-k inside I_ret(q), the reference path past it. */
export function executeTopK(
  plan: QueryPlan,
  blocks: ReadonlyMap<string, readonly PostingBlock[]>,
  stats: IndexStats,
  opts: PageOptions = {},
  /**
   * Below `smallSet` candidates or over `wordsMax` words, the reference path; `chunk` candidates a bound (tests make
   * them small, to prune small sets); `blockTerms`, an isolate's decoded blocks for the exhaustive path (score-blocks.ts).
   */
  tuning: { readonly smallSet?: number; readonly chunk?: number; readonly wordsMax?: number; readonly blockTerms?: BlockTermsCache } = {},
): TopKResult {
  const smallSet = tuning.smallSet ?? SMALL_SET;
  const wordsMax = tuning.wordsMax ?? TOPK_WORDS_MAX;
  const CHUNK = tuning.chunk ?? TOPK_CHUNK;
  const keywordBlocks = plan.keywords.flatMap((k) => {
    const b = blocks.get(keywordKey(k));
    return b ? [[k, b] as const] : [];
  });
  // The keyword postings as lists are only read by explanations and the related tail: decoded then, not for I_ret(q).
  let decodedKeywords: Map<string, Uint32Array> | null = null;
  const keywordLists = () => {
    decodedKeywords ??= new Map(keywordBlocks.map(([k, b]) => [k, joinKeywordBlocks(b)]));
    return decodedKeywords;
  };
  // Filters (core/filters.ts) narrow I_ret(q) before anything is ranked or counted, as executeQuery narrows it.
  const union = unionKeywordBlocks(keywordBlocks.map(([, b]) => b));
  const candidates = opts.filter ? filterOrdinals(union, opts.filter) : union;
  const offset = opts.offset ?? 0;
  const want = offset + (opts.limit ?? Number.POSITIVE_INFINITY);
  const k = Math.min(want, candidates.length);
  // Past I_ret(q) (the related tail), or a page that ranks all of it: nothing to prune, the reference path.
  if (
    (opts.related && want > candidates.length) ||
    k >= candidates.length ||
    offset >= candidates.length ||
    candidates.length < smallSet ||
    plan.words.length > wordsMax ||
    (plan.weights ?? []).some((x) => !(x >= 0 && Number.isFinite(x)))
  ) {
    // A page inside I_ret(q): score every candidate from the blocks (score-blocks.ts), as executeQuery scores the
    // joined postings, without joining them; the postings are joined only if asked for (explanations).
    if (offset < candidates.length && (!opts.related || want <= candidates.length)) {
      const scores = scoreFromBlocks(candidates, plan, blocks, stats, opts.params, tuning.blockTerms);
      const hits = hitsAt(rankTop(scores, candidates, Math.min(candidates.length, want)), candidates, scores, offset, want);
      const fetched = (): FetchedPostings => ({ keywords: keywordLists(), words: wordPostingsFromBlocks(plan, blocks, candidates, want) });
      return { page: { total: candidates.length, hits, ...(opts.keepRetrieved ? { retrieved: candidates } : {}) }, fetched, visited: null };
    }
    // The keyword postings are decoded already: only the word postings remain (as postingsFromBlocks reads them).
    const fetched = { keywords: keywordLists(), words: wordPostingsFromBlocks(plan, blocks, candidates, want) };
    return { page: executeQuery(plan, fetched, stats, opts), fetched: () => fetched, visited: null };
  }
  const params = opts.params ?? BM25_DEFAULTS;
  const words: Array<{ word: string; idf: number; df: number; weight: number; units: Unit[] }> = [];
  for (let wj = 0; wj < plan.words.length; wj++) {
    const w = plan.words[wj] as string;
    // The plan's weight on the word's terms (core/query-terms.ts); a non-negative factor keeps every bound a bound.
    const weight = plan.weights?.[wj] ?? 1;
    const b = blocks.get(wordKey(w));
    if (!b) continue;
    const df = postingCount(b);
    const idfW = idf(stats.itemCount, df);
    const bound = (tf: number, length: number) => {
      const t = termScore(idfW, tf, length, stats.avgLength, params);
      // Exact where rounding cannot reorder tf's terms (module comment); else with slack.
      const n = params.k1 * (1 - params.b + (params.b * length) / stats.avgLength);
      return weight * (n / (tf * (tf + 1 + n)) > EXACT_BOUND_GAP ? t : t * (1 + BOUND_SLACK));
    };
    words.push({ word: w, idf: idfW, df, weight, units: unitsOf(blocksHolding(b, candidates), bound) });
  }

  // Chunks of CHUNK candidates, each with the sum of its words' largest bounds over the sub-blocks it meets.
  const n = candidates.length;
  const chunks = Math.ceil(n / CHUNK);
  const bounds = new Float64Array(chunks);
  const at = new Int32Array(words.length);
  for (let ch = 0; ch < chunks; ch++) {
    const x = candidates[ch * CHUNK] as number;
    const y = candidates[Math.min(n, (ch + 1) * CHUNK) - 1] as number;
    let bound = 0;
    for (let wi = 0; wi < words.length; wi++) {
      const units = (words[wi] as (typeof words)[number]).units;
      let q = at[wi] as number;
      while (q < units.length && (units[q] as Unit).hi < x) q++;
      at[wi] = q;
      let best = 0;
      for (; q < units.length && (units[q] as Unit).lo < y; q++) if ((units[q] as Unit).bound > best) best = (units[q] as Unit).bound;
      bound += best;
    }
    bounds[ch] = bound;
  }
  const order0 = new Uint32Array(chunks);
  for (let ch = 0; ch < chunks; ch++) order0[ch] = ch;
  order0.sort((a, b) => (bounds[b] as number) - (bounds[a] as number) || a - b);

  const scores = new Float64Array(n);
  const top = new TopK(k, scores, candidates);
  let visited = 0;
  for (const ch of order0) {
    const from = ch * CHUNK;
    const to = Math.min(n, from + CHUNK);
    const bound = bounds[ch] as number;
    // Below the k-th score, or equal to it with every ordinal after the k-th's (ties rank by ordinal): nothing here can enter.
    if (top.full && bound < top.threshold) break;
    if (top.full && bound === top.threshold && (candidates[from] as number) > top.lastOrdinal) continue;
    const x = candidates[from] as number;
    const y = candidates[to - 1] as number;
    for (let wi = 0; wi < words.length; wi++) {
      const w = words[wi] as (typeof words)[number];
      let q = lowerBoundUnit(w.units, x);
      for (; q < w.units.length && (w.units[q] as Unit).lo < y; q++) {
        const u = w.units[q] as Unit;
        if (!u.decoded) visited += decode(u).items.length;
        const p = u.decoded as WordPosting;
        const items = p.items;
        let j = x > u.lo + 1 ? lowerBound(items, x) : 0;
        let c = u.lo + 1 > x ? lowerBoundIn(candidates, u.lo + 1, from, to) : from;
        for (; c < to && j < items.length; c++) {
          const item = candidates[c] as number;
          if (item > u.hi) break;
          while (j < items.length && (items[j] as number) < item) j++;
          if (j < items.length && items[j] === item) {
            scores[c] = (scores[c] as number) + w.weight * termScore(w.idf, p.tfs[j] as number, p.lengths[j] as number, stats.avgLength, params);
          }
        }
      }
    }
    visited += to - from;
    for (let c = from; c < to; c++) top.push(c);
  }
  const hits = hitsAt(top.ranked(), candidates, scores, offset, want);
  const fetched = (): FetchedPostings => ({ keywords: keywordLists(), words: new Map(words.map((w) => [w.word, decodedPosting(w.units, w.df)])) });
  return { page: { total: candidates.length, hits, ...(opts.keepRetrieved ? { retrieved: candidates } : {}) }, fetched, visited };
}

/** The decoded units of a word as one posting (ascending), with the word's whole df. */
function decodedPosting(units: readonly Unit[], df: number): WordPosting {
  return concatWordPostings(
    units.filter((u) => u.decoded).map((u) => u.decoded as WordPosting),
    df,
  );
}
