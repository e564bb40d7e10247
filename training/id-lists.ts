/**
 * Integer ids for strings and lists of ids in CSR layout: what the bounded
 * vocabulary (training/vocabulary.ts) holds per unit instead of strings.
 */

/** Interns strings to dense ids, counting each. */
export class Counter {
  readonly ids = new Map<string, number>();
  readonly keys: string[] = [];
  counts = new Int32Array(1024);
  /** The string's id, counted once more. */
  add(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.keys.length;
      this.ids.set(s, id);
      this.keys.push(s);
      if (id >= this.counts.length) this.counts = grow(this.counts, id + 1);
    }
    this.counts[id] = (this.counts[id] as number) + 1;
    return id;
  }
  /** The n ids of highest count, ties by key. */
  head(n: number): number[] {
    const all = Array.from(this.keys, (_, id) => id);
    if (all.length <= n) return all;
    const key = this.keys;
    const c = this.counts;
    return all.sort((a, b) => (c[b] as number) - (c[a] as number) || ((key[a] as string) < (key[b] as string) ? -1 : 1)).slice(0, n);
  }
}

export function grow(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(Math.max(need, a.length * 2));
  out.set(a);
  return out;
}

/** Id lists in CSR layout: list u is ids[start[u] .. start[u + 1]). */
export class IdLists {
  ids = new Int32Array(4096);
  start = new Int32Array(1025);
  count = 0;
  private used = 0;
  push(list: Iterable<number>): void {
    for (const id of list) {
      if (this.used >= this.ids.length) this.ids = grow(this.ids, this.used + 1);
      this.ids[this.used++] = id;
    }
    if (this.count + 2 > this.start.length) this.start = grow(this.start, this.count + 2);
    this.start[++this.count] = this.used;
  }
}

/**
 * Consecutive slices of `ids` whose counts sum to at most `budget` each (a
 * slice holds at least one id): what a pass over the units may count at once.
 */
export function slicesByCount(ids: readonly number[], counts: Int32Array, budget: number): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  let sum = 0;
  for (const id of ids) {
    const c = counts[id] as number;
    if (cur.length > 0 && sum + c > budget) {
      out.push(cur);
      cur = [];
      sum = 0;
    }
    cur.push(id);
    sum += c;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}
