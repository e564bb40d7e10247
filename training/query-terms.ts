/**
 * The query terms new rounds record (core/query-terms.ts): English stop
 * words from the `stopword` package's list (function words: "for", "with",
 * "the", …), and the weight of the shopper's own words, chosen by
 * cross-validation on the training queries (see ROUND_QUERY_TERMS).
 */
import { eng } from "stopword";
import { normalizeKeyword } from "../core/normalize.js";
import { type QueryTerms, validateQueryTerms } from "../core/query-terms.js";

/** The library's list as normalised single words (its entries are lowercase already; normalising keeps the contract). */
export const STOP_WORDS: readonly string[] = [...new Set(eng.map(normalizeKeyword).filter((w) => w !== "" && !w.includes(" ")))].sort();

/**
 * What `npm run build-round` and `npm run train` record. The typed words'
 * weight was chosen among 1, 2 and 3 by NDCG@100 (as `--cv` chooses the ranker) on WANDS's training
 * queries (never dev), over round 0 and a trained round (README, "Stop words
 * and modifiers").
 */
export const ROUND_QUERY_TERMS: QueryTerms = validateQueryTerms({ stopWords: STOP_WORDS, queryWordWeight: 3 });
