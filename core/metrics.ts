/**
 * Retrieval metrics as the paper reports them (Table 2, App. C): P, R, F1
 * over the full retrieved set (eq. 2.1) and MRR, NDCG (binary gains), P, R, F1
 * at cutoffs, macro-averaged over the queries that have at least one relevant
 * item in the universe.
 */
export const METRIC_CUTOFFS = [10, 100, 1000] as const;
export type Cutoff = (typeof METRIC_CUTOFFS)[number];

/** F1 from counts: 2·tp / (|ret| + |rel|), which equals 2PR/(P+R) and is 0 when either is empty. */
export function f1FromCounts(tp: number, nRet: number, nRel: number): number {
  const d = nRet + nRel;
  return d === 0 ? 0 : (2 * tp) / d;
}

export interface AtK {
  mrr: number;
  ndcg: number;
  p: number;
  r: number;
  f1: number;
}

export interface QueryMetrics {
  p: number;
  r: number;
  f1: number;
  at: Record<Cutoff, AtK>;
}

/**
 * @param ranked    item ordinals in rank order (at least the first max(cutoff) and the retrieved set)
 * @param retrieved how many of `ranked`, from the top, form the retrieved set
 * @param relevant  rel(q)
 */
export function queryMetrics(ranked: ArrayLike<number>, retrieved: number, relevant: ReadonlySet<number>): QueryMetrics {
  if (retrieved > ranked.length) throw new RangeError("retrieved exceeds the ranking's length");
  const nRel = relevant.size;
  const scan = Math.min(ranked.length, Math.max(retrieved, ...METRIC_CUTOFFS));
  const marks = new Set<number>([retrieved, ...METRIC_CUTOFFS]);
  const prefix = new Map<number, { tp: number; dcg: number; first: number }>([[0, { tp: 0, dcg: 0, first: 0 }]]);
  let now = { tp: 0, dcg: 0, first: 0 };
  for (let j = 0; j < scan; j++) {
    if (relevant.has(ranked[j] as number)) {
      now = { tp: now.tp + 1, dcg: now.dcg + 1 / Math.log2(j + 2), first: now.first || j + 1 };
    }
    if (marks.has(j + 1)) prefix.set(j + 1, now);
  }
  // Past the end of the ranking nothing more is found: the prefix stays as it ended.
  const upTo = (k: number) => prefix.get(k) ?? now;
  const at = {} as Record<Cutoff, AtK>;
  for (const k of METRIC_CUTOFFS) {
    const s = upTo(k);
    let idcg = 0;
    for (let j = 0; j < Math.min(k, nRel); j++) idcg += 1 / Math.log2(j + 2);
    const p = s.tp / k;
    const r = nRel === 0 ? 0 : s.tp / nRel;
    at[k] = { mrr: s.first > 0 ? 1 / s.first : 0, ndcg: idcg === 0 ? 0 : s.dcg / idcg, p, r, f1: f1FromCounts(s.tp, k, nRel) };
  }
  const tp = upTo(retrieved).tp;
  return { p: retrieved === 0 ? 0 : tp / retrieved, r: nRel === 0 ? 0 : tp / nRel, f1: f1FromCounts(tp, retrieved, nRel), at };
}

export interface MetricSummary {
  /** Queries averaged over. */
  queries: number;
  /** Queries left out because no relevant item is in the universe. */
  leftOut: number;
  p: number;
  r: number;
  f1: number;
  at: Record<Cutoff, AtK>;
}

/** The paper's Table 2 columns, in its order. */
export const TABLE2_COLUMNS = ["mrr@100", "ndcg@100", "p@100", "r@100", "f1@100", "p", "r", "f1"] as const;

export function table2Row(s: MetricSummary): Record<(typeof TABLE2_COLUMNS)[number], number> {
  return { "mrr@100": s.at[100].mrr, "ndcg@100": s.at[100].ndcg, "p@100": s.at[100].p, "r@100": s.at[100].r, "f1@100": s.at[100].f1, p: s.p, r: s.r, f1: s.f1 };
}

export function macroAverage(perQuery: readonly QueryMetrics[], leftOut: number): MetricSummary {
  const n = perQuery.length;
  const mean = (f: (m: QueryMetrics) => number) => (n === 0 ? 0 : perQuery.reduce((s, m) => s + f(m), 0) / n);
  const at = {} as Record<Cutoff, AtK>;
  for (const k of METRIC_CUTOFFS) {
    at[k] = {
      mrr: mean((m) => m.at[k].mrr),
      ndcg: mean((m) => m.at[k].ndcg),
      p: mean((m) => m.at[k].p),
      r: mean((m) => m.at[k].r),
      f1: mean((m) => m.at[k].f1),
    };
  }
  return { queries: n, leftOut, p: mean((m) => m.p), r: mean((m) => m.r), f1: mean((m) => m.f1), at };
}

/**
 * The paper's baseline protocol (§4.1): sweep the retrieval cutoff on the
 * training queries and keep the one with the best macro F1. Returns the
 * smallest best cutoff in 1..maxCutoff.
 */
export function bestCutoff(runs: ReadonlyArray<{ ranked: ArrayLike<number>; relevant: ReadonlySet<number> }>, maxCutoff: number): number {
  const sums = new Float64Array(maxCutoff + 1);
  for (const { ranked, relevant } of runs) {
    let tp = 0;
    const nRel = relevant.size;
    for (let k = 1; k <= maxCutoff; k++) {
      if (k <= ranked.length && relevant.has(ranked[k - 1] as number)) tp++;
      sums[k] = (sums[k] as number) + f1FromCounts(tp, Math.min(k, ranked.length), nRel);
    }
  }
  let best = 1;
  for (let k = 2; k <= maxCutoff; k++) if ((sums[k] as number) > (sums[best] as number)) best = k;
  return best;
}
