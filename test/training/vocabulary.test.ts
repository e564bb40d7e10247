/**
 * The bounded vocabulary (training/vocabulary.ts): below its budgets it is the
 * unbounded one exactly; above them its tables stay within sizes fixed by the
 * budgets, whatever the catalogue's size, keeping the most frequent keywords
 * and words; slicing the pair counts into passes changes nothing.
 */
import { describe, expect, it } from "vitest";
import { getOrInsert } from "../../core/collections.js";
import { singular } from "../../core/morph.js";
import { keywordWords } from "../../core/normalize.js";
import type { PolicyVocabulary } from "../../core/policy-candidates.js";
import { Rng } from "../../core/rng.js";
import { buildVocabulary, topByScore, type Unit, VOCAB_DEFAULTS } from "../../training/vocabulary.js";

/** The vocabulary as it was built before it had budgets (nested string maps, one pass): the reference. */
function referenceVocabulary(units: readonly Unit[], opts: { expansionsPerWord?: number; minCooccurrence?: number } = {}): PolicyVocabulary {
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

const BIG = { headKeywords: 1e9, headWords: 1e9, wordsPerPass: 1e9 } as const;

/** A catalogue of n units over a Zipf-like vocabulary that grows with n, as a shop's does. */
function units(n: number, seed = 1): Unit[] {
  const rng = new Rng(seed);
  const zipf = (size: number) => Math.floor(size ** rng.next()) - 1;
  const vocab = Math.ceil(n / 2) + 20;
  return Array.from({ length: n }, () => {
    const words = Array.from({ length: 4 }, () => `w${zipf(vocab)}`);
    const keywords = [words[0] as string, `${words[0]} ${words[1]}`, `k${zipf(vocab)}`];
    return { words: new Set(words), keywords };
  });
}

const sizes = (v: ReturnType<typeof buildVocabulary>) => ({
  df: v.oppositeDf.size,
  expansions: v.expansions.size,
  profiles: v.profiles?.size ?? 0,
  entries: [...v.expansions.values()].reduce((s, l) => s + l.length, 0) + [...(v.profiles?.values() ?? [])].reduce((s, l) => s + l.length, 0),
});

describe("bounded vocabulary", () => {
  it("is the unbounded (reference) vocabulary exactly while the catalogue is below its budgets", () => {
    const u = units(400);
    const bounded = buildVocabulary(u);
    const unbounded = referenceVocabulary(u);
    expect(bounded.oppositeCount).toBe(400);
    expect(bounded.oppositeDf.size).toBeGreaterThan(100);
    expect([...bounded.oppositeDf].sort()).toEqual([...unbounded.oppositeDf].sort());
    expect([...bounded.expansions].sort()).toEqual([...unbounded.expansions].sort());
    expect([...(bounded.profiles ?? [])].sort()).toEqual([...(unbounded.profiles ?? [])].sort());
  });

  it("gives the same tables whether the pair counts take one pass or many", () => {
    const u = units(600, 2);
    const one = buildVocabulary(u, BIG);
    const many = buildVocabulary(u, { ...BIG, wordsPerPass: 7 });
    expect([...many.expansions].sort()).toEqual([...one.expansions].sort());
    expect([...(many.profiles ?? [])].sort()).toEqual([...(one.profiles ?? [])].sort());
  });

  it("stays within sizes set by its budgets as the catalogue grows, keeping the most frequent keywords", () => {
    const budget = { headKeywords: 50, headWords: 40 };
    // What the budgets allow: df and profiles per head keyword, expansions per head word.
    const bound = {
      df: budget.headKeywords,
      expansions: budget.headWords,
      profiles: budget.headKeywords,
      entries: budget.headKeywords * VOCAB_DEFAULTS.profileWords + budget.headWords * (VOCAB_DEFAULTS.expansionsPerWord + VOCAB_DEFAULTS.extensionsPerWord),
    };
    const seen: Array<ReturnType<typeof sizes>> = [];
    for (const n of [500, 2_000, 8_000]) {
      const u = units(n, 3);
      const v = buildVocabulary(u, budget);
      const s = sizes(v);
      seen.push(s);
      expect(s.df).toBe(bound.df);
      expect(s.expansions).toBeLessThanOrEqual(bound.expansions);
      expect(s.profiles).toBeLessThanOrEqual(bound.profiles);
      expect(s.entries).toBeLessThanOrEqual(bound.entries);
      // The head is the keywords of highest df: none left out is more frequent than the least frequent kept.
      const all = buildVocabulary(u, BIG).oppositeDf;
      const floor = Math.min(...v.oppositeDf.values());
      expect([...all].filter(([k, d]) => !v.oppositeDf.has(k) && d > floor)).toEqual([]);
      expect(all.size).toBeGreaterThan(bound.df);
    }
    // The unbounded vocabulary grows with the catalogue; the bounded one does not pass its budgets.
    expect(buildVocabulary(units(8_000, 3), BIG).oppositeDf.size).toBeGreaterThan(4 * (seen[0]?.df ?? 0));
  });
});
