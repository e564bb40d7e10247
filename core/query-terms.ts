/**
 * How a round weighs the words of a query in BM25 (issue: "desk for kids"
 * put 2.91 of the top score on "for"; "gray sofa" ranked as "sofa").
 *
 *   - Stop words carry no intent: they get no BM25 weight and no highlight,
 *     and a keyword made of stop words alone never retrieves. A longer
 *     keyword that holds one ("over the toilet storage") still matches whole.
 *   - The shopper's own words weigh more than the words the generator added:
 *     a word of the (corrected) query string counts `queryWordWeight` times
 *     in the sum, so "gray sofa" ranks the sofas that say "gray" first, while
 *     the generated keywords ("couch", "sectional") still widen I_ret(q).
 *
 *   score(i) = Σ_{w ∈ words(plan) \ stop} weight(w) · bm25(w, i),
 *   weight(w) = queryWordWeight if w is a word of q, else 1
 *
 * The terms are recorded in the round (the index header, then the serving
 * manifest), so the trainer, the evaluator and the worker plan a query
 * alike; a round recorded before them has none, and plans as it always did.
 */

export interface QueryTerms {
  /** Words that carry no intent, normalised, sorted. */
  readonly stopWords: readonly string[];
  /** The BM25 weight of a word the shopper typed (1 = every word alike). */
  readonly queryWordWeight: number;
}

export const NO_QUERY_TERMS: QueryTerms = { stopWords: [], queryWordWeight: 1 };

export const QUERY_TERMS_LIMITS = { maxStopWords: 2_000, maxQueryWordWeight: 16 } as const;

/** Whether terms change any plan (a round records them only then). */
export const hasQueryTerms = (t: QueryTerms | undefined): t is QueryTerms => t !== undefined && (t.stopWords.length > 0 || t.queryWordWeight !== 1);

const sets = new WeakMap<QueryTerms, ReadonlySet<string>>();
/** The stop words as a set, built once per terms object. */
export function stopWordSet(terms: QueryTerms): ReadonlySet<string> {
  let s = sets.get(terms);
  if (!s) {
    s = new Set(terms.stopWords);
    sets.set(terms, s);
  }
  return s;
}

/** Terms read from an artifact: a list of non-empty lowercase words and a weight in [1, maxQueryWordWeight]. */
export function validateQueryTerms(t: unknown): QueryTerms {
  const v = t as Partial<QueryTerms> | null;
  const words = v?.stopWords;
  const w = v?.queryWordWeight;
  if (
    !Array.isArray(words) ||
    words.length > QUERY_TERMS_LIMITS.maxStopWords ||
    words.some((x) => typeof x !== "string" || x === "" || /\s/.test(x) || x !== x.toLowerCase())
  ) {
    throw new RangeError(`invalid query terms: stopWords must be at most ${QUERY_TERMS_LIMITS.maxStopWords} lowercase words`);
  }
  if (typeof w !== "number" || !Number.isFinite(w) || w < 1 || w > QUERY_TERMS_LIMITS.maxQueryWordWeight) {
    throw new RangeError(`invalid query terms: queryWordWeight must be in [1, ${QUERY_TERMS_LIMITS.maxQueryWordWeight}], got ${String(w)}`);
  }
  return { stopWords: [...words].sort(), queryWordWeight: w };
}
