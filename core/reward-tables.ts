/**
 * App. B.3's cached state for the item reward (eq. 2.3), as flat tables:
 * the frozen query index (keyword → queries), each item's reference keywords
 * that index can match, the queries each item is relevant to, the judged items
 * per query, and the reference counts n_ret, n_tp, n_rel per query.
 *
 * Why tables: at a million items the same state as maps and sets (a Set of
 * queries per relevant item, a string array per item) was ~1.5 GB of heap, and
 * every data-parallel GRPO worker built its own. As typed arrays it is tens of
 * megabytes, built once; allocated on SharedArrayBuffers (`alloc`), the
 * workers all read one copy. Keywords no query set holds are left out: they
 * match no query, so they change no reward.
 */

import { f1FromCounts } from "./metrics.js";

export interface ItemRewardTables {
  /** The frozen query index's keywords; a keyword's id is its position. */
  readonly keywords: readonly string[];
  /** Keyword k's queries, ascending: postingQueries[postingStart[k] .. postingStart[k + 1]). */
  readonly postingStart: Int32Array;
  readonly postingQueries: Int32Array;
  /** Item i's reference keywords (S_i ∪ {i}) the index holds, as keyword ids in set order: itemKeywords[itemStart[i] .. itemStart[i + 1]). */
  readonly itemStart: Int32Array;
  readonly itemKeywords: Int32Array;
  /** Item i's name ({i}) as a keyword id, −1 when no query set holds it. */
  readonly names: Int32Array;
  /** The queries item i is relevant to: relQueries[relStart[i] .. relStart[i + 1]). */
  readonly relStart: Int32Array;
  readonly relQueries: Int32Array;
  /** Query q's judged items, ascending, judgedItems[judgedStart[q] .. judgedStart[q + 1]); judgedAll[q] = 1: every item is judged. */
  readonly judgedStart: Int32Array;
  readonly judgedItems: Int32Array;
  readonly judgedAll: Uint8Array;
  /** What an unjudged item weighs in n_ret (click supervision; 0: missing). */
  readonly unjudgedWeight: number;
  /** Reference counts per query: n_ret (fractional with click supervision), n_tp, n_rel. */
  readonly nRet: Float64Array;
  readonly nTp: Int32Array;
  readonly nRel: Int32Array;
}

/** What the tables are made from; the item sets come one item at a time (`setOf`), never all at once. */
export interface ItemRewardSource {
  /** Normalised item names ({i}); their number is the number of items. */
  readonly itemNames: readonly string[];
  /** Frozen S_q ∪ {q} per query ordinal (the queries of Q: training queries), normalised. */
  readonly querySets: ReadonlyArray<readonly string[]>;
  /** rel(q) per query ordinal, as item ordinals. */
  readonly relevant: ReadonlyArray<ReadonlySet<number>>;
  /**
   * Click supervision: per query ordinal, the items judged (undefined: all). An unjudged item is not known to be
   * irrelevant: it counts `unjudgedWeight` (default 0: missing) in that query's n_ret, a judged one 1.
   */
  readonly judged?: ReadonlyArray<ReadonlySet<number> | undefined>;
  readonly unjudgedWeight?: number;
}

/** Where the tables' bytes live: an ArrayBuffer by default, a SharedArrayBuffer to share them between threads. */
export type TableAlloc = (bytes: number) => ArrayBufferLike;
const plain: TableAlloc = (bytes) => new ArrayBuffer(bytes);

/** An Int32Array that grows by doubling, for lists whose length is known only at the end. */
class IntList {
  private a = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.length++] = v;
  }
  to(alloc: TableAlloc): Int32Array {
    const out = new Int32Array(alloc(this.length * 4));
    out.set(this.a.subarray(0, this.length));
    return out;
  }
}

function int32(alloc: TableAlloc, n: number): Int32Array {
  return new Int32Array(alloc(n * 4));
}

/** Lists of ints by owner (CSR), owners 0 .. n − 1 in turn: `each(owner, push)` pushes the owner's values. */
function csr(alloc: TableAlloc, n: number, each: (owner: number, push: (v: number) => void) => void): { start: Int32Array; values: Int32Array } {
  const start = int32(alloc, n + 1);
  const values = new IntList();
  const push = (v: number) => values.push(v);
  for (let o = 0; o < n; o++) {
    each(o, push);
    start[o + 1] = values.length;
  }
  return { start, values: values.to(alloc) };
}

/** The queries an item's keyword ids match, deduplicated through `mark` (set to `epoch`), in keyword then query order. */
export function queriesOf(t: ItemRewardTables, keywordIds: Iterable<number>, mark: Int32Array, epoch: number, out: number[]): number[] {
  out.length = 0;
  for (const k of keywordIds) {
    const [a, b] = [t.postingStart[k] as number, t.postingStart[k + 1] as number];
    for (let p = a; p < b; p++) {
      const q = t.postingQueries[p] as number;
      if (mark[q] !== epoch) {
        mark[q] = epoch;
        out.push(q);
      }
    }
  }
  return out;
}

/** Whether sorted `values[a .. b)` holds `v`. */
function holds(values: Int32Array, a: number, b: number, v: number): boolean {
  let [lo, hi] = [a, b];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = values[mid] as number;
    if (x === v) return true;
    if (x < v) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/** What item i weighs in query q's n_ret: 1 when judged (or every item is), else the unjudged weight. */
export function weightOf(t: ItemRewardTables, q: number, item: number): number {
  if (t.judgedAll[q] === 1) return 1;
  return holds(t.judgedItems, t.judgedStart[q] as number, t.judgedStart[q + 1] as number, item) ? 1 : t.unjudgedWeight;
}

/** Whether item i is relevant to query q. */
export function isRelevant(t: ItemRewardTables, item: number, q: number): boolean {
  return holds(t.relQueries, t.relStart[item] as number, t.relStart[item + 1] as number, q);
}

/**
 * Builds the tables. Retrieval runs once for every item's reference set (the
 * construction step of App. B.3), filling n_ret and n_tp.
 */
export function itemRewardTables(source: ItemRewardSource, setOf: (item: number) => readonly string[], alloc: TableAlloc = plain): ItemRewardTables {
  const nQ = source.querySets.length;
  const nItems = source.itemNames.length;
  const id = new Map<string, number>();
  for (const set of source.querySets) for (const k of set) if (!id.has(k)) id.set(k, id.size);
  const keywords = [...id.keys()];
  // Postings in query order, one entry per (keyword, query) as postingsOf makes them.
  const byKeyword: number[][] = keywords.map(() => []);
  source.querySets.forEach((set, q) => {
    for (const k of set) {
      const l = byKeyword[id.get(k) as number] as number[];
      if (l[l.length - 1] !== q) l.push(q);
    }
  });
  const postings = csr(alloc, keywords.length, (k, push) => {
    for (const q of byKeyword[k] as number[]) push(q);
  });
  const items = csr(alloc, nItems, (i, push) => {
    for (const k of setOf(i)) {
      const kid = id.get(k);
      if (kid !== undefined) push(kid);
    }
  });
  const names = int32(alloc, nItems);
  source.itemNames.forEach((n, i) => {
    names[i] = n === "" ? -1 : (id.get(n) ?? -1); // no name: nothing added to a candidate
  });
  // Relevance by item: count, then fill in query order, so each item's queries come out ascending.
  const relStart = int32(alloc, nItems + 1);
  source.relevant.forEach((rel) => {
    for (const i of rel) if (i < nItems) relStart[i + 1] = (relStart[i + 1] as number) + 1;
  });
  for (let i = 0; i < nItems; i++) relStart[i + 1] = (relStart[i + 1] as number) + (relStart[i] as number);
  const relQueries = int32(alloc, relStart[nItems] as number);
  const fill = relStart.slice(0, nItems);
  source.relevant.forEach((rel, q) => {
    for (const i of rel) if (i < nItems) relQueries[(fill[i] as number)++] = q;
  });
  const judgedAll = new Uint8Array(alloc(nQ));
  const judged = csr(alloc, nQ, (q, push) => {
    const j = source.judged?.[q];
    if (j === undefined) judgedAll[q] = 1;
    else for (const i of Int32Array.from(j).sort()) push(i);
  });
  const nRel = int32(alloc, nQ);
  source.relevant.forEach((rel, q) => {
    nRel[q] = rel.size;
  });
  const t: ItemRewardTables = {
    keywords,
    postingStart: postings.start,
    postingQueries: postings.values,
    itemStart: items.start,
    itemKeywords: items.values,
    names,
    relStart,
    relQueries,
    judgedStart: judged.start,
    judgedItems: judged.values,
    judgedAll,
    unjudgedWeight: source.unjudgedWeight ?? 0,
    nRet: new Float64Array(alloc(nQ * 8)),
    nTp: int32(alloc, nQ),
    nRel,
  };
  // n_ret and n_tp under the reference index: each item adds itself to the queries of Q_ref(i).
  const mark = new Int32Array(nQ);
  const matched: number[] = [];
  for (let i = 0; i < nItems; i++) {
    const own = t.itemKeywords.subarray(t.itemStart[i] as number, t.itemStart[i + 1] as number);
    for (const q of queriesOf(t, own, mark, i + 1, matched)) {
      t.nRet[q] = (t.nRet[q] as number) + weightOf(t, q, i);
      if (isRelevant(t, i, q)) t.nTp[q] = (t.nTp[q] as number) + 1;
    }
  }
  return t;
}

/** Σ_q F1_ref(q): R_old of eq. 2.3. */
export function referenceTotalOf(t: ItemRewardTables): number {
  let s = 0;
  for (let q = 0; q < t.nRet.length; q++) s += f1FromCounts(t.nTp[q] as number, t.nRet[q] as number, t.nRel[q] as number);
  return s;
}
