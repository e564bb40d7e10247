/**
 * The vocabulary's tail (training/vocabulary-tail.ts, core/policy-tail.ts):
 * what the head budgets leave out is kept by word, as the unbounded
 * vocabulary has it; a query's candidates read through the entries of its
 * own words (what a worker fetches) are the candidates the whole tail gives,
 * and, for a query whose words the vocabulary spells, the candidates of the
 * vocabulary with head and tail joined into one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { singular } from "../../core/morph.js";
import { keywordWords } from "../../core/normalize.js";
import { POLICY_LIMITS, type PolicyVocabulary, policyCorrection, queryCandidates } from "../../core/policy-candidates.js";
import { type PolicyTail, tailBucketCount, tailBucketOf, tailBuckets, tailSlice, tailWordsOf } from "../../core/policy-tail.js";
import { Rng } from "../../core/rng.js";
import { buildVocabulary, type Unit } from "../../training/vocabulary.js";
import { BIG, referenceVocabulary, units } from "../support/vocabulary-reference.js";

/** Units over spelled words ("lampbc"), long enough for the spelling correction (core/typos.ts) to mend. */
function wordUnits(n: number, seed: number): Unit[] {
  const rng = new Rng(seed);
  const word = (i: number) => `lamp${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}`;
  const zipf = (size: number) => Math.floor(size ** rng.next()) - 1;
  return Array.from({ length: n }, () => {
    const words = Array.from({ length: 4 }, () => word(zipf(400)));
    return { words: new Set(words), keywords: [words[0] as string, `${words[0]} ${words[1]}`, `${words[1]} ${words[2]} ${words[3]}`] };
  });
}

/** The head and the tail joined into one vocabulary without a tail (what the trainer would hold unbounded). */
function joined(v: PolicyVocabulary): PolicyVocabulary {
  const df = new Map(v.oppositeDf);
  const profiles = new Map(v.profiles);
  const expansions = new Map(v.expansions);
  for (const [w, e] of v.tail ?? []) {
    for (const [k, d, p] of e.k ?? []) {
      df.set(k, d);
      if (p.length > 0) profiles.set(k, p);
    }
    if (e.e) expansions.set(w, e.e);
  }
  return { oppositeDf: df, oppositeCount: v.oppositeCount, expansions, profiles };
}

/** The whole tail's keywords: keyword → [df, profile, the word it is filed under]. */
function tailKeywords(tail: PolicyTail) {
  const out = new Map<string, [number, ReadonlyArray<readonly [string, number]>, string]>();
  for (const [w, e] of tail) for (const [k, d, p] of e.k ?? []) out.set(k, [d, p, w]);
  return out;
}

describe("vocabulary tail", () => {
  it("keeps every keyword the head leaves out, filed once under one of its words, with the unbounded df and profile", () => {
    const u = units(3_000, 5);
    const ref = referenceVocabulary(u);
    const v = buildVocabulary(u, { ...BIG, headKeywords: 200 });
    expect(v.oppositeDf.size).toBe(200);
    const tail = tailKeywords(v.tail ?? new Map());
    expect(tail.size).toBe(ref.oppositeDf.size - 200);
    for (const [k, [d, p, w]] of tail) {
      expect(v.oppositeDf.has(k)).toBe(false);
      expect(d).toBe(ref.oppositeDf.get(k));
      expect(p).toEqual(ref.profiles?.get(k) ?? []);
      expect(keywordWords(k).map(singular)).toContain(w);
      // Every word it spells is known to the spelling correction.
      for (const x of keywordWords(k)) expect(v.tail?.get(x)?.n).toBe(1);
    }
  });

  it("keeps a rare word's expansions as the unbounded vocabulary makes them", () => {
    const u = units(3_000, 6);
    const ref = referenceVocabulary(u);
    const v = buildVocabulary(u, { ...BIG, headWords: 100 });
    expect(v.expansions.size).toBeLessThanOrEqual(100);
    const tailExpansions = [...(v.tail ?? [])].filter(([, e]) => e.e).map(([w, e]) => [w, e.e]);
    expect(tailExpansions.length).toBeGreaterThan(50);
    expect(new Map([...v.expansions, ...(tailExpansions as Array<[string, Array<[string, number]>]>)])).toEqual(ref.expansions);
  });

  it("is the same whether counted in one pass or many", () => {
    const u = units(2_000, 7);
    const budgets = { headKeywords: 150, headWords: 80 };
    const one = buildVocabulary(u, { ...budgets, tailOccurrencesPerPass: 1e9 });
    const many = buildVocabulary(u, { ...budgets, tailOccurrencesPerPass: 5 });
    expect([...(many.tail ?? [])].sort()).toEqual([...(one.tail ?? [])].sort());
  });

  it("has no tail below the budgets (a WANDS-sized vocabulary is unchanged)", () => {
    expect(buildVocabulary(units(400)).tail).toBeUndefined();
  });

  it("ships in buckets a word's entry is found in", () => {
    const v = buildVocabulary(wordUnits(2_000, 8), { headKeywords: 100, headWords: 60 });
    const entries = [...(v.tail ?? [])];
    const buckets = tailBuckets(entries, tailBucketCount(entries, 4_096));
    expect(buckets.length).toBeGreaterThan(3);
    for (const [w, e] of entries) expect(buckets[tailBucketOf(w, buckets.length)]?.[w]).toEqual(e);
  });
});

describe("a query's candidates through its words' tail entries", () => {
  const u = wordUnits(3_000, 9);
  const v = buildVocabulary(u, { headKeywords: 300, headWords: 120 });
  const tail = v.tail as PolicyTail;
  const { tail: _whole, ...head } = v;
  const one = joined(v);
  const words = [...new Set(u.flatMap((x) => [...x.words]))];
  const typo = (w: string, at: number) => w.slice(0, at % w.length) + w.slice((at % w.length) + 1);
  const query = fc
    .array(fc.tuple(fc.integer({ min: 0, max: words.length - 1 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 4 })
    .map((xs) => xs.map(([i, t]) => (t === 0 ? typo(words[i] as string, i) : (words[i] as string))).join(" "));

  it("are the whole tail's, fetched as the worker does (the query's words, then its correction's)", () => {
    expect(tail.size).toBeGreaterThan(100);
    fc.assert(
      fc.property(query, fc.boolean(), (q, verbatim) => {
        const fetched = tailSlice(tail, tailWordsOf(q));
        const correction = verbatim ? null : policyCorrection(head, q, fetched);
        const read = correction ? new Map([...fetched, ...tailSlice(tail, tailWordsOf(correction.text))]) : fetched;
        expect(queryCandidates(head, q, undefined, verbatim, read)).toEqual(queryCandidates(v, q, undefined, verbatim));
      }),
      { numRuns: 300 },
    );
  });

  it("are the joined vocabulary's for a query it spells", () => {
    fc.assert(
      fc.property(query, (q) => {
        fc.pre(policyCorrection(one, q) === null);
        expect(queryCandidates(v, q)).toEqual(queryCandidates(one, q));
      }),
      { numRuns: 300 },
    );
  });

  it("find a rare keyword only the tail holds", () => {
    const rare = [...tailKeywords(tail)].find(([k]) => keywordWords(k).length === POLICY_LIMITS.containMaxWords);
    expect(rare).toBeDefined();
    const [k, [d]] = rare as [string, [number, unknown, string]];
    const c = queryCandidates(v, k).find((x) => x.keyword === k);
    expect(c?.df).toBe(d);
    expect(queryCandidates(head, k).find((x) => x.keyword === k)?.df ?? 0).toBe(0);
  });
});
