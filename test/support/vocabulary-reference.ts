/**
 * The vocabulary's reference (as it was built before it had budgets) and a
 * catalogue of units whose vocabulary grows with its size: what the bounded
 * vocabulary and its tail are checked against (test/training/vocabulary*.test.ts).
 */
import { getOrInsert } from "../../core/collections.js";
import { singular } from "../../core/morph.js";
import { keywordWords } from "../../core/normalize.js";
import type { PolicyVocabulary } from "../../core/policy-candidates.js";
import { Rng } from "../../core/rng.js";
import { topByScore, type Unit, VOCAB_DEFAULTS } from "../../training/vocabulary.js";

/** The vocabulary as it was built before it had budgets (nested string maps, one pass): the reference. */
export function referenceVocabulary(units: readonly Unit[], opts: { expansionsPerWord?: number; minCooccurrence?: number } = {}): PolicyVocabulary {
  const topE = opts.expansionsPerWord ?? VOCAB_DEFAULTS.expansionsPerWord;
  const minC = opts.minCooccurrence ?? VOCAB_DEFAULTS.minCooccurrence;
  const df = new Map<string, number>();
  const wordCount = new Map<string, number>();
  const pairs = new Map<string, Map<string, number>>();
  for (const u of units) {
    const ks = [...new Set(u.keywords)];
    for (const k of ks) df.set(k, (df.get(k) ?? 0) + 1);
    // Expansions are keyed by singular words, as the policy looks them up (core/morph.ts).
    for (const w of new Set([...Array.from(u.words)].map(singular))) {
      wordCount.set(w, (wordCount.get(w) ?? 0) + 1);
      const m = getOrInsert(pairs, w, () => new Map<string, number>());
      for (const k of ks) m.set(k, (m.get(k) ?? 0) + 1);
    }
  }
  const expansions = new Map<string, Array<[string, number]>>();
  const profiles = new Map<string, Array<[string, number]>>();
  const forms = new Map<string, Set<string>>();
  for (const [w, m] of [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const cw = wordCount.get(w) ?? 1;
    const scored: Array<[string, number]> = [];
    const extended: Array<[string, number]> = [];
    for (const [k, c] of m) {
      const cosine = c / Math.sqrt(cw * (df.get(k) ?? 1));
      const kw = getOrInsert(forms, k, () => new Set(keywordWords(k).map(singular)));
      // A keyword's own words say nothing about it (profiles). A longer phrase holding the word
      // ("rug" → "area rug") is an extension: containment misses it when the input lacks the other words.
      if (kw.has(w)) {
        if (kw.size > 1 && c >= minC) extended.push([k, cosine]);
        continue;
      }
      const p = c / (df.get(k) ?? 1);
      if (p >= VOCAB_DEFAULTS.minProfileProbability) getOrInsert(profiles, k, () => []).push([w, p]);
      if (c < minC) continue;
      scored.push([k, cosine]);
    }
    const list = [...topByScore(scored, topE), ...topByScore(extended, VOCAB_DEFAULTS.extensionsPerWord)];
    if (list.length > 0)
      expansions.set(
        w,
        list.map(([k, s]) => [k, Math.round(s * 1e4) / 1e4]),
      );
  }
  for (const [k, l] of profiles) {
    profiles.set(
      k,
      topByScore(l, VOCAB_DEFAULTS.profileWords).map(([w, p]) => [w, Math.round(p * 1e3) / 1e3]),
    );
  }
  return { oppositeDf: df, oppositeCount: units.length, expansions, profiles };
}

export const BIG = { headKeywords: 1e9, headWords: 1e9, wordsPerPass: 1e9 } as const;

/** A catalogue of n units over a Zipf-like vocabulary that grows with n, as a shop's does. */
export function units(n: number, seed = 1): Unit[] {
  const rng = new Rng(seed);
  const zipf = (size: number) => Math.floor(size ** rng.next()) - 1;
  const vocab = Math.ceil(n / 2) + 20;
  return Array.from({ length: n }, () => {
    const words = Array.from({ length: 4 }, () => `w${zipf(vocab)}`);
    const keywords = [words[0] as string, `${words[0]} ${words[1]}`, `k${zipf(vocab)}`];
    return { words: new Set(words), keywords };
  });
}
