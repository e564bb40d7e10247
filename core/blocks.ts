/**
 * Blocked postings: every posting list is cut into blocks of bounded encoded
 * size, so no D1 row, SQL statement or cache entry grows with the catalogue.
 *
 * A block is an ordinary posting of core/postings.ts over a slice of the
 * list (its first delta is from 0, so it decodes on its own), plus its skip
 * data: the first and last item ordinal it holds and its entry count.
 * Joining a posting's blocks in order gives back the list exactly, and a
 * block whose [first, last] holds no candidate can be left undecoded: BM25
 * only needs the word's df, which is the sum of the block counts.
 */

import { lowerBound } from "./collections.js";
import { filterOrdinals } from "./filters.js";
import { decodeKeywordPosting, encodeKeywordPosting, type WordPosting } from "./postings.js";
import { bitmapOrdinals, type FetchedPostings, type QueryPlan, unionFitsBitmap, unionPostings } from "./retrieve.js";
import { keywordKey, wordKey } from "./shard.js";
import { ByteReader, ByteWriter } from "./varint.js";
import { decodeWordBlock, encodeWordBlock, WORD_BLOCK } from "./word-blocks.js";

export const BLOCK_LIMITS = {
  /** Encoded bytes per block: 16 KB is under 22 KB of base64 SQL text, well inside D1's 100 KB statement. */
  maxBlockBytes: 16_384,
} as const;

export interface PostingBlock {
  readonly first: number;
  readonly last: number;
  readonly count: number;
  readonly data: Uint8Array;
}

const varintBytes = (v: number) => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5);

/**
 * Block boundaries for entries whose encoded size is entryBytes(j, prev), plus `extra(k)` for a block's k-th entry
 * (a word block's sub-block table): [start, end) pairs, each within maxBytes.
 */
function cut(
  n: number,
  items: ArrayLike<number>,
  entryBytes: (j: number, prev: number) => number,
  maxBytes: number,
  extraHeader = 0,
  extra: (k: number) => number = () => 0,
): Array<[number, number]> {
  // The count varint of a block is at most 3 bytes while a block holds < 2^21 entries, which maxBytes ≤ 2 MB guarantees.
  const header = 3 + extraHeader;
  if (maxBytes < header + 15 + extra(0)) throw new RangeError(`a block must allow at least ${header + 15 + extra(0)} bytes`);
  const out: Array<[number, number]> = [];
  let start = 0;
  let bytes = header;
  for (let j = 0; j < n; j++) {
    const size = entryBytes(j, j === start ? 0 : (items[j - 1] as number)) + extra(j - start);
    if (j > start && bytes + size > maxBytes) {
      out.push([start, j]);
      start = j;
      bytes = header + entryBytes(j, 0) + extra(0);
    } else bytes += size;
  }
  if (n > 0) out.push([start, n]);
  return out;
}

export function blockKeywordPosting(items: Uint32Array, maxBytes: number = BLOCK_LIMITS.maxBlockBytes): PostingBlock[] {
  return cut(items.length, items, (j, prev) => varintBytes((items[j] as number) - prev), maxBytes).map(([s, e]) => {
    const slice = items.subarray(s, e);
    return { first: slice[0] as number, last: slice[slice.length - 1] as number, count: slice.length, data: encodeKeywordPosting(slice) };
  });
}

/** Word blocks carry block-max skip data per sub-block (core/word-blocks.ts, index format 3). */
export function blockWordPosting(p: WordPosting, maxBytes: number = BLOCK_LIMITS.maxBlockBytes, sub: number = WORD_BLOCK.subBlockEntries): PostingBlock[] {
  const size = (j: number, prev: number) => varintBytes((p.items[j] as number) - prev) + varintBytes(p.tfs[j] as number) + varintBytes(p.lengths[j] as number);
  const table = (k: number) => (k % sub === 0 ? WORD_BLOCK.tableBytesMax : 0);
  return cut(p.items.length, p.items, size, maxBytes, WORD_BLOCK.headerBytesMax - 3, table).map(([s, e]) => ({
    first: p.items[s] as number,
    last: p.items[e - 1] as number,
    count: e - s,
    data: encodeWordBlock({ items: p.items.subarray(s, e), tfs: p.tfs.subarray(s, e), lengths: p.lengths.subarray(s, e) }, sub),
  }));
}

export function joinKeywordBlocks(blocks: readonly PostingBlock[]): Uint32Array {
  const parts = blocks.map((b) => decodeKeywordPosting(b.data));
  const out = new Uint32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * I_ret(q) straight from the keyword postings' blocks: unionPostings over
 * their joined lists, the same ordinals, but where it would mark a bitmap the
 * blocks' varints are decoded into the bitmap itself, with no list decoded
 * and copied first (a common query at a million items: a dozen keyword
 * lists, ~90k entries). The blocks' first, last and count give the bitmap's
 * size; a block they do not describe (an entry past `last`, another count,
 * bytes left over) takes the joined path, which decodes (and refuses) it as
 * it always has.
 */
export function unionKeywordBlocks(postings: readonly (readonly PostingBlock[])[]): Uint32Array {
  let size = 0;
  let max = 0;
  let lists = 0;
  for (const blocks of postings) {
    if (blocks.length > 0) lists++;
    for (const b of blocks) {
      size += b.count;
      if (b.last > max) max = b.last;
    }
  }
  const bits = unionFitsBitmap(lists, size, max) ? markKeywordBlocks(postings, max) : null;
  return bits ? bitmapOrdinals(bits, size) : unionPostings(postings.map(joinKeywordBlocks));
}

/** A bitmap over [0, max] of the blocks' entries; null where a block is not as its first, last and count say. */
function markKeywordBlocks(postings: readonly (readonly PostingBlock[])[], max: number): Int32Array | null {
  // The bitmap's size rests on the blocks' counts: each is checked against the count its bytes start with first.
  for (const blocks of postings) for (const b of blocks) if (new ByteReader(b.data).uint() !== b.count) return null;
  const bits = new Int32Array((max >>> 5) + 1);
  for (const blocks of postings) {
    for (const b of blocks) {
      const bytes = b.data;
      const r = new ByteReader(bytes);
      r.uint();
      let at = r.pos;
      let x = 0;
      for (let j = 0; j < b.count; j++) {
        // One-byte deltas read in place, longer ones by r (as decodeKeywordPosting reads them).
        let delta = bytes[at] as number;
        if (delta < 0x80) at++;
        else {
          if (at >= bytes.length) return null;
          r.pos = at;
          delta = r.uint();
          at = r.pos;
        }
        x += delta;
        if (x > b.last) return null;
        bits[x >>> 5] = (bits[x >>> 5] as number) | (1 << (x & 31));
      }
      if (at !== bytes.length) return null;
    }
  }
  return bits;
}

/** The word posting of the given blocks (all of a list's, or the ones that hold candidates), with the list's df. */
export function joinWordBlocks(blocks: readonly PostingBlock[], df?: number): WordPosting {
  return concatWordPostings(
    blocks.map((b) => decodeWordBlock(b.data)),
    df,
  );
}

/** Consecutive pieces of one word posting (ascending, disjoint) as one posting, with the list's df (default: their length). */
export function concatWordPostings(parts: readonly WordPosting[], df?: number): WordPosting {
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
  return { items, tfs, lengths, df: df ?? n };
}

export const postingCount = (blocks: readonly PostingBlock[]) => blocks.reduce((s, b) => s + b.count, 0);

/** The blocks whose [first, last] holds at least one of the (ascending) candidates: the only ones scoring must read. */
export function blocksHolding(blocks: readonly PostingBlock[], candidates: Uint32Array): PostingBlock[] {
  return blocks.filter((b) => {
    const j = lowerBound(candidates, b.first);
    return j < candidates.length && (candidates[j] as number) <= b.last;
  });
}

/** One posting's blocks as one byte string (what the KV cache stores): varint count, then first, last, n, length, bytes per block. */
export function packBlocks(blocks: readonly PostingBlock[]): Uint8Array {
  const w = new ByteWriter(16);
  w.uint(blocks.length);
  for (const b of blocks) {
    w.uint(b.first);
    w.uint(b.last);
    w.uint(b.count);
    w.uint(b.data.length);
  }
  const head = w.finish();
  const out = new Uint8Array(head.length + blocks.reduce((s, b) => s + b.data.length, 0));
  out.set(head);
  let at = head.length;
  for (const b of blocks) {
    out.set(b.data, at);
    at += b.data.length;
  }
  return out;
}

export function unpackBlocks(bytes: Uint8Array): PostingBlock[] {
  const r = new ByteReader(bytes);
  const n = r.uint();
  const heads: Array<[number, number, number, number]> = [];
  for (let j = 0; j < n; j++) heads.push([r.uint(), r.uint(), r.uint(), r.uint()]);
  let at = r.pos;
  const out: PostingBlock[] = [];
  for (const [first, last, count, len] of heads) {
    if (at + len > bytes.length) throw new RangeError("truncated block list");
    out.push({ first, last, count, data: bytes.subarray(at, at + len) });
    at += len;
  }
  if (at !== bytes.length) throw new RangeError("trailing bytes in block list");
  return out;
}

/**
 * A plan's postings from their blocks, as executeQuery takes them. Keyword
 * postings are decoded whole (their union is I_ret(q)); of each word posting
 * only the blocks whose [first, last] holds a candidate are decoded, with the
 * word's df from the block counts, so BM25 is exactly the full posting's.
 * When a page wants more than I_ret(q) holds (the related tail, core/retrieve.ts),
 * the word postings are decoded whole.
 */
export function postingsFromBlocks(
  plan: QueryPlan,
  blocks: ReadonlyMap<string, readonly PostingBlock[]>,
  want = 0,
  filter?: (item: number) => boolean,
): FetchedPostings {
  const keywords = new Map<string, Uint32Array>();
  for (const k of plan.keywords) {
    const b = blocks.get(keywordKey(k));
    if (b) keywords.set(k, joinKeywordBlocks(b));
  }
  // Filtered (core/filters.ts), the page reaches the related tail sooner: the word postings must then be whole.
  const candidates = filter ? filterOrdinals(unionPostings(keywords.values()), filter) : unionPostings(keywords.values());
  return { keywords, words: wordPostingsFromBlocks(plan, blocks, candidates, want) };
}

/** The plan's word postings for (sorted) candidates: whole when the page wants more than they hold, else the blocks holding one. */
export function wordPostingsFromBlocks(
  plan: QueryPlan,
  blocks: ReadonlyMap<string, readonly PostingBlock[]>,
  candidates: Uint32Array,
  want: number,
): Map<string, WordPosting> {
  const words = new Map<string, WordPosting>();
  for (const w of plan.words) {
    const b = blocks.get(wordKey(w));
    if (b) words.set(w, want > candidates.length ? joinWordBlocks(b) : joinWordBlocks(blocksHolding(b, candidates), postingCount(b)));
  }
  return words;
}
