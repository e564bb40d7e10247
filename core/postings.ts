/**
 * The binary posting format stored in round artifacts, D1 and KV.
 *
 * Keyword posting:  varint n, then n delta-coded item ordinals (first delta from 0).
 * Word posting:     varint n, then n triples (delta ordinal, tf, item length).
 *
 * Word postings carry the item's bag length so BM25 needs nothing beyond the
 * postings of the query's words and the round's global statistics (N, avgdl):
 * serving never loads a per-item table, which keeps its memory bounded
 * whatever the catalogue size.
 */
import { ByteReader, ByteWriter } from "./varint.js";

export interface WordPosting {
  readonly items: Uint32Array;
  readonly tfs: Uint32Array;
  readonly lengths: Uint32Array;
  /** The word's df when the arrays hold only some of its blocks (core/blocks.ts); else items.length. */
  readonly df?: number;
}

function assertAscending(items: ArrayLike<number>): void {
  for (let j = 1; j < items.length; j++) {
    if ((items[j] as number) <= (items[j - 1] as number)) {
      throw new RangeError("posting items must be strictly ascending");
    }
  }
}

export function encodeKeywordPosting(items: ArrayLike<number>): Uint8Array {
  assertAscending(items);
  const w = new ByteWriter(items.length + 4);
  w.uint(items.length);
  let prev = 0;
  for (let j = 0; j < items.length; j++) {
    const item = items[j] as number;
    w.uint(item - prev);
    prev = item;
  }
  return w.finish();
}

export function decodeKeywordPosting(bytes: Uint8Array): Uint32Array {
  const r = new ByteReader(bytes);
  const n = r.uint();
  const out = new Uint32Array(n);
  let prev = 0;
  // A common query's keyword postings are most of I_ret(q)'s cost: one-byte deltas are read in place, longer ones by r.
  let at = r.pos;
  for (let j = 0; j < n; j++) {
    let delta = bytes[at] as number;
    if (delta < 0x80) at++;
    else {
      r.pos = at;
      delta = r.uint();
      at = r.pos;
    }
    prev += delta;
    out[j] = prev;
  }
  if (at < bytes.length) throw new RangeError("trailing bytes in keyword posting");
  return out;
}

export function encodeWordPosting(p: WordPosting): Uint8Array {
  assertAscending(p.items);
  if (p.tfs.length !== p.items.length || p.lengths.length !== p.items.length) {
    throw new RangeError("word posting arrays differ in length");
  }
  const w = new ByteWriter(p.items.length * 3 + 4);
  w.uint(p.items.length);
  let prev = 0;
  for (let j = 0; j < p.items.length; j++) {
    const item = p.items[j] as number;
    w.uint(item - prev);
    w.uint(p.tfs[j] as number);
    w.uint(p.lengths[j] as number);
    prev = item;
  }
  return w.finish();
}

export function decodeWordPosting(bytes: Uint8Array): WordPosting {
  const r = new ByteReader(bytes);
  const n = r.uint();
  const items = new Uint32Array(n);
  const tfs = new Uint32Array(n);
  const lengths = new Uint32Array(n);
  let prev = 0;
  for (let j = 0; j < n; j++) {
    prev += r.uint();
    items[j] = prev;
    tfs[j] = r.uint();
    lengths[j] = r.uint();
  }
  if (!r.done) throw new RangeError("trailing bytes in word posting");
  return { items, tfs, lengths };
}
