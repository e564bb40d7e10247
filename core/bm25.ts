/**
 * Okapi BM25 with Lucene's idf, as the paper ranks retrieved items (§2.1).
 *
 *   idf(w)      = ln(1 + (N - df + 0.5) / (df + 0.5))
 *   score(w, i) = idf(w) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl))
 *
 * An item's score is the sum over the query's distinct words, summed in the
 * sorted order of those words so that every runtime adds the same floats in
 * the same order and gets bit-identical scores.
 */
export const BM25_DEFAULTS = { k1: 1.2, b: 0.75 } as const;

export interface Bm25Params {
  readonly k1: number;
  readonly b: number;
}

export function idf(totalItems: number, df: number): number {
  return Math.log(1 + (totalItems - df + 0.5) / (df + 0.5));
}

export function termScore(idfW: number, tf: number, length: number, avgLength: number, params: Bm25Params): number {
  const norm = params.k1 * (1 - params.b + (params.b * length) / avgLength);
  return (idfW * tf * (params.k1 + 1)) / (tf + norm);
}

export function validateBm25Params(p: Bm25Params): Bm25Params {
  if (!(Number.isFinite(p.k1) && p.k1 >= 0)) throw new RangeError(`k1 must be ≥ 0, got ${p.k1}`);
  if (!(Number.isFinite(p.b) && p.b >= 0 && p.b <= 1)) throw new RangeError(`b must be in [0, 1], got ${p.b}`);
  return p;
}
