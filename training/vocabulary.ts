/**
 * What each side's policy sees of the opposite side's frozen index: keyword
 * document frequencies and learned expansions (input word → associated
 * opposite keywords, by cosine of co-occurrence counts) and profiles
 * (keyword → the words its units are about).
 *
 * Bounded by counts, as the extractor's shipped df is: the `headKeywords`
 * keywords of highest df and the `headWords` words of highest count are the
 * vocabulary; the rest (the tail: rare keywords and words) is left out, so
 * the tables, the pair counts behind them and the shipped policy are
 * O(headKeywords · profileWords + headWords · (expansions + extensions))
 * whatever the catalogue's size. Below both budgets (WANDS: 17,665 item
 * keywords) nothing is left out and the vocabulary is exactly the unbounded
 * one. Words and keywords are interned to integer ids; the word × keyword
 * pair counts are gathered a slice of head words at a time, each slice one
 * pass over the units, so no pass holds more than `pairsPerPass` counts' worth of words.
 */
import { getOrInsert } from "../core/collections.js";
import { singular } from "../core/morph.js";
import { keywordWords } from "../core/normalize.js";
import type { PolicyVocabulary } from "../core/policy-candidates.js";

export const VOCAB_DEFAULTS = { expansionsPerWord: 8, extensionsPerWord: 4, minCooccurrence: 2, profileWords: 8, minProfileProbability: 0.1 } as const;
export const VOCAB_BUDGETS = { headKeywords: 40_000, headWords: 40_000, wordsPerPass: 20_000 } as const;

/** The n highest-scoring entries, ties by key (so vocabularies are deterministic); sorts `entries` in place. */
export const topByScore = (entries: Array<[string, number]>, n: number): Array<[string, number]> =>
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);

export interface Unit {
  /** Words that describe the unit (an item's name and keywords; a query's words). */
  readonly words: Iterable<string>;
  /** Its keyword set in the opposite index. */
  readonly keywords: readonly string[];
}

/** The units, as a list or as a function that visits them (called once per pass, so they need not be held). */
export type Units = readonly Unit[] | ((visit: (u: Unit) => void) => void);

export interface VocabularyOptions {
  readonly expansionsPerWord?: number;
  readonly minCooccurrence?: number;
  readonly headKeywords?: number;
  readonly headWords?: number;
  readonly wordsPerPass?: number;
}

/** Interns strings to dense ids, counting each. */
class Counter {
  readonly ids = new Map<string, number>();
  readonly keys: string[] = [];
  counts = new Int32Array(1024);
  add(s: string): void {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.keys.length;
      this.ids.set(s, id);
      this.keys.push(s);
      if (id >= this.counts.length) {
        const grown = new Int32Array(this.counts.length * 2);
        grown.set(this.counts);
        this.counts = grown;
      }
    }
    this.counts[id] = (this.counts[id] as number) + 1;
  }
  /** The n ids of highest count, ties by key. */
  head(n: number): number[] {
    const all = Array.from(this.keys, (_, id) => id);
    if (all.length <= n) return all;
    const key = this.keys;
    const c = this.counts;
    return all.sort((a, b) => (c[b] as number) - (c[a] as number) || ((key[a] as string) < (key[b] as string) ? -1 : 1)).slice(0, n);
  }
}

const visitAll = (units: Units, visit: (u: Unit) => void) => (typeof units === "function" ? units(visit) : units.forEach(visit));
const singularSet = (words: Iterable<string>) => new Set(Array.from(words, singular));

export function buildVocabulary(units: Units, opts: VocabularyOptions = {}): PolicyVocabulary {
  const topE = opts.expansionsPerWord ?? VOCAB_DEFAULTS.expansionsPerWord;
  const minC = opts.minCooccurrence ?? VOCAB_DEFAULTS.minCooccurrence;
  // Pass 1: keyword df and word counts (expansions are keyed by singular words, as the policy looks them up, core/morph.ts).
  const kws = new Counter();
  const wds = new Counter();
  let count = 0;
  visitAll(units, (u) => {
    count++;
    for (const k of new Set(u.keywords)) kws.add(k);
    for (const w of singularSet(u.words)) wds.add(w);
  });
  const headK = kws.head(opts.headKeywords ?? VOCAB_BUDGETS.headKeywords);
  const headW = wds
    .head(opts.headWords ?? VOCAB_BUDGETS.headWords)
    .map((id) => wds.keys[id] as string)
    .sort((a, b) => (a < b ? -1 : 1));
  const df = new Map<string, number>(headK.map((id) => [kws.keys[id] as string, kws.counts[id] as number]));

  const expansions = new Map<string, Array<[string, number]>>();
  const profiles = new Map<string, Array<[string, number]>>();
  const forms = new Map<string, Set<string>>();
  const perPass = opts.wordsPerPass ?? VOCAB_BUDGETS.wordsPerPass;
  // Passes 2…: word × keyword co-occurrence counts for a slice of the head words at a time (in word order).
  for (let from = 0; from < headW.length; from += perPass) {
    const slice = headW.slice(from, from + perPass);
    const at = new Map(slice.map((w, j) => [w, j]));
    const pairs = slice.map(() => new Map<string, number>());
    visitAll(units, (u) => {
      const ks = [...new Set(u.keywords)].filter((k) => df.has(k));
      if (ks.length === 0) return;
      for (const w of singularSet(u.words)) {
        const j = at.get(w);
        if (j === undefined) continue;
        const m = pairs[j] as Map<string, number>;
        for (const k of ks) m.set(k, (m.get(k) ?? 0) + 1);
      }
    });
    slice.forEach((w, j) => {
      const cw = wds.counts[wds.ids.get(w) as number] as number;
      const scored: Array<[string, number]> = [];
      const extended: Array<[string, number]> = [];
      for (const [k, c] of pairs[j] as Map<string, number>) {
        const dk = df.get(k) as number;
        const cosine = c / Math.sqrt(cw * dk);
        const kw = getOrInsert(forms, k, () => new Set(keywordWords(k).map(singular)));
        // A keyword's own words say nothing about it (profiles). A longer phrase holding the word
        // ("rug" → "area rug") is an extension: containment misses it when the input lacks the other words.
        if (kw.has(w)) {
          if (kw.size > 1 && c >= minC) extended.push([k, cosine]);
          continue;
        }
        const p = c / dk;
        if (p >= VOCAB_DEFAULTS.minProfileProbability) {
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
  for (const [k, l] of profiles) {
    profiles.set(
      k,
      topByScore(l, VOCAB_DEFAULTS.profileWords).map(([w, p]) => [w, Math.round(p * 1e3) / 1e3]),
    );
  }
  // Map order as before (profiles by first word that reached them, in word order): a spec sorts its tables by key anyway.
  return { oppositeDf: df, oppositeCount: count, expansions, profiles };
}
