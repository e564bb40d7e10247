/**
 * The lexical policy's candidates (core/policy.ts): the input's n-grams, the
 * opposite index's keywords whose words all occur in the input
 * ("containment"), learned expansions and extensions, and a first pass's
 * hints, each with its features (core/policy-features.ts).
 */
import { getOrInsert } from "./collections.js";
import { type Segment, STOPWORDS, segmentNgrams, segmentText } from "./extract.js";
import { hintKeywords, type SearchHints } from "./hints.js";
import { singular } from "./morph.js";
import { keywordWords } from "./normalize.js";
import { F, FEATURE_COUNT } from "./policy-features.js";
import type { PolicyTail, TailKeyword } from "./policy-tail.js";
import { type Correction, cachedLexicon, correctQuery } from "./typos.js";

export const POLICY_LIMITS = { maxCandidates: 64, maxNgram: 3, containMaxWords: 3, strongAssociation: 0.5, queryFallbackKeywords: 3 } as const;

export interface PolicyVocabulary {
  /** Keyword → document frequency in the opposite side's index. */
  readonly oppositeDf: ReadonlyMap<string, number>;
  readonly oppositeCount: number;
  /** Input word → associated opposite-index keywords with their association score in (0, 1]. */
  readonly expansions: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>;
  /**
   * Keyword → the singular words most often found with it in the opposite
   * units' text, with P(word | keyword): what "leather" means in the item
   * index (chairs? sofas?). Lets a generalising feature ask whether a
   * candidate's items are about this input's words.
   */
  readonly profiles?: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>;
  /**
   * The rare keywords and words past the head budgets, by word
   * (core/policy-tail.ts): held whole by the trainer; a served policy's
   * tail is fetched per query and passed as CandidateInput.tail instead.
   */
  readonly tail?: PolicyTail;
}

export interface Candidate {
  readonly keyword: string;
  /** Indexed by FEATURES. A plain array: allocating a small typed array per candidate cost a fifth of candidate building. */
  readonly features: number[];
  /** The keyword's words (singular) and its df in the opposite index: what the set features (core/set-policy.ts) compare. */
  readonly words?: readonly string[];
  readonly df?: number;
}

const FIELD_FEATURE: Record<Segment["field"], number> = {
  name: F.fieldName,
  class: F.fieldClass,
  category: F.fieldCategory,
  features: F.fieldFeatures,
  description: F.fieldDescription,
};

interface OppositeLookup {
  /**
   * singular word → opposite-index keywords (of ≤ 3 words) filed under it: each
   * keyword under its rarest word only, since a keyword the input contains has
   * all its words in the input, that one included. Keeps the lists short.
   */
  readonly byWord: Map<string, string[]>;
  /** singular form ("dining chair") → the opposite index's spellings of it ("dining chairs", "dining chair"). */
  readonly byForm: Map<string, string[]>;
  /** opposite-index keyword → its words, singular (precomputed: containment tests thousands per input). */
  readonly forms: Map<string, string[]>;
}

const lookupCache = new WeakMap<PolicyVocabulary, OppositeLookup>();
/** Built once per vocabulary. */
function oppositeLookup(vocab: PolicyVocabulary): OppositeLookup {
  let idx = lookupCache.get(vocab);
  if (!idx) {
    idx = { byWord: new Map(), byForm: new Map(), forms: new Map() };
    const wordDf = new Map<string, number>();
    for (const k of vocab.oppositeDf.keys()) {
      const ws = keywordWords(k).map(singular);
      idx.forms.set(k, ws);
      getOrInsert(idx.byForm, ws.join(" "), (): string[] => []).push(k);
      for (const w of new Set(ws)) wordDf.set(w, (wordDf.get(w) ?? 0) + 1);
    }
    for (const [k, ws] of idx.forms) {
      if (ws.length > POLICY_LIMITS.containMaxWords) continue;
      const rarest = ws.reduce((a, b) => ((wordDf.get(b) as number) < (wordDf.get(a) as number) || (wordDf.get(b) === wordDf.get(a) && b < a) ? b : a));
      getOrInsert(idx.byWord, rarest, (): string[] => []).push(k);
    }
    lookupCache.set(vocab, idx);
  }
  return idx;
}

const PREPOSITIONS: ReadonlySet<string> = new Set(["for", "with", "without", "in", "on", "of", "by", "from", "to", "under", "over"]);

/**
 * The head noun, singular: the last content word of an English noun phrase
 * ("salon chair" is a chair), before any prepositional modifier ("desk for
 * kids" is a desk).
 */
export function headWord(words: readonly string[]): string | undefined {
  const cut = words.findIndex((w) => PREPOSITIONS.has(w));
  const phrase = cut > 0 ? words.slice(0, cut) : words;
  const last = [...phrase].reverse().find((w) => !STOPWORDS.has(w)) ?? [...words].reverse().find((w) => !STOPWORDS.has(w));
  return last === undefined ? undefined : singular(last);
}

export interface CandidateInput {
  readonly segments: readonly Segment[];
  /** Words that drive containment and expansion (the query; an item's name, class and category). */
  readonly coreWords: readonly string[];
  /** Optional n-gram prior in [0, 1] (the item side's TF-IDF); n-grams without one are dropped when given. */
  readonly ngramPrior?: ReadonlyMap<string, number>;
  /** The first pass's hints (query side of a hinted round): hint candidates and the hint features. */
  readonly hints?: SearchHints;
  /** Words a spelling correction put in the input (core/typos.ts), singular: the candidates holding one get `corrected`. */
  readonly corrected?: ReadonlySet<string>;
  /** The vocabulary's tail entries of this input's words (core/policy-tail.ts tailWordsOf), in place of vocab.tail. */
  readonly tail?: PolicyTail;
}

const formOf = (k: string) => keywordWords(k).map(singular).join(" ");

/** The candidate keywords of one input, with features, in a deterministic order. */
export function buildCandidates(vocab: PolicyVocabulary, input: CandidateInput): Candidate[] {
  const found = new Map<string, number[]>();
  // Word comparisons use singular forms, so "dining chair" covers "dining chairs".
  const core = new Set(input.coreWords.filter((w) => !STOPWORDS.has(w)).map(singular));
  const coreWords = [...core];
  const allWords = new Set(input.segments.flatMap((s) => s.words.map(singular)));
  const whole = input.segments.length === 1 ? input.segments[0]?.words.join(" ") : undefined;
  const head = headWord(input.coreWords);
  const logN = Math.log(1 + vocab.oppositeCount);
  const lookup = oppositeLookup(vocab);
  // The tail keywords filed under the input's words: a keyword all of whose words the input holds is filed
  // under one of them (its rarest), so n-gram spellings and containment find every one they could use.
  const tail = input.tail ?? vocab.tail;
  const tailKeywords = new Map<string, TailKeyword>();
  const tailForms = new Map<string, string[]>();
  if (tail) {
    for (const w of allWords) {
      for (const t of tail.get(w)?.k ?? []) {
        tailKeywords.set(t[0], t);
        getOrInsert(tailForms, formOf(t[0]), (): string[] => []).push(t[0]);
      }
    }
  }
  const dfOf = (k: string) => vocab.oppositeDf.get(k) ?? tailKeywords.get(k)?.[1] ?? 0;
  const wordsOf = (k: string) => lookup.forms.get(k) ?? keywordWords(k).map(singular);
  // Origins first (cheap), the features that look the keyword up only for the kept candidates (below).
  const get = (k: string) => getOrInsert(found, k, () => new Array<number>(FEATURE_COUNT).fill(0));
  const describe = (k: string, f: number[], spelled: ReadonlyArray<readonly [string, readonly string[]]>) => {
    const ws = wordsOf(k);
    const df = dfOf(k);
    f[F.bias] = 1;
    f[ws.length === 1 ? F.len1 : ws.length === 2 ? F.len2 : F["len3+"]] = 1;
    f[F.specificity] = df > 0 ? 1 - Math.log(1 + df) / logN : 0;
    f[F.unknownOpposite] = df === 0 ? 1 : 0;
    f[F.coverage] = core.size > 0 ? ws.filter((w) => core.has(w)).length / core.size : 0;
    f[F.wholeInput] = k === whole ? 1 : 0;
    f[F.containsHead] = head !== undefined && ws.includes(head) ? 1 : 0;
    // Graded relevance often counts every item of the right product type (WANDS: "Partial"),
    // so the head noun alone ("pillow") and phrases headed by it ("dining table") get their own weights.
    f[F.isHead] = ws.length === 1 && ws[0] === head ? 1 : 0;
    f[F.endsWithHead] = ws.length > 1 && ws[ws.length - 1] === head ? 1 : 0;
    f[F.fullCoverage] = core.size > 0 && coreWords.every((w) => ws.includes(w)) ? 1 : 0;
    if (df > 0) f[df <= 5 ? F.dfUpTo5 : df <= 50 ? F.dfUpTo50 : df <= 500 ? F.dfUpTo500 : F.dfOver500] = 1;
    const profile = vocab.profiles?.get(k) ?? tailKeywords.get(k)?.[2];
    const support = (w: string) => (ws.includes(w) ? 1 : (profile?.find(([x]) => x === w)?.[1] ?? 0));
    f[F.headSupport] = head === undefined ? 0 : support(head);
    f[F.coreSupport] = core.size > 0 ? coreWords.reduce((a, w) => a + support(w), 0) / core.size : 0;
    // Set context for a per-candidate decision: a keyword is subsumed when a longer phrase of the
    // input holding all its words is in the opposite index ("tile" beside a live "subway tile").
    // The broad keyword then mostly adds items the specific one left out on purpose; without a live
    // specific phrase ("tressler rug" is in no item set) the broad one is the query's only recall.
    f[F.subsumed] = spelled.some(([k2, ws2]) => k2 !== k && ws2.length > ws.length && ws.every((w) => ws2.includes(w))) ? 1 : 0;
    f[F.corrected] = input.corrected && ws.some((w) => input.corrected?.has(w)) ? 1 : 0;
  };
  for (const s of input.segments) {
    for (const g of segmentNgrams(s.words, POLICY_LIMITS.maxNgram)) {
      const prior = input.ngramPrior?.get(g);
      if (input.ngramPrior && prior === undefined) continue;
      // The n-gram as written, and the opposite index's other spellings of it ("pillows" → "pillow").
      const form = formOf(g);
      const tailVariants = tailForms.get(form);
      const variants = tailVariants ? [...(lookup.byForm.get(form) ?? []), ...tailVariants] : (lookup.byForm.get(form) ?? []);
      for (const k of variants.includes(g) ? variants : [g, ...variants]) {
        const f = get(k);
        f[F.ngram] = 1;
        f[FIELD_FEATURE[s.field]] = 1;
        if (prior !== undefined) f[F.tfidf] = Math.max(f[F.tfidf] as number, prior);
      }
    }
  }
  // Containment: every word of the keyword in the input, at least one of them a core word.
  const contain = (k: string, ws: readonly string[]) => {
    if (ws.every((x) => allWords.has(x)) && ws.some((x) => core.has(x))) get(k)[F.contain] = 1;
  };
  for (const w of allWords) {
    for (const k of lookup.byWord.get(w) ?? []) contain(k, lookup.forms.get(k) as string[]);
    for (const [k] of tail?.get(w)?.k ?? []) {
      const ws = keywordWords(k).map(singular);
      if (ws.length <= POLICY_LIMITS.containMaxWords) contain(k, ws);
    }
  }
  // Expansions bring what the input does not spell; a keyword it spells keeps its n-gram/containment features only.
  // (Order-free: association is a max, and n-gram/containment flags are all set above.)
  for (const w of coreWords) {
    for (const [k, score] of vocab.expansions.get(w) ?? tail?.get(w)?.e ?? []) {
      const f = get(k);
      f[F.association] = Math.max(f[F.association] as number, score);
      if (f[F.ngram] === 1 || f[F.contain] === 1) continue;
      // An extension spells an input word and adds others ("rug" → "area rug"); an expansion spells none.
      f[wordsOf(k).some((x) => core.has(x)) ? F.extension : F.expansion] = 1;
      if (score >= POLICY_LIMITS.strongAssociation) f[F.strongAssociation] = 1;
    }
  }
  // Hints (§4.5 "+ Search Results"): the keywords the first pass's top items share, and what share of them holds each candidate.
  const hints = input.hints;
  if (hints && hints.k > 0) {
    for (const k of hintKeywords(hints)) get(k)[F.hint] = 1;
    for (const [k, f] of found) {
      f[F.hintShare] = (hints.holders.get(k) ?? 0) / hints.k;
      f[F.hintTop] = hints.top.has(k) ? 1 : 0;
    }
  }
  // Keep the strongest-evidence candidates when there are too many: n-grams, then containment, then association and hints.
  const prior = (f: number[]) =>
    4 * (f[F.ngram] as number) + 2 * (f[F.contain] as number) + (f[F.association] as number) + (f[F.tfidf] as number) + (f[F.hintShare] as number);
  const kept = [...found].sort((a, b) => prior(b[1]) - prior(a[1]) || (a[0] < b[0] ? -1 : 1)).slice(0, POLICY_LIMITS.maxCandidates);
  // The input's own phrases (n-grams, contained keywords) that are in the opposite index, with their words.
  const spelled = kept.filter(([k, f]) => (f[F.ngram] === 1 || f[F.contain] === 1) && dfOf(k) > 0).map(([k]) => [k, wordsOf(k)] as const);
  for (const [k, f] of kept) describe(k, f, spelled);
  return kept.map(([keyword, features]) => ({
    keyword,
    features,
    words: wordsOf(keyword),
    df: dfOf(keyword),
  }));
}

/**
 * The spelling correction a query policy applies to a query: its unknown
 * words against the head keywords' words (core/typos.ts), a word a tail
 * keyword spells left alone (its entry fetched with the query's words).
 */
export function policyCorrection(vocab: PolicyVocabulary, query: string, tail: PolicyTail | undefined = vocab.tail): Correction | null {
  return correctQuery(cachedLexicon(vocab.oppositeDf), query, tail && ((w) => tail.get(w)?.n === 1 || tail.get(singular(w))?.n === 1));
}

/**
 * A query's candidates; with `hints`, those of a hinted round (core/hints.ts).
 * A misspelled query's candidates are its correction's, those holding a
 * corrected word marked (`corrected`), so the policy weighs the evidence.
 */
export function queryCandidates(
  vocab: PolicyVocabulary,
  query: string,
  hints?: SearchHints,
  verbatim = false,
  tail: PolicyTail | undefined = vocab.tail,
): Candidate[] {
  const correction = verbatim ? null : policyCorrection(vocab, query, tail);
  const segments = segmentText("name", correction?.text ?? query);
  return buildCandidates(vocab, {
    segments,
    coreWords: segments.flatMap((s) => s.words),
    ...(hints ? { hints } : {}),
    ...(correction ? { corrected: new Set(correction.words.map(([, c]) => singular(c))) } : {}),
    ...(tail ? { tail } : {}),
  });
}
