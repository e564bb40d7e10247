/**
 * What each side's policy sees of the opposite side's frozen index: keyword
 * document frequencies and learned expansions (input word → associated
 * opposite keywords, by cosine of co-occurrence counts) and profiles
 * (keyword → the words its units are about).
 *
 * Bounded by counts, as the extractor's shipped df is: the `headKeywords`
 * keywords of highest df and the `headWords` words of highest count are the
 * vocabulary; the rest (the tail: rare keywords and words) is left out, so
 * the tables and the shipped policy hold at most headKeywords df entries,
 * headKeywords · profileWords profile entries and headWords · (expansions +
 * extensions) expansion entries, whatever the catalogue's size. Below both
 * budgets (WANDS: 17,665 item keywords) nothing is left out and the
 * vocabulary is exactly the unbounded one.
 *
 * One pass over the units interns keywords and words to integer ids and keeps
 * each unit's distinct ids in CSR layout (typed arrays: 4 bytes an id); the
 * word × keyword pair counts are then gathered over those arrays for a slice
 * of `wordsPerPass` head words at a time, so the counts held at once are
 * those of one slice, never the catalogue's every pair.
 */
import { getOrInsert } from "../core/collections.js";
import { singular } from "../core/morph.js";
import { keywordWords } from "../core/normalize.js";
import type { PolicyVocabulary } from "../core/policy-candidates.js";

export const VOCAB_DEFAULTS = { expansionsPerWord: 8, extensionsPerWord: 4, minCooccurrence: 2, profileWords: 8, minProfileProbability: 0.1 } as const;
export const VOCAB_BUDGETS = { headKeywords: 40_000, headWords: 40_000, wordsPerPass: 5_000 } as const;

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
  /** The string's id, counted once more. */
  add(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.keys.length;
      this.ids.set(s, id);
      this.keys.push(s);
      if (id >= this.counts.length) this.counts = grow(this.counts, id + 1);
    }
    this.counts[id] = (this.counts[id] as number) + 1;
    return id;
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

function grow(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(Math.max(need, a.length * 2));
  out.set(a);
  return out;
}

/** Id lists in CSR layout: list u is ids[start[u] .. start[u + 1]). */
class IdLists {
  ids = new Int32Array(4096);
  start = new Int32Array(1025);
  count = 0;
  private used = 0;
  push(list: Iterable<number>): void {
    for (const id of list) {
      if (this.used >= this.ids.length) this.ids = grow(this.ids, this.used + 1);
      this.ids[this.used++] = id;
    }
    if (this.count + 2 > this.start.length) this.start = grow(this.start, this.count + 2);
    this.start[++this.count] = this.used;
  }
}

const visitAll = (units: Units, visit: (u: Unit) => void) => (typeof units === "function" ? units(visit) : units.forEach(visit));

export function buildVocabulary(units: Units, opts: VocabularyOptions = {}): PolicyVocabulary {
  const topE = opts.expansionsPerWord ?? VOCAB_DEFAULTS.expansionsPerWord;
  const minC = opts.minCooccurrence ?? VOCAB_DEFAULTS.minCooccurrence;
  // The one pass over the units: keyword df and word counts (expansions are keyed by singular words, as the
  // policy looks them up, core/morph.ts), and each unit's distinct keyword and word ids, kept in CSR layout.
  const kws = new Counter();
  const wds = new Counter();
  const unitKeywords = new IdLists();
  const unitWords = new IdLists();
  visitAll(units, (u) => {
    unitKeywords.push(Array.from(new Set(u.keywords), (k) => kws.add(k)));
    unitWords.push(Array.from(new Set(Array.from(u.words, singular)), (w) => wds.add(w)));
  });
  const count = unitKeywords.count;
  const headK = kws.head(opts.headKeywords ?? VOCAB_BUDGETS.headKeywords);
  // Head keyword id → its place in the head (−1: tail).
  const inHead = new Int32Array(kws.keys.length).fill(-1);
  headK.forEach((id, h) => {
    inHead[id] = h;
  });
  const headW = wds.head(opts.headWords ?? VOCAB_BUDGETS.headWords).sort((a, b) => ((wds.keys[a] as string) < (wds.keys[b] as string) ? -1 : 1));
  const df = new Map<string, number>(headK.map((id) => [kws.keys[id] as string, kws.counts[id] as number]));
  const expansions = new Map<string, Array<[string, number]>>();
  const profiles = new Map<string, Array<[string, number]>>();
  const forms = new Map<string, Set<string>>();
  const perPass = opts.wordsPerPass ?? VOCAB_BUDGETS.wordsPerPass;
  // Word × keyword co-occurrence counts for a slice of the head words at a time (in word order), over the CSR lists.
  const slot = new Int32Array(wds.keys.length).fill(-1);
  for (let from = 0; from < headW.length; from += perPass) {
    const slice = headW.slice(from, from + perPass);
    slice.forEach((id, j) => {
      slot[id] = j;
    });
    const pairs = slice.map(() => new Map<number, number>());
    for (let u = 0; u < count; u++) {
      const k0 = unitKeywords.start[u] as number;
      const k1 = unitKeywords.start[u + 1] as number;
      for (let a = unitWords.start[u] as number; a < (unitWords.start[u + 1] as number); a++) {
        const j = slot[unitWords.ids[a] as number] as number;
        if (j < 0) continue;
        const m = pairs[j] as Map<number, number>;
        for (let b = k0; b < k1; b++) {
          const h = inHead[unitKeywords.ids[b] as number] as number;
          if (h >= 0) m.set(h, (m.get(h) ?? 0) + 1);
        }
      }
    }
    slice.forEach((id, j) => {
      slot[id] = -1;
      const w = wds.keys[id] as string;
      const cw = wds.counts[id] as number;
      const scored: Array<[string, number]> = [];
      const extended: Array<[string, number]> = [];
      for (const [h, c] of pairs[j] as Map<number, number>) {
        const kid = headK[h] as number;
        const k = kws.keys[kid] as string;
        const dk = kws.counts[kid] as number;
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
