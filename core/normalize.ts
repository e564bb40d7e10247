/**
 * Keyword normalisation: the one definition of "the same keyword" shared by
 * the trainer, the index builder and the worker.
 *
 * NFKC folds compatibility forms (full-width letters, ligatures), lower case
 * folds case, and every punctuation or symbol character becomes a space, so
 * "Bar (28\"-33\")" and "bar 28 33" are the same keyword. NFKC runs again
 * after lower-casing because a few case mappings (e.g. U+0130) produce
 * sequences NFKC would rewrite; that second pass is what makes the function
 * idempotent (a property test checks it).
 */
const NON_WORD = /[\p{P}\p{S}\p{C}\s]+/gu;

export function normalizeKeyword(raw: string): string {
  return raw.normalize("NFKC").toLowerCase().normalize("NFKC").replace(NON_WORD, " ").trim();
}

/** The words BM25 counts: a normalised keyword split on its single spaces. */
export function keywordWords(normalized: string): string[] {
  return normalized === "" ? [] : normalized.split(" ");
}

/** Normalises a list of raw keywords into a set, dropping empty results, in first-seen order. */
export function normalizeKeywordSet(raw: Iterable<string>): string[] {
  const seen = new Set<string>();
  for (const r of raw) {
    const k = normalizeKeyword(r);
    if (k !== "") seen.add(k);
  }
  return [...seen];
}
