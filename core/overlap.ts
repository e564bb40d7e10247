/**
 * How much two rankings agree, for the workbench's compare and query-set
 * views: Jaccard of the top-k sets, rank-biased overlap (Webber, Moffat and
 * Zobel 2010, RBO_ext at depth k, persistence p), and each item's rank change.
 *
 *   A_d = |top_d(a) ∩ top_d(b)| / d
 *   RBO_ext@k = A_k · p^k + (1 − p)/p · Σ_{d=1..k} A_d · p^d
 *
 * RBO_ext is 1 for identical lists and 0 for disjoint ones, and weighs the top
 * ranks most (p = 0.9: the first 10 ranks carry about 86 % of the weight).
 */

export const OVERLAP_LIMITS = { rboPersistence: 0.9 } as const;

/** |top_k(a) ∩ top_k(b)| / |top_k(a) ∪ top_k(b)|; 1 when both are empty (nothing disagrees). */
export function jaccardAt<T>(a: readonly T[], b: readonly T[], k: number): number {
  const sa = new Set(a.slice(0, k));
  const sb = new Set(b.slice(0, k));
  let both = 0;
  for (const x of sa) if (sb.has(x)) both++;
  const union = sa.size + sb.size - both;
  return union === 0 ? 1 : both / union;
}

/**
 * RBO_ext at depth k; 1 when both are empty. Rankings that end before k are read to the longer one's end
 * (so two identical 30-item rankings agree fully at 100, rather than being charged for the 70 ranks neither has).
 */
export function rboAt<T>(a: readonly T[], b: readonly T[], depth: number, p: number = OVERLAP_LIMITS.rboPersistence): number {
  if (a.length === 0 && b.length === 0) return 1;
  const k = Math.min(depth, Math.max(a.length, b.length));
  const seenA = new Set<T>();
  const seenB = new Set<T>();
  let overlap = 0;
  let sum = 0;
  let agreement = 0;
  for (let d = 1; d <= k; d++) {
    const x = a[d - 1];
    const y = b[d - 1];
    if (x !== undefined) {
      if (seenB.has(x)) overlap++;
      seenA.add(x);
    }
    if (y !== undefined) {
      if (seenA.has(y)) overlap++;
      seenB.add(y);
    }
    // x === y was counted once above (added to seenA before y is checked).
    agreement = overlap / d;
    sum += agreement * p ** d;
  }
  return agreement * p ** k + ((1 - p) / p) * sum;
}

export type RankChange = { kind: "up" | "down" | "same"; by: number } | { kind: "new" } | { kind: "gone" };

/** An item's move from rank `before` (the right side) to `after` (the left): ↑ when it rose. null: not in that list. */
export function rankChange(after: number | null, before: number | null): RankChange {
  if (after === null && before === null) throw new RangeError("an item in neither list has no rank change");
  if (before === null) return { kind: "new" };
  if (after === null) return { kind: "gone" };
  const by = before - after;
  return by === 0 ? { kind: "same", by: 0 } : by > 0 ? { kind: "up", by } : { kind: "down", by: -by };
}

/**
 * NDCG@k with binary gains over item ids, as core/metrics.ts's queryMetrics
 * computes it over ordinals: DCG = Σ_{j<k, ranked[j] relevant} 1/log2(j + 2),
 * over the ideal DCG of min(k, |rel|) relevant items; 0 when nothing is relevant.
 */
export function ndcgAt<T>(ranked: readonly T[], relevant: ReadonlySet<T>, k: number): number {
  let dcg = 0;
  for (let j = 0; j < Math.min(k, ranked.length); j++) if (relevant.has(ranked[j] as T)) dcg += 1 / Math.log2(j + 2);
  let idcg = 0;
  for (let j = 0; j < Math.min(k, relevant.size); j++) idcg += 1 / Math.log2(j + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}
