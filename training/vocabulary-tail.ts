/**
 * The vocabulary's tail (core/policy-tail.ts): what the head budgets leave
 * out of training/vocabulary.ts's tables, by word, so that a query reads only
 * its own words' entries.
 *
 * - A tail keyword (of ≤ POLICY_LIMITS.containMaxWords words: a longer one is
 *   never a candidate, n-grams and containment stop at 3 words) keeps its df
 *   and its profile over the head words, as a head keyword's is made, filed
 *   under its rarest singular word among the tail's (n-gram spellings and
 *   containment need every word of the keyword in the input, that one too).
 * - Every word a tail keyword spells is marked known, for the spelling
 *   correction.
 * - A tail word (past the head words) keeps its expansions and extensions
 *   into the head keywords, as a head word's are made.
 *
 * Counting goes in passes over the units' id lists, each over a slice of
 * keywords (or words) whose occurrences sum to at most `occurrencesPerPass`,
 * so the counts held at once stay bounded whatever the tail's size.
 */
import { getOrInsert } from "../core/collections.js";
import { singular } from "../core/morph.js";
import { keywordWords } from "../core/normalize.js";
import { POLICY_LIMITS } from "../core/policy-candidates.js";
import type { TailKeyword, TailWord } from "../core/policy-tail.js";
import { slicesByCount } from "./id-lists.js";
import { associateWords, finalProfile, type UnitIds, VOCAB_DEFAULTS } from "./vocabulary-pairs.js";

type MutableTailWord = { k?: TailKeyword[]; e?: Array<readonly [string, number]>; n?: 1 };

export function vocabularyTail(
  ids: UnitIds,
  headW: readonly number[],
  opts: { minC: number; topE: number; occurrencesPerPass: number },
): Map<string, TailWord> {
  const { kws, wds, inHead } = ids;
  const byKey = (keys: readonly string[]) => (a: number, b: number) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1);
  const entries = new Map<string, MutableTailWord>();
  const entry = (w: string) => getOrInsert(entries, w, (): MutableTailWord => ({}));
  // Tail keywords, their words (singular) and how many tail keywords hold each word.
  const tailK: number[] = [];
  const formsOf = new Map<number, string[]>();
  const wordDf = new Map<string, number>();
  for (let id = 0; id < kws.keys.length; id++) {
    if ((inHead[id] as number) >= 0) continue;
    const written = keywordWords(kws.keys[id] as string);
    if (written.length > POLICY_LIMITS.containMaxWords) continue;
    const ws = written.map(singular);
    tailK.push(id);
    formsOf.set(id, ws);
    for (const w of new Set(ws)) wordDf.set(w, (wordDf.get(w) ?? 0) + 1);
    for (const w of written) {
      entry(w).n = 1;
      entry(singular(w)).n = 1;
    }
  }
  tailK.sort(byKey(kws.keys));
  const profiles = tailProfiles(ids, tailK, headW, formsOf, opts.occurrencesPerPass);
  for (const id of tailK) {
    const k = kws.keys[id] as string;
    const ws = formsOf.get(id) as string[];
    const rarest = ws.reduce((a, b) => ((wordDf.get(b) as number) < (wordDf.get(a) as number) || (wordDf.get(b) === wordDf.get(a) && b < a) ? b : a));
    const e = entry(rarest);
    e.k ??= [];
    e.k.push([k, kws.counts[id] as number, profiles.get(id) ?? []]);
  }
  // Tail words' associations into the head keywords (no profiles: those are the head words').
  const head = new Uint8Array(wds.keys.length);
  for (const id of headW) head[id] = 1;
  const tailW = Array.from(wds.keys, (_, id) => id)
    .filter((id) => head[id] === 0)
    .sort(byKey(wds.keys));
  const expansions = new Map<string, Array<[string, number]>>();
  for (const slice of slicesByCount(tailW, wds.counts, opts.occurrencesPerPass)) associateWords(ids, slice, opts.minC, opts.topE, expansions, null);
  for (const [w, e] of expansions) entry(w).e = e;
  return entries;
}

/** Each tail keyword's profile: P(word | keyword) over the head words, its top entries (as a head keyword's). */
function tailProfiles(
  ids: UnitIds,
  tailK: readonly number[],
  headW: readonly number[],
  formsOf: ReadonlyMap<number, readonly string[]>,
  occurrencesPerPass: number,
): Map<number, Array<[string, number]>> {
  const { kws, wds, unitKeywords, unitWords } = ids;
  const isHeadWord = new Uint8Array(wds.keys.length);
  for (const id of headW) isHeadWord[id] = 1;
  const slot = new Int32Array(kws.keys.length).fill(-1);
  const out = new Map<number, Array<[string, number]>>();
  for (const slice of slicesByCount(tailK, kws.counts, occurrencesPerPass)) {
    slice.forEach((id, j) => {
      slot[id] = j;
    });
    const counts = slice.map(() => new Map<number, number>());
    for (let u = 0; u < unitKeywords.count; u++) {
      for (let b = unitKeywords.start[u] as number; b < (unitKeywords.start[u + 1] as number); b++) {
        const j = slot[unitKeywords.ids[b] as number] as number;
        if (j < 0) continue;
        const m = counts[j] as Map<number, number>;
        for (let a = unitWords.start[u] as number; a < (unitWords.start[u + 1] as number); a++) {
          const wid = unitWords.ids[a] as number;
          if (isHeadWord[wid] === 1) m.set(wid, (m.get(wid) ?? 0) + 1);
        }
      }
    }
    slice.forEach((id, j) => {
      slot[id] = -1;
      const dk = kws.counts[id] as number;
      const own = new Set(formsOf.get(id));
      const l: Array<[string, number]> = [];
      for (const [wid, c] of counts[j] as Map<number, number>) {
        const w = wds.keys[wid] as string;
        const p = c / dk;
        if (!own.has(w) && p >= VOCAB_DEFAULTS.minProfileProbability) l.push([w, p]);
      }
      if (l.length > 0) out.set(id, finalProfile(l));
    });
  }
  return out;
}
