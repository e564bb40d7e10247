/**
 * The ranker inside I_ret(q): which words an item's BM25 bag holds.
 *
 * Retrieval is §2.1's and never changes here: an item is in I_ret(q) when its
 * keyword set shares a keyword with the query's, so P/R/F1 are the ranker's
 * to keep. Only the order moves. The paper ranks by BM25 over the keyword
 * bag (every word of S_i ∪ {i}, each keyword counted once); the item's text
 * (the fields the BM25 baseline indexes) is a second field. A ranker is a
 * BM25F over the two (Robertson et al. 2004): each field's term counts and
 * length scaled by an integer weight, which is the same as repeating the
 * field that many times in one bag.
 *
 *   tf'(w, i)  = Σ_f weight_f · tf_f(w, i)      len'(i) = Σ_f weight_f · len_f(i)
 *
 * So the ranker is baked into the round's word postings: the worker scores
 * them with the same BM25 as ever and serves the round's ranker without
 * knowing which it is. The round records it (the index header) for display
 * and for whoever rebuilds the round.
 */
import { keywordWords, normalizeKeyword } from "./normalize.js";

export interface RankerSpec {
  /** Repeats of the keyword bag (S_i ∪ {i}, one count per keyword's word). */
  readonly keywords: number;
  /** Repeats of the item's text (name, class, category, description, feature values). */
  readonly text: number;
}

export const RANKER_LIMITS = { maxWeight: 16 } as const;

/** The paper's ranker (§2.1): BM25 over the keyword bag alone. */
export const KEYWORD_RANKER: RankerSpec = { keywords: 1, text: 0 };
/** BM25 over the item's text alone, the baseline's scoring restricted to I_ret(q). */
export const TEXT_RANKER: RankerSpec = { keywords: 0, text: 1 };

/**
 * The rankers `npm run train -- --cv K` chooses among (training/cv.ts). A
 * WANDS text bag is about ten times an item's keyword bag, so the blends
 * weigh the keywords up to be heard at all.
 */
export const RANKER_CHOICES: readonly RankerSpec[] = [
  KEYWORD_RANKER,
  TEXT_RANKER,
  { keywords: 1, text: 1 },
  { keywords: 4, text: 1 },
  { keywords: 16, text: 1 },
];

export function rankerName(r: RankerSpec): string {
  if (r.keywords > 0 && r.text === 0) return r.keywords === 1 ? "keywords" : `keywords×${r.keywords}`;
  if (r.text > 0 && r.keywords === 0) return r.text === 1 ? "text" : `text×${r.text}`;
  return `blend ${r.keywords}:${r.text}`;
}

/** Parses "keywords", "text" or "blend K:T" (rankerName's spellings); throws RangeError otherwise. */
export function parseRanker(s: string): RankerSpec {
  if (s === "keywords") return KEYWORD_RANKER;
  if (s === "text") return TEXT_RANKER;
  const m = /^blend (\d+):(\d+)$/.exec(s);
  if (!m) throw new RangeError(`unknown ranker ${JSON.stringify(s)}: keywords, text or "blend K:T"`);
  return validateRanker({ keywords: Number(m[1]), text: Number(m[2]) });
}

/** A ranker read from an artifact: integer weights in [0, maxWeight], not both 0. */
export function validateRanker(r: unknown): RankerSpec {
  const ok = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= RANKER_LIMITS.maxWeight;
  const v = r as Partial<RankerSpec> | null;
  if (!v || !ok(v.keywords) || !ok(v.text) || v.keywords + v.text === 0) {
    throw new RangeError(`invalid ranker ${JSON.stringify(r)}: integer weights 0–${RANKER_LIMITS.maxWeight} for keywords and text, not both 0`);
  }
  return { keywords: v.keywords, text: v.text };
}

export const sameRanker = (a: RankerSpec, b: RankerSpec) => a.keywords === b.keywords && a.text === b.text;

/** The item's BM25 bag under a ranker: its keyword set's words, then its text's, each field repeated by its weight. */
export function rankerBag(ranker: RankerSpec, keywordSet: readonly string[], text: string | undefined): string[] {
  const bag: string[] = [];
  if (ranker.keywords > 0) {
    const kw = keywordSet.flatMap(keywordWords);
    for (let r = 0; r < ranker.keywords; r++) bag.push(...kw);
  }
  if (ranker.text > 0) {
    if (text === undefined) throw new RangeError(`ranker ${rankerName(ranker)} needs each item's text`);
    const words = keywordWords(normalizeKeyword(text));
    for (let r = 0; r < ranker.text; r++) bag.push(...words);
  }
  return bag;
}
