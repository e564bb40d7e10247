/**
 * What each side's policy sees of the opposite side's frozen index: keyword
 * document frequencies and learned expansions (input word → associated
 * opposite keywords, by cosine of co-occurrence counts) and profiles
 * (keyword → the words its units are about).
 *
 * Bounded by counts, as the extractor's shipped df is: the `headKeywords`
 * keywords of highest df and the `headWords` words of highest count are the
 * head, whose tables hold at most headKeywords df entries, headKeywords ·
 * profileWords profile entries and headWords · (expansions + extensions)
 * expansion entries, whatever the catalogue's size; they ship inside the
 * policy. The rest (rare keywords and words) is the tail
 * (training/vocabulary-tail.ts), kept by word and read per input
 * (core/policy-tail.ts); a served policy's tail ships apart, in KV. Below both
 * budgets (WANDS: 17,665 item keywords) there is no tail and the vocabulary
 * is exactly the unbounded one.
 *
 * One pass over the units interns keywords and words to integer ids and keeps
 * each unit's distinct ids in CSR layout (typed arrays: 4 bytes an id); the
 * word × keyword pair counts are then gathered over those arrays for a slice
 * of `wordsPerPass` head words at a time, so the counts held at once are
 * those of one slice, never the catalogue's every pair.
 */
import { singular } from "../core/morph.js";
import type { PolicyVocabulary } from "../core/policy-candidates.js";
import { Counter, IdLists } from "./id-lists.js";
import { associateWords, finalProfile, type Table, type UnitIds, VOCAB_BUDGETS, VOCAB_DEFAULTS } from "./vocabulary-pairs.js";
import { vocabularyTail } from "./vocabulary-tail.js";

export { topByScore, VOCAB_BUDGETS, VOCAB_DEFAULTS } from "./vocabulary-pairs.js";

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
  readonly tailOccurrencesPerPass?: number;
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
  const expansions: Table = new Map();
  const profiles: Table = new Map();
  const perPass = opts.wordsPerPass ?? VOCAB_BUDGETS.wordsPerPass;
  const ids: UnitIds = { kws, wds, unitKeywords, unitWords, inHead };
  // Word × keyword co-occurrence counts for a slice of the head words at a time (in word order), over the CSR lists.
  for (let from = 0; from < headW.length; from += perPass) associateWords(ids, headW.slice(from, from + perPass), minC, topE, expansions, profiles);
  for (const [k, l] of profiles) profiles.set(k, finalProfile(l));
  // Past the budgets, the rare keywords and words go to the tail, read per input (core/policy-tail.ts).
  const tail =
    headK.length < kws.keys.length || headW.length < wds.keys.length
      ? vocabularyTail(ids, headW, { minC, topE, occurrencesPerPass: opts.tailOccurrencesPerPass ?? VOCAB_BUDGETS.tailOccurrencesPerPass })
      : null;
  // Map order as before (profiles by first word that reached them, in word order): a spec sorts its tables by key anyway.
  return { oppositeDf: df, oppositeCount: count, expansions, profiles, ...(tail && tail.size > 0 ? { tail } : {}) };
}
