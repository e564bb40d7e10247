/**
 * The evaluation harness: the round's keyword index (§2.1 retrieval, BM25
 * ranking, no cutoff) and the classical BM25 baseline (cutoff swept on the
 * training queries, §4.1), both scored with core's metrics.
 */
import { KeywordIndex } from "../core/inverted-index.js";
import { bestCutoff, METRIC_CUTOFFS, type MetricSummary, macroAverage, type QueryMetrics, queryMetrics } from "../core/metrics.js";
import { keywordWords, normalizeKeyword } from "../core/normalize.js";
import type { QueryGenerator } from "../core/query-generator.js";
import { planQuery } from "../core/retrieve.js";
import type { Product, Query } from "./data/types.js";

/** How deep a ranking the metrics read: the deepest @k cutoff, or I_ret(q) whole when it is longer. */
const METRIC_DEPTH = Math.max(...METRIC_CUTOFFS);

export interface EvalQuery {
  readonly text: string;
  /** Relevant item ordinals in the index. */
  readonly relevant: ReadonlySet<number>;
  /**
   * Click supervision: the ordinals judged at all (relevant ones included). Absent: every item is judged. The
   * training rewards count only judged items as retrieved, so an unknown item costs a round nothing.
   */
  readonly judged?: ReadonlySet<number>;
  /** What an unjudged retrieved item weighs in |I_ret| for the rewards (0: missing, 1: irrelevant). */
  readonly unjudgedWeight?: number;
}

/** Maps queries' relevant product ids to index ordinals; queries without any are left out (and counted). */
export function toEvalQueries(
  queries: readonly Query[],
  relevant: ReadonlyMap<string, ReadonlySet<string>>,
  index: Pick<KeywordIndex, "ids">,
  judged?: ReadonlyMap<string, ReadonlySet<string>>,
  unjudgedWeight = 0,
): { queries: EvalQuery[]; leftOut: number } {
  const ordinal = new Map(index.ids.map((id, j) => [id, j]));
  const out: EvalQuery[] = [];
  let leftOut = 0;
  for (const q of queries) {
    const rel = new Set<number>();
    for (const id of relevant.get(q.id) ?? []) {
      const o = ordinal.get(id);
      if (o !== undefined) rel.add(o);
    }
    const j = judged?.get(q.id);
    if (rel.size === 0) leftOut++;
    else if (j) out.push({ text: q.text, relevant: rel, judged: new Set([...j].map((id) => ordinal.get(id)).filter((o) => o !== undefined)), unjudgedWeight });
    else out.push({ text: q.text, relevant: rel });
  }
  return { queries: out, leftOut };
}

export interface EvalOptions {
  /** Rank the related tail past I_ret(q) (default true). */
  readonly related?: boolean;
  /** The generator's spelling correction (core/query-generator.ts loadQueryCorrector): its words weigh as typed ones, as the worker plans them. */
  readonly correct?: (query: string) => { readonly text: string } | null;
}

/**
 * The keyword index: I_ret(q) is the retrieved set (P/R/F1), ranked by BM25;
 * the ranking the @k columns read continues past it with the related tail
 * (core/retrieve.ts), as serving pages do and as the BM25 baseline's ranking
 * continues past its cutoff. `related: false` scores I_ret(q) alone.
 */
export function evaluateKeywords(
  index: KeywordIndex,
  generate: QueryGenerator,
  queries: readonly EvalQuery[],
  leftOut: number,
  opts: EvalOptions = {},
): MetricSummary {
  return macroAverage(perQueryMetrics(index, generate, queries, opts), leftOut);
}

/** evaluateKeywords' metrics of each query, before averaging. */
export function perQueryMetrics(index: KeywordIndex, generate: QueryGenerator, queries: readonly EvalQuery[], opts: EvalOptions = {}): QueryMetrics[] {
  return queries.map((q) => {
    const plan = planQuery(generate(q.text), q.text, index.queryTerms, opts.correct?.(q.text)?.text);
    // I_ret(q) whole (P/R/F1), and at least METRIC_DEPTH ranks for the @k columns.
    const total = index.search(plan, { limit: 0 }).total;
    const page = index.search(plan, { related: opts.related ?? true, limit: Math.max(total, METRIC_DEPTH) });
    const ranked = page.hits.map((h) => h.item);
    return queryMetrics(ranked, page.total, q.relevant);
  });
}

export function productText(p: Product): string {
  return [p.name, p.class, p.category, p.description, ...p.features.map(([, v]) => v)].join(" ");
}

/** BM25 over the item text: every word is a keyword (so retrieval is an OR of the query words) and the bag is the text. */
export function buildTextIndex(products: readonly Product[]): KeywordIndex {
  return KeywordIndex.build(
    products.map((p) => {
      const bag = keywordWords(normalizeKeyword(productText(p)));
      return { id: p.id, name: p.name, keywords: [...new Set(bag)], bag };
    }),
    { includeName: false },
  );
}

/** BM25's full ranking of each query's words over the text index (the cutoff is applied by the caller). */
export function bm25Runs(index: KeywordIndex, queries: readonly EvalQuery[]): Array<{ ranked: number[]; relevant: ReadonlySet<number> }> {
  return queries.map((q) => {
    const words = keywordWords(normalizeKeyword(q.text));
    const page = index.search(planQuery(words, ""));
    return { ranked: page.hits.map((h) => h.item), relevant: q.relevant };
  });
}

export interface Bm25Result {
  readonly summary: MetricSummary;
  readonly cutoff: number;
}

/** The paper's baseline protocol: the cutoff that maximises macro F1 on `tune`, applied to `evaluate`. */
export function evaluateBm25(index: KeywordIndex, tune: readonly EvalQuery[], evaluate: readonly EvalQuery[], leftOut: number): Bm25Result {
  const cutoff = bestCutoff(bm25Runs(index, tune), index.itemCount);
  const per = bm25Runs(index, evaluate).map(({ ranked, relevant }) => queryMetrics(ranked, Math.min(cutoff, ranked.length), relevant));
  return { summary: macroAverage(per, leftOut), cutoff };
}
