/**
 * The bounded vocabulary (training/vocabulary.ts): below its budgets it is the
 * unbounded one exactly; above them its tables stay within sizes fixed by the
 * budgets, whatever the catalogue's size, keeping the most frequent keywords
 * and words; slicing the pair counts into passes changes nothing.
 */
import { describe, expect, it } from "vitest";
import { buildVocabulary, VOCAB_DEFAULTS } from "../../training/vocabulary.js";
import { BIG, referenceVocabulary, units } from "../support/vocabulary-reference.js";

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
