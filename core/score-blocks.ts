/**
 * BM25 scores of I_ret(q)'s candidates read straight from the word blocks,
 * for a page the exhaustive path ranks (core/topk.ts): for each word of the
 * plan, in the plan's order, its blocks that hold a candidate are decoded
 * entry by entry and each candidate's term is added to its score. The same
 * terms, added in the same order, as scoreCandidates over the joined postings
 * (core/retrieve.ts), so the same scores bit for bit.
 *
 * A trained policy's common query at a million items reads 5–12 words of up
 * to 130k entries each, so this loop is most of a search's time. It keeps to
 * what each entry needs: its varints read in place (no decoded arrays), its
 * candidate found through a position map over the ordinals (not a merge that
 * steps over every candidate once per word), and its term looked up in the
 * word's table of the (tf, length) pairs already met (a term depends on
 * nothing else within a word, and the table holds termScore's own result).
 * Past POSITION_MAP.itemsMax items the map would not fit an isolate: the
 * candidates are then merged with each decoded block (mergeTerms).
 *
 * The worker searches the same hot words again and again, so it may keep
 * each block's entries decoded with their terms computed (BlockTerms, in a
 * byte-budgeted LRU of its own): a search then only looks its entries up.
 * A kept term is termScore's own result for the word's idf, the round's
 * avgdl and the BM25 parameters it was made with, which are checked on each
 * use, so it adds the same bits.
 */
import { blocksHolding, type PostingBlock, postingCount } from "./blocks.js";
import { BM25_DEFAULTS, type Bm25Params, idf, termScore } from "./bm25.js";
import { type IndexStats, mergeTerms, type QueryPlan } from "./retrieve.js";
import { wordKey } from "./shard.js";
import { ByteReader } from "./varint.js";
import { decodeWordBlock, wordEntries } from "./word-blocks.js";

export const POSITION_MAP = {
  /** Items up to which the position map is used: 4 bytes each, so 16 MiB at most, kept for the isolate's life. */
  itemsMax: 4_194_304,
  /** The term table's extent: tf below tfs, item length below lengths (past them a term is computed each time); cleared per word. */
  tfs: 8,
  lengths: 256,
} as const;

/** Candidate index + 1 by item ordinal (0: not a candidate). Kept between calls, all zero between them. */
let positions = new Int32Array(0);
/** A word's terms by tf × lengths + length; NaN where not met yet. */
const termTable = new Float64Array(POSITION_MAP.tfs * POSITION_MAP.lengths);

/** A word block's entries decoded, each with its term (termScore, before the plan's weight) for the inputs below. */
export interface BlockTerms {
  readonly items: Uint32Array;
  readonly terms: Float64Array;
  readonly idf: number;
  readonly avgLength: number;
  readonly k1: number;
  readonly b: number;
}

/**
 * Where BlockTerms are kept between searches, by a block's key (blockTermsKey: its word and first ordinal, unique
 * within a round). A block it does not admit is read in place: making terms that would not be kept costs about half
 * again a search's ranking.
 */
export interface BlockTermsCache {
  get(key: string): BlockTerms | undefined;
  /** Whether terms of `entries` entries made for this key would be kept. */
  admits(key: string, entries: number): boolean;
  set(key: string, terms: BlockTerms): void;
}

/** A word block's key in a BlockTermsCache: its posting key and first ordinal (a round's blocks of a word are disjoint). */
export const blockTermsKey = (postingKey: string, block: PostingBlock) => `${postingKey}@${block.first}`;

/** What the BlockTerms of `entries` entries hold in memory: 12 bytes an entry, and the object. */
export const blockTermsBytes = (entries: number) => entries * 12 + 96;

export function scoreFromBlocks(
  candidates: Uint32Array,
  plan: QueryPlan,
  blocks: ReadonlyMap<string, readonly PostingBlock[]>,
  stats: IndexStats,
  params: Bm25Params = BM25_DEFAULTS,
  cache?: BlockTermsCache,
): Float64Array {
  const scores = new Float64Array(candidates.length);
  if (candidates.length === 0) return scores;
  const extent = (candidates[candidates.length - 1] as number) + 1;
  if (extent > POSITION_MAP.itemsMax) return mergeFromBlocks(scores, candidates, plan, blocks, stats, params);
  if (positions.length < extent) positions = new Int32Array(Math.min(POSITION_MAP.itemsMax, Math.max(extent, stats.itemCount || 0)));
  for (let c = 0; c < candidates.length; c++) positions[candidates[c] as number] = c + 1;
  try {
    for (let wj = 0; wj < plan.words.length; wj++) {
      const key = wordKey(plan.words[wj] as string);
      const all = blocks.get(key);
      if (!all) continue;
      // The word's df is its whole posting's, as wordPostingsFromBlocks gives it.
      const idfW = idf(stats.itemCount, postingCount(all));
      const weight = plan.weights?.[wj] ?? 1;
      termTable.fill(Number.NaN);
      for (const block of blocksHolding(all, candidates)) {
        const k = cache ? blockTermsKey(key, block) : "";
        let kept = cache?.get(k);
        if (kept && !keptFor(kept, idfW, stats.avgLength, params)) kept = undefined;
        if (!kept && cache?.admits(k, block.count)) {
          kept = blockTerms(block.data, idfW, stats.avgLength, params);
          cache.set(k, kept);
        }
        if (kept) addKeptTerms(scores, kept, weight);
        else addBlockTerms(scores, block.data, weight, idfW, stats.avgLength, params);
      }
    }
  } finally {
    for (let c = 0; c < candidates.length; c++) positions[candidates[c] as number] = 0;
  }
  return scores;
}

/** One block's terms added to the candidates' scores: varints read in place, one-byte values without a call. */
function addBlockTerms(scores: Float64Array, data: Uint8Array, weight: number, idfW: number, avgLength: number, params: Bm25Params): void {
  const { count, offset } = wordEntries(data);
  const r = new ByteReader(data);
  const map = positions;
  let at = offset;
  let item = 0;
  for (let j = 0; j < count; j++) {
    let delta = data[at] as number;
    if (delta < 0x80) at++;
    else {
      r.pos = at;
      delta = r.uint();
      at = r.pos;
    }
    let tf = data[at] as number;
    if (tf < 0x80) at++;
    else {
      r.pos = at;
      tf = r.uint();
      at = r.pos;
    }
    let length = data[at] as number;
    if (length < 0x80) at++;
    else {
      r.pos = at;
      length = r.uint();
      at = r.pos;
    }
    item += delta;
    const c = item < map.length ? (map[item] as number) - 1 : -1;
    if (c < 0) continue;
    scores[c] = (scores[c] as number) + weight * termOf(idfW, tf, length, avgLength, params);
  }
  // A stream cut short fails in ByteReader ("truncated varint"); one with bytes left over is as corrupt.
  if (at !== data.length) throw new RangeError("a word block's entries do not fill it");
}

/** The word's term for (tf, length): termScore's result, kept in the word's table where the table reaches. */
function termOf(idfW: number, tf: number, length: number, avgLength: number, params: Bm25Params): number {
  if (tf >= POSITION_MAP.tfs || length >= POSITION_MAP.lengths) return termScore(idfW, tf, length, avgLength, params);
  const k = tf * POSITION_MAP.lengths + length;
  let t = termTable[k] as number;
  if (Number.isNaN(t)) {
    t = termScore(idfW, tf, length, avgLength, params);
    termTable[k] = t;
  }
  return t;
}

/** Were the kept terms made for these inputs? (Object.is: -0 and NaN as themselves.) */
const keptFor = (kept: BlockTerms, idfW: number, avgLength: number, params: Bm25Params) =>
  Object.is(kept.idf, idfW) && Object.is(kept.avgLength, avgLength) && Object.is(kept.k1, params.k1) && Object.is(kept.b, params.b);

/** A block's entries and their terms (through the word's term table, as addBlockTerms computes them). */
function blockTerms(data: Uint8Array, idfW: number, avgLength: number, params: Bm25Params): BlockTerms {
  const p = decodeWordBlock(data);
  const out = new Float64Array(p.items.length);
  for (let j = 0; j < out.length; j++) out[j] = termOf(idfW, p.tfs[j] as number, p.lengths[j] as number, avgLength, params);
  return { items: p.items, terms: out, idf: idfW, avgLength, k1: params.k1, b: params.b };
}

/** Kept terms added to the candidates' scores: a lookup per entry. */
function addKeptTerms(scores: Float64Array, kept: BlockTerms, weight: number): void {
  const map = positions;
  const { items, terms: t } = kept;
  for (let j = 0; j < items.length; j++) {
    const item = items[j] as number;
    const c = item < map.length ? (map[item] as number) - 1 : -1;
    if (c >= 0) scores[c] = (scores[c] as number) + weight * (t[j] as number);
  }
}

/** The same scores without the position map: each decoded block merged with the candidates (mergeTerms). */
function mergeFromBlocks(
  scores: Float64Array,
  candidates: Uint32Array,
  plan: QueryPlan,
  blocks: ReadonlyMap<string, readonly PostingBlock[]>,
  stats: IndexStats,
  params: Bm25Params,
): Float64Array {
  for (let wj = 0; wj < plan.words.length; wj++) {
    const all = blocks.get(wordKey(plan.words[wj] as string));
    if (!all) continue;
    const weight = plan.weights?.[wj] ?? 1;
    const idfW = idf(stats.itemCount, postingCount(all));
    let c = 0;
    for (const block of blocksHolding(all, candidates))
      c = mergeTerms(scores, candidates, c, decodeWordBlock(block.data), weight, idfW, stats.avgLength, params);
  }
  return scores;
}
