/**
 * Word × keyword co-occurrence counting over the units' id lists, shared by
 * the vocabulary's head (training/vocabulary.ts) and its tail
 * (training/vocabulary-tail.ts), so both make expansions and profiles alike.
 */
import { getOrInsert } from "../core/collections.js";
import { singular } from "../core/morph.js";
import { keywordWords } from "../core/normalize.js";
import type { Counter, IdLists } from "./id-lists.js";

export const VOCAB_DEFAULTS = { expansionsPerWord: 8, extensionsPerWord: 4, minCooccurrence: 2, profileWords: 8, minProfileProbability: 0.1 } as const;
export const VOCAB_BUDGETS = {
  headKeywords: 40_000,
  headWords: 40_000,
  wordsPerPass: 5_000,
  /** The tail's passes (training/vocabulary-tail.ts): occurrences of its keywords or words counted per pass. */
  tailOccurrencesPerPass: 50_000,
} as const;

/** The n highest-scoring entries, ties by key (so vocabularies are deterministic); sorts `entries` in place. */
export const topByScore = (entries: Array<[string, number]>, n: number): Array<[string, number]> =>
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);

/** What one pass over the units gathered: the interned keywords and words, and each unit's ids (CSR). */
export interface UnitIds {
  readonly kws: Counter;
  readonly wds: Counter;
  readonly unitKeywords: IdLists;
  readonly unitWords: IdLists;
  /** Keyword id → its place among the head keywords (−1: tail). */
  readonly inHead: Int32Array;
}

export type Table = Map<string, Array<[string, number]>>;

/**
 * The associations of a slice of words with the head keywords, counted in one
 * pass over the units: each word's expansions and extensions (by cosine of
 * co-occurrence counts) into `expansions`, and, when `profiles` is given,
 * P(word | keyword) into the keywords' profiles.
 */
export function associateWords(ids: UnitIds, slice: readonly number[], minC: number, topE: number, expansions: Table, profiles: Table | null): void {
  const { kws, wds, unitKeywords, unitWords, inHead } = ids;
  const slot = new Int32Array(wds.keys.length).fill(-1);
  slice.forEach((id, j) => {
    slot[id] = j;
  });
  const pairs = slice.map(() => new Map<number, number>());
  for (let u = 0; u < unitKeywords.count; u++) {
    const k0 = unitKeywords.start[u] as number;
    const k1 = unitKeywords.start[u + 1] as number;
    for (let a = unitWords.start[u] as number; a < (unitWords.start[u + 1] as number); a++) {
      const j = slot[unitWords.ids[a] as number] as number;
      if (j < 0) continue;
      const m = pairs[j] as Map<number, number>;
      for (let b = k0; b < k1; b++) {
        const h = inHead[unitKeywords.ids[b] as number] as number;
        if (h >= 0) m.set(unitKeywords.ids[b] as number, (m.get(unitKeywords.ids[b] as number) ?? 0) + 1);
      }
    }
  }
  slice.forEach((id, j) => {
    const w = wds.keys[id] as string;
    const cw = wds.counts[id] as number;
    const scored: Array<[string, number]> = [];
    const extended: Array<[string, number]> = [];
    for (const [kid, c] of pairs[j] as Map<number, number>) {
      const k = kws.keys[kid] as string;
      const dk = kws.counts[kid] as number;
      const cosine = c / Math.sqrt(cw * dk);
      // A keyword's own words say nothing about it (profiles). A longer phrase holding the word
      // ("rug" → "area rug") is an extension: containment misses it when the input lacks the other words.
      const kw = keywordForms(k);
      if (kw.has(w)) {
        if (kw.size > 1 && c >= minC) extended.push([k, cosine]);
        continue;
      }
      const p = c / dk;
      if (profiles && p >= VOCAB_DEFAULTS.minProfileProbability) {
        const l = getOrInsert(profiles, k, () => []);
        l.push([w, p]);
        // Keep each profile at its top entries as it grows (the order is total, so the result is the same).
        if (l.length > 4 * VOCAB_DEFAULTS.profileWords) profiles.set(k, topByScore(l, VOCAB_DEFAULTS.profileWords));
      }
      if (c < minC) continue;
      scored.push([k, cosine]);
    }
    const list = [...topByScore(scored, topE), ...topByScore(extended, VOCAB_DEFAULTS.extensionsPerWord)];
    if (list.length > 0)
      expansions.set(
        w,
        list.map(([k, s]) => [k, Math.round(s * 1e4) / 1e4]),
      );
  });
}

const forms = new Map<string, Set<string>>();
/** A keyword's singular words (memoised for the run's head keywords, which every pass revisits). */
function keywordForms(k: string): Set<string> {
  let f = forms.get(k);
  if (!f) {
    if (forms.size > 4 * VOCAB_BUDGETS.headKeywords) forms.clear();
    f = new Set(keywordWords(k).map(singular));
    forms.set(k, f);
  }
  return f;
}

/** A profile as it ships: its top entries, probabilities rounded. */
export const finalProfile = (l: Array<[string, number]>): Array<[string, number]> =>
  topByScore(l, VOCAB_DEFAULTS.profileWords).map(([w, p]) => [w, Math.round(p * 1e3) / 1e3]);
