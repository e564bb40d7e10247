/**
 * Typo tolerance inside retrieval (issue 25 §1): a query word that is not in
 * the round's vocabulary is mapped to the vocabulary word one edit away
 * (core/edit-distance.ts: insert, delete, substitute, swap two neighbours)
 * that the most items hold. "armchiar" becomes "armchair"; "scone" is in the
 * vocabulary and is left alone, whatever "stone" weighs.
 *
 * The vocabulary is the words of the keywords the generator may emit (the
 * extractor's df table, a policy's opposite index), with each word's weight
 * the summed df of the keywords that spell it: a word no keyword holds can
 * retrieve nothing, so it is where a correction can help, and a word some
 * keyword holds is never touched.
 *
 * The edit-distance index is the vocabulary's hash set: the candidates of a
 * word are generated (Norvig's edits1, about 2·|alphabet|·|w| strings) and
 * looked up. SymSpell's delete dictionary would find them faster but holds
 * about |w| entries per vocabulary word in every isolate; at a few hundred
 * lookups a word, generation costs microseconds and no memory.
 *
 * Generators use the correction as evidence, not as a rewrite: the
 * extractor reads the corrected text, and a lexical policy sees the
 * candidates that hold a corrected word with the `corrected` feature, so it
 * learns how far to trust one (core/policy-candidates.ts).
 */
import { singular } from "./morph.js";
import { keywordWords, normalizeKeyword } from "./normalize.js";

export const TYPO_LIMITS = {
  /** Shorter words are left alone: one edit turns "rug" into "mug", "bag", "rag". */
  minWordChars: 4,
  /** Words longer than this are not corrected (candidate generation grows with length). */
  maxWordChars: 32,
} as const;

export interface Correction {
  /** The query, normalised, with every corrected word replaced. */
  readonly text: string;
  /** [typed, corrected] for each corrected word, in query order. */
  readonly words: ReadonlyArray<readonly [string, string]>;
}

export interface Lexicon {
  /** Word → weight (summed df of the keywords that spell it). */
  readonly weight: ReadonlyMap<string, number>;
  /** The singular forms of the vocabulary: "armchairs" is known when "armchair" is. */
  readonly singulars: ReadonlySet<string>;
  /** The characters the vocabulary is spelled with: what an insertion or substitution may produce. */
  readonly alphabet: readonly string[];
}

const cache = new WeakMap<object, Lexicon>();
/** The lexicon of a df table, built once per table object (a loaded generator's, a training phase's vocabulary). */
export function cachedLexicon(df: ReadonlyMap<string, number>): Lexicon {
  let lex = cache.get(df);
  if (!lex) {
    lex = lexiconOf(df);
    cache.set(df, lex);
  }
  return lex;
}

/** The lexicon of a keyword df table (keyword → df). */
export function lexiconOf(keywordDf: Iterable<readonly [string, number]>): Lexicon {
  const weight = new Map<string, number>();
  for (const [k, df] of keywordDf) for (const w of keywordWords(k)) weight.set(w, (weight.get(w) ?? 0) + df);
  const chars = new Set<string>();
  const singulars = new Set<string>();
  for (const w of weight.keys()) {
    singulars.add(singular(w));
    for (const ch of w) chars.add(ch);
  }
  return { weight, singulars, alphabet: [...chars].sort() };
}

const NUMERIC = /[0-9]/;

/** Whether a typed word is left as it is: known, short, holding a digit (model numbers, sizes) or too long. */
function keep(lex: Lexicon, w: string, known?: (w: string) => boolean): boolean {
  return (
    known?.(w) === true ||
    w.length < TYPO_LIMITS.minWordChars ||
    w.length > TYPO_LIMITS.maxWordChars ||
    NUMERIC.test(w) ||
    lex.weight.has(w) ||
    lex.singulars.has(singular(w))
  );
}

/** The vocabulary words one edit from w, each once. */
export function edits1(lex: Lexicon, w: string): string[] {
  const out = new Set<string>();
  const at = (s: string) => {
    if (lex.weight.has(s)) out.add(s);
  };
  for (let i = 0; i <= w.length; i++) {
    const head = w.slice(0, i);
    const tail = w.slice(i);
    if (tail.length > 0) at(head + tail.slice(1));
    if (tail.length > 1) at(head + (tail[1] as string) + (tail[0] as string) + tail.slice(2));
    for (const ch of lex.alphabet) {
      if (tail.length > 0 && ch !== tail[0]) at(head + ch + tail.slice(1));
      at(head + ch + tail);
    }
  }
  return [...out];
}

/** The heaviest vocabulary word one edit from w (ties: alphabetical), or null. */
function nearest(lex: Lexicon, w: string): string | null {
  let best: string | null = null;
  let bestWeight = -1;
  for (const c of edits1(lex, w)) {
    const cw = lex.weight.get(c) as number;
    if (cw > bestWeight || (cw === bestWeight && best !== null && c < best)) {
      best = c;
      bestWeight = cw;
    }
  }
  return best;
}

/**
 * The correction of one word, or null: the nearest vocabulary word, else the
 * nearest to its singular ("dumbbwlls" → "dumbbell" when the vocabulary
 * spells only the singular).
 */
export function correctWord(lex: Lexicon, w: string, known?: (w: string) => boolean): string | null {
  if (keep(lex, w, known)) return null;
  const s = singular(w);
  return nearest(lex, w) ?? (s !== w ? nearest(lex, s) : null);
}

/**
 * The query with its unknown words corrected, or null when no word changes.
 * `known` vouches for words the lexicon lacks (a large extractor's df tail,
 * fetched per query: workers/search/query-df.ts).
 */
export function correctQuery(lex: Lexicon, query: string, known?: (w: string) => boolean): Correction | null {
  const words = keywordWords(normalizeKeyword(query));
  const fixed: Array<[string, string]> = [];
  const out = words.map((w) => {
    const c = correctWord(lex, w, known);
    if (c === null) return w;
    fixed.push([w, c]);
    return c;
  });
  return fixed.length === 0 ? null : { text: out.join(" "), words: fixed };
}
