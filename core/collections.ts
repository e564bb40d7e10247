/** The map's value at `key`, created with `make` when absent. */
export function getOrInsert<K, V>(map: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/** The first index of an ascending list whose value is ≥ x (the list's length when none is). */
export function lowerBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index of x in an ascending list, or −1. */
export function indexOfSorted(sorted: ArrayLike<number>, x: number): number {
  const j = lowerBound(sorted, x);
  return j < sorted.length && sorted[j] === x ? j : -1;
}
