/**
 * Top-k over blocked postings with block-max pruning, as Lucene's block-max
 * WAND and PISA do, for a page inside I_ret(q): the same page as
 * `executeQuery` (the reference, core/retrieve.ts), bit for bit, while
 * scoring only the candidates that can still reach it.
 *
 * I_ret(q) is the union of the keyword postings, decoded whole, so `total`
 * stays exact: counting needs no scores. Each word's sub-blocks
 * (core/word-blocks.ts) bound their entries' BM25 term by
 * termScore(idf, max tf, min length), which no entry exceeds for any k1 ≥ 0
 * and b ∈ [0, 1]: termScore grows with tf and shrinks with length, and its
 * rounding keeps that order in length always and in tf while consecutive tf
 * are far enough apart (else the bound takes a slack of BOUND_SLACK). The candidates' ordinal range is cut where
 * any word's sub-block starts or ends, so in each segment every word has one
 * bound, and the segment's bound is their sum, added in the plan's word order
 * (floating-point addition is monotone, so it bounds the computed scores).
 * Segments are scored best bound first into a heap of the k best; once the
 * heap is full and a segment's bound is below the k-th score, no later
 * segment can enter the page and the rest stay unscored and undecoded; a
 * segment whose bound only ties the k-th score is skipped when all its
 * ordinals come after the k-th's (ties rank by ordinal).
 * Scores are summed per candidate in the plan's word order, as
 * scoreCandidates sums them, and ranked by the same total order, so the page
 * is the reference's exactly (test/core/topk.test.ts checks it on random
 * indexes, k1 and b).
 */
import { blocksHolding, joinKeywordBlocks, type PostingBlock, postingCount, postingsFromBlocks } from "./blocks.js";
import { BM25_DEFAULTS, idf, termScore } from "./bm25.js";
import { lowerBound } from "./collections.js";
import type { WordPosting } from "./postings.js";
import { executeQuery, type FetchedPostings, type Hit, type IndexStats, type PageOptions, type QueryPlan, type SearchPage, unionPostings } from "./retrieve.js";
import { keywordKey, wordKey } from "./shard.js";
import { decodeSubBlock, decodeWordBlock, isBoundedWordBlock, type SubBlocks, wordSubBlocks } from "./word-blocks.js";

/** Relative slack on a term's bound where rounding could break termScore's monotonicity in tf: far above those few ulps. */
export const BOUND_SLACK = 1e-9;
/**
 * termScore's relative step between tf and tf + 1 at norm n is n / (tf (tf + 1 + n)); while it exceeds this (three
 * orders of magnitude above the ~1e-15 its four roundings can move it), the computed terms are ordered by tf as the
 * exact ones are, so termScore(max tf, min length) itself bounds every entry: a bound a tied score can meet exactly.
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

function unitsOf(blocks: readonly PostingBlock[], bound: (maxTf: number, minLength: number) => number): Unit[] {
  const out: Unit[] = [];
  for (const b of blocks) {
    if (!isBoundedWordBlock(b.data)) {
      out.push({ lo: b.first - 1, hi: b.last, bound: Number.POSITIVE_INFINITY, data: b.data, subs: null, s: 0 });
      continue;
    }
    const subs = wordSubBlocks(b.data);
    for (let s = 0; s < subs.count; s++) {
      const lo = s === 0 ? b.first - 1 : (subs.lasts[s - 1] as number);
      out.push({ lo, hi: subs.lasts[s] as number, bound: bound(subs.maxTfs[s] as number, subs.minLengths[s] as number), data: b.data, subs, s });
    }
  }
  return out;
}

const decode = (u: Unit): WordPosting => {
  u.decoded ??= u.subs ? decodeSubBlock(u.data, u.subs, u.s) : decodeWordBlock(u.data);
  return u.decoded;
};

/** The k best candidate indices by (score desc, ordinal asc), kept in a heap whose root ranks last. */
class TopK {
  readonly heap: number[] = [];
  constructor(
    private readonly k: number,
    private readonly scores: Float64Array,
    private readonly candidates: Uint32Array,
  ) {}

  after(a: number, b: number): boolean {
    const sa = this.scores[a] as number;
    const sb = this.scores[b] as number;
    return sa < sb || (sa === sb && (this.candidates[a] as number) > (this.candidates[b] as number));
  }

  get full(): boolean {
    return this.heap.length >= this.k;
  }

  /** The score a candidate must beat (or tie with a smaller ordinal) to enter; -∞ until the heap is full. */
  get threshold(): number {
    return this.full ? (this.scores[this.heap[0] as number] as number) : Number.NEGATIVE_INFINITY;
  }

  push(c: number): void {
    const h = this.heap;
    if (!this.full) {
      h.push(c);
      for (let i = h.length - 1; i > 0 && this.after(h[i] as number, h[(i - 1) >> 1] as number); i = (i - 1) >> 1) {
        [h[i], h[(i - 1) >> 1]] = [h[(i - 1) >> 1] as number, h[i] as number];
      }
      return;
    }
    if (!this.after(h[0] as number, c)) return;
    h[0] = c;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && this.after(h[l] as number, h[worst] as number)) worst = l;
      if (r < h.length && this.after(h[r] as number, h[worst] as number)) worst = r;
      if (worst === i) break;
      [h[i], h[worst]] = [h[worst] as number, h[i] as number];
      i = worst;
    }
  }

  /** The ordinal of the candidate that ranks last among the kept. */
  get lastOrdinal(): number {
    return this.candidates[this.heap[0] as number] as number;
  }

  ranked(): number[] {
    return [...this.heap].sort((a, b) => (this.after(a, b) ? 1 : this.after(b, a) ? -1 : 0));
  }
}

/** One page of I_ret(q) from blocked postings: block-max top-k inside I_ret(q), the reference path past it. */
export function executeTopK(plan: QueryPlan, blocks: ReadonlyMap<string, readonly PostingBlock[]>, stats: IndexStats, opts: PageOptions = {}): TopKResult {
  const keywords = new Map<string, Uint32Array>();
  for (const k of plan.keywords) {
    const b = blocks.get(keywordKey(k));
    if (b) keywords.set(k, joinKeywordBlocks(b));
  }
  const candidates = unionPostings(keywords.values());
  const offset = opts.offset ?? 0;
  const want = offset + (opts.limit ?? Number.POSITIVE_INFINITY);
  const k = Math.min(want, candidates.length);
  // Past I_ret(q) (the related tail), or a page that ranks all of it: nothing to prune, the reference path.
  if ((opts.related && want > candidates.length) || k >= candidates.length || offset >= candidates.length) {
    const fetched = postingsFromBlocks(plan, blocks, want);
    return { page: executeQuery(plan, fetched, stats, opts), fetched: () => fetched, visited: null };
  }
  const params = opts.params ?? BM25_DEFAULTS;
  const words: Array<{ word: string; idf: number; df: number; units: Unit[] }> = [];
  for (const w of plan.words) {
    const b = blocks.get(wordKey(w));
    if (!b) continue;
    const df = postingCount(b);
    const idfW = idf(stats.itemCount, df);
    const bound = (maxTf: number, minLength: number) => {
      const t = termScore(idfW, maxTf, minLength, stats.avgLength, params);
      // Exact where rounding cannot reorder tf's terms (module comment); else with slack.
      const n = params.k1 * (1 - params.b + (params.b * minLength) / stats.avgLength);
      return n / (maxTf * (maxTf + 1 + n)) > EXACT_BOUND_GAP ? t : t * (1 + BOUND_SLACK);
    };
    words.push({ word: w, idf: idfW, df, units: unitsOf(blocksHolding(b, candidates), bound) });
  }

  // Segments: the candidates' ordinal range cut at every unit's ends; in each, a word has one unit or none.
  const points = new Set<number>([(candidates[0] as number) - 1, candidates[candidates.length - 1] as number]);
  for (const w of words) for (const u of w.units) points.add(u.lo).add(u.hi);
  const cuts = Float64Array.from(points).sort();
  const at = words.map(() => 0);
  const segments: Array<{ from: number; to: number; bound: number; cover: Array<Unit | null> }> = [];
  for (let j = 0; j + 1 < cuts.length; j++) {
    const lo = cuts[j] as number;
    const hi = cuts[j + 1] as number;
    const from = lowerBound(candidates, lo + 1);
    const to = lowerBound(candidates, hi + 1);
    let bound = 0;
    const cover = words.map((w, wi) => {
      while ((at[wi] as number) < w.units.length && (w.units[at[wi] as number] as Unit).hi <= lo) at[wi] = (at[wi] as number) + 1;
      const u = w.units[at[wi] as number];
      if (!u || u.lo > lo) return null; // units never straddle a cut: one covering (lo, hi] holds it whole
      bound += u.bound;
      return u;
    });
    if (to > from) segments.push({ from, to, bound, cover });
  }
  segments.sort((a, b) => b.bound - a.bound || a.from - b.from);

  const scores = new Float64Array(candidates.length);
  const top = new TopK(k, scores, candidates);
  let visited = 0;
  for (const seg of segments) {
    // Below the k-th score, or equal to it with every ordinal after the k-th's (ties rank by ordinal): nothing here can enter.
    if (top.full && (seg.bound < top.threshold || (seg.bound === top.threshold && (candidates[seg.from] as number) > top.lastOrdinal))) {
      if (seg.bound < top.threshold) break;
      continue;
    }
    for (const [wi, u] of seg.cover.entries()) {
      if (!u) continue;
      const p = decode(u);
      const w = words[wi] as (typeof words)[number];
      let j = lowerBound(p.items, candidates[seg.from] as number);
      const j0 = j;
      for (let c = seg.from; c < seg.to && j < p.items.length; c++) {
        const item = candidates[c] as number;
        while (j < p.items.length && (p.items[j] as number) < item) j++;
        if (j < p.items.length && p.items[j] === item) {
          scores[c] = (scores[c] as number) + termScore(w.idf, p.tfs[j] as number, p.lengths[j] as number, stats.avgLength, params);
        }
      }
      visited += j - j0;
    }
    visited += seg.to - seg.from;
    for (let c = seg.from; c < seg.to; c++) top.push(c);
  }
  const order = top.ranked();
  const hits: Hit[] = [];
  for (let j = offset; j < Math.min(order.length, want); j++) {
    const c = order[j] as number;
    hits.push({ item: candidates[c] as number, score: scores[c] as number });
  }
  const fetched = (): FetchedPostings => ({ keywords, words: new Map(words.map((w) => [w.word, decodedPosting(w.units, w.df)])) });
  return { page: { total: candidates.length, hits }, fetched, visited };
}

/** The decoded units of a word as one posting (ascending), with the word's whole df. */
function decodedPosting(units: readonly Unit[], df: number): WordPosting {
  const parts = units.filter((u) => u.decoded).map((u) => u.decoded as WordPosting);
  const n = parts.reduce((s, p) => s + p.items.length, 0);
  const items = new Uint32Array(n);
  const tfs = new Uint32Array(n);
  const lengths = new Uint32Array(n);
  let at = 0;
  for (const p of parts) {
    items.set(p.items, at);
    tfs.set(p.tfs, at);
    lengths.set(p.lengths, at);
    at += p.items.length;
  }
  return { items, tfs, lengths, df };
}
