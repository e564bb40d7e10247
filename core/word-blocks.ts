/**
 * The word block format (index format 3): a word posting block whose header
 * carries block-max skip data, as Lucene's block-max WAND and PISA keep it.
 *
 *   0x00                 marker: a format-2 block starts with its entry count (≥ 1)
 *   varint n             entries
 *   varint m             entries per sub-block (WORD_BLOCK.subBlockEntries; the last holds the rest):
 *                        S = ⌈n / m⌉ sub-blocks
 *   S × (varint last − previous sub-block's last (the first from 0), varint bytes,
 *        varint p, p × (varint tf, varint item length))   the sub-block's frontier
 * (tf, length) frontier, which must be read as the sub-block's skip data:
 *   n × (delta ordinal, tf, item length)   the format-2 entry stream, unchanged
 *
 * A sub-block's frontier is its entries' Pareto front of (tf, item length):
 * those no other entry beats on both (higher or equal tf and shorter or equal
 * length), at most WORD_BLOCK.frontierMax of them (past that, neighbours are
 * merged into a point that dominates both). termScore grows with tf and
 * shrinks with the length (core/bm25.ts), so the largest termScore over the
 * frontier bounds every entry's BM25 term exactly, for any k1 ≥ 0, b ∈ [0, 1]
 * and avgdl, where one (max tf, min length) point would pair the largest tf
 * of a long bag with the shortest bag's length and bound loosely. core/topk.ts
 * leaves a sub-block unscored, and undecoded, when that bound cannot reach the page. Its entries
 * decode alone: the stream's first delta is from the previous sub-block's
 * last ordinal, which the table holds. Format-2 blocks still decode; they
 * have no bounds (their items are always scored).
 */
import { decodeWordPosting, encodeWordPosting, type WordPosting } from "./postings.js";
import { ByteReader, ByteWriter } from "./varint.js";

export const WORD_BLOCK = {
  /** Entries per sub-block: the bound's granularity (Lucene and PISA use 128). */
  subBlockEntries: 128,
  /** The format-3 marker byte. */
  marker: 0,
  /** Header bytes a block may need besides its sub-block table: the marker, n and m. */
  headerBytesMax: 9,
  /** Frontier points a sub-block keeps at most. */
  frontierMax: 8,
  /** Table bytes per sub-block at most: last, bytes, p, and frontierMax (tf, length) pairs. */
  tableBytesMax: 9 + 8 * 10,
} as const;

/** A word block's skip data: per sub-block, the ordinal range it covers, (previous last, last], where its entries start, and its term bound's inputs. */
export interface SubBlocks {
  readonly count: number;
  /** Entries before each sub-block (its index in the block), and n at [count]. */
  readonly starts: Uint32Array;
  /** The last ordinal of each sub-block. */
  readonly lasts: Uint32Array;
  /** Byte offset of each sub-block's entries in the block. */
  readonly offsets: Uint32Array;
  /** Sub-block s's frontier points are [frontierStarts[s], frontierStarts[s + 1]) of the two arrays below. */
  readonly frontierStarts: Uint32Array;
  readonly frontierTfs: Uint32Array;
  readonly frontierLengths: Uint32Array;
}

/** The (tf, length) Pareto front of entries [from, to): tf descending, length descending, at most frontierMax points. */
export function frontierOf(tfs: ArrayLike<number>, lengths: ArrayLike<number>, from: number, to: number): Array<[number, number]> {
  const order = Array.from({ length: to - from }, (_, j) => from + j).sort(
    (a, b) => (tfs[b] as number) - (tfs[a] as number) || (lengths[a] as number) - (lengths[b] as number),
  );
  const out: Array<[number, number]> = [];
  for (const j of order) {
    const len = lengths[j] as number;
    if (out.length === 0 || len < (out[out.length - 1] as [number, number])[1]) out.push([tfs[j] as number, len]);
  }
  // Over budget: the two lowest-tf points become one that dominates both (the higher tf, the shorter length).
  while (out.length > WORD_BLOCK.frontierMax) {
    const b = out.pop() as [number, number];
    const a = out.pop() as [number, number];
    out.push([a[0], b[1]]);
  }
  return out;
}

const varintBytes = (v: number) => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5);

/** A format-3 word block of a (non-empty) slice of a word posting. */
export function encodeWordBlock(p: WordPosting, sub: number = WORD_BLOCK.subBlockEntries): Uint8Array {
  const body = encodeWordPosting(p); // varint n, then the entry stream
  const n = p.items.length;
  const nBytes = varintBytes(n);
  const subs = Math.ceil(n / sub);
  const w = new ByteWriter(32 + subs * 8);
  w.uint(WORD_BLOCK.marker);
  w.uint(n);
  w.uint(sub);
  let prevLast = 0;
  for (let s = 0; s < subs; s++) {
    const from = s * sub;
    const to = Math.min(n, from + sub);
    let bytes = 0;
    for (let j = from; j < to; j++) {
      bytes +=
        varintBytes((p.items[j] as number) - (j === 0 ? 0 : (p.items[j - 1] as number))) +
        varintBytes(p.tfs[j] as number) +
        varintBytes(p.lengths[j] as number);
    }
    const last = p.items[to - 1] as number;
    w.uint(last - prevLast);
    w.uint(bytes);
    const front = frontierOf(p.tfs, p.lengths, from, to);
    w.uint(front.length);
    for (const [tf, len] of front) {
      w.uint(tf);
      w.uint(len);
    }
    prevLast = last;
  }
  const head = w.finish();
  const out = new Uint8Array(head.length + body.length - nBytes);
  out.set(head);
  out.set(body.subarray(nBytes), head.length);
  return out;
}

export const isBoundedWordBlock = (data: Uint8Array) => data[0] === WORD_BLOCK.marker;

/** A format-3 block's skip data (its header only; no entry is decoded). */
export function wordSubBlocks(data: Uint8Array): SubBlocks {
  const r = new ByteReader(data);
  if (r.uint() !== WORD_BLOCK.marker) throw new RangeError("not a format-3 word block");
  const n = r.uint();
  const sub = r.uint();
  if (sub < 1) throw new RangeError("a word block's sub-blocks must hold at least one entry");
  const count = Math.ceil(n / sub);
  const starts = new Uint32Array(count + 1);
  const lasts = new Uint32Array(count);
  const offsets = new Uint32Array(count);
  const frontierStarts = new Uint32Array(count + 1);
  const tfs: number[] = [];
  const lengths: number[] = [];
  const bytes = new Uint32Array(count);
  let last = 0;
  for (let s = 0; s < count; s++) {
    last += r.uint();
    lasts[s] = last;
    bytes[s] = r.uint();
    const points = r.uint();
    for (let q = 0; q < points; q++) {
      tfs.push(r.uint());
      lengths.push(r.uint());
    }
    frontierStarts[s + 1] = tfs.length;
  }
  let at = r.pos;
  for (let s = 0; s < count; s++) {
    offsets[s] = at;
    at += bytes[s] as number;
    starts[s + 1] = Math.min(n, (s + 1) * sub);
  }
  if (at !== data.length) throw new RangeError("word block's sub-block sizes do not add up");
  return { count, starts, lasts, offsets, frontierStarts, frontierTfs: Uint32Array.from(tfs), frontierLengths: Uint32Array.from(lengths) };
}

/** n entries from the reader's position, the first delta from `prev`. */
function decodeEntries(r: ByteReader, n: number, prev: number): WordPosting {
  const items = new Uint32Array(n);
  const tfs = new Uint32Array(n);
  const lengths = new Uint32Array(n);
  const bytes = r.bytes;
  let item = prev;
  // One-byte values (most deltas, tfs and lengths) are read in place; longer ones by r.
  let at = r.pos;
  for (let j = 0; j < n; j++) {
    let v = bytes[at] as number;
    if (v < 0x80) at++;
    else {
      r.pos = at;
      v = r.uint();
      at = r.pos;
    }
    item += v;
    items[j] = item;
    v = bytes[at] as number;
    if (v < 0x80) at++;
    else {
      r.pos = at;
      v = r.uint();
      at = r.pos;
    }
    tfs[j] = v;
    v = bytes[at] as number;
    if (v < 0x80) at++;
    else {
      r.pos = at;
      v = r.uint();
      at = r.pos;
    }
    lengths[j] = v;
  }
  r.pos = at;
  return { items, tfs, lengths };
}

/** Sub-block s's entries, decoded alone. */
export function decodeSubBlock(data: Uint8Array, subs: SubBlocks, s: number): WordPosting {
  const r = new ByteReader(data);
  r.pos = subs.offsets[s] as number;
  const out = decodeEntries(r, (subs.starts[s + 1] as number) - (subs.starts[s] as number), s === 0 ? 0 : (subs.lasts[s - 1] as number));
  if (r.pos !== (s + 1 < subs.count ? subs.offsets[s + 1] : data.length)) throw new RangeError("a word sub-block's size is wrong");
  return out;
}

/**
 * Where a word block's entry stream starts and how many entries it holds, for
 * either format: a format-3 header is stepped over, not read into a table.
 * The stream runs to the block's end as (delta ordinal, tf, item length).
 */
export function wordEntries(data: Uint8Array): { readonly count: number; readonly offset: number } {
  const r = new ByteReader(data);
  if (!isBoundedWordBlock(data)) return { count: r.uint(), offset: r.pos };
  r.uint();
  const n = r.uint();
  const count = Math.ceil(n / Math.max(1, r.uint()));
  for (let s = 0; s < count; s++) {
    r.uint();
    r.uint();
    const points = r.uint();
    for (let q = 0; q < 2 * points; q++) r.uint();
  }
  return { count: n, offset: r.pos };
}

/** A word block of either format, decoded whole. */
export function decodeWordBlock(data: Uint8Array): WordPosting {
  if (!isBoundedWordBlock(data)) return decodeWordPosting(data);
  const { count, offset } = wordEntries(data);
  const r = new ByteReader(data);
  r.pos = offset;
  const out = decodeEntries(r, count, 0);
  if (!r.done) throw new RangeError("trailing bytes in word block");
  return out;
}
