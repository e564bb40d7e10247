/**
 * Query suggestions (GET /v1/suggest): what is stored and how typed text
 * matches it. Pure; the publisher builds a round's keyword buckets, the
 * worker's cron builds the popular-query buckets, and the route matches.
 *
 * **Buckets.** A suggestion (a keyword, or a popular query) is filed under
 * the first one and the first two characters of each of its words, and a
 * bucket keeps only its `entriesPerBucket` best entries by score (df for a
 * keyword, distinct users for a query). What the user typed reads the
 * buckets of its words (bucketsOfTyped), so a lookup is a few KV reads of
 * bounded values whatever the catalogue's vocabulary.
 *
 * **Matching.** The typed text, normalised as keywords are (core/normalize.ts),
 * matches a suggestion when its words line up with consecutive words of the
 * suggestion, starting at any word ("chair" finds "accent chair"): every
 * typed word but the last whole, the last as a prefix ("accent ch"). Typos:
 * none in a word of up to 4 characters, one from 5 and two from 9 (optimal
 * string alignment, core/edit-distance.ts), and a word's start must hold:
 * its first two characters, or its first and third (a transposition or an
 * extra letter in second place: "amrchair", "axrmchair"). That rule is what
 * makes the buckets complete: a suggestion that matches is in a bucket the
 * lookup reads (up to the bucket budget).
 */
import { boundedDistance, prefixDistance } from "./edit-distance.js";
import { keywordWords, normalizeKeyword } from "./normalize.js";

export const SUGGEST_FORMAT = "cogr-suggest";
export const SUGGEST_VERSION = 1;

export const SUGGEST_LIMITS = {
  /** Entries a bucket keeps, its best by score. */
  entriesPerBucket: 500,
  /** Buckets one structure keeps at most (those with the best top entry): bounds KV writes for large alphabets. */
  bucketsMax: 5000,
  /** Longer suggestions are not stored. */
  textMaxChars: 80,
  /** What /v1/suggest accepts as q, after trimming. */
  typedMaxChars: 100,
  /** Typed words matched at most (the rest ignored). */
  typedWordsMax: 6,
  /** A word is typo-free up to this many characters ("typo-tolerant after 4 characters"). */
  typoFreeChars: 4,
  /** From this many characters, two typos. */
  twoTyposFromChars: 9,
  limitDefault: 8,
  limitMax: 20,
} as const;

export type SuggestKind = "query" | "keyword";

export interface Suggestion {
  readonly text: string;
  readonly kind: SuggestKind;
}

/** One bucket as stored: entries best first (score descending, then text). */
export interface SuggestBucket {
  readonly format: typeof SUGGEST_FORMAT;
  readonly version: number;
  readonly kind: SuggestKind;
  readonly entries: ReadonlyArray<readonly [text: string, score: number]>;
}

/** A bucket read back: unknown formats and versions are refused. */
export function parseSuggestBucket(value: unknown): SuggestBucket {
  const b = value as Partial<SuggestBucket> | null;
  if (!b || b.format !== SUGGEST_FORMAT || b.version !== SUGGEST_VERSION || !Array.isArray(b.entries)) {
    throw new Error(`unsupported suggestion bucket ${String(b?.format)} v${String(b?.version)}`);
  }
  return b as SuggestBucket;
}

const chars = (w: string) => Array.from(w);

/** The buckets a stored suggestion is filed under: each word's first character and first two. */
export function bucketsOfText(text: string): string[] {
  const out = new Set<string>();
  for (const w of keywordWords(text)) {
    const c = chars(w);
    out.add(c[0] as string);
    out.add(c.slice(0, 2).join(""));
  }
  return [...out];
}

/** Typos a typed word of this length may carry. */
export function typosAllowed(word: string): number {
  const n = chars(word).length;
  return n >= SUGGEST_LIMITS.twoTyposFromChars ? 2 : n > SUGGEST_LIMITS.typoFreeChars ? 1 : 0;
}

/** The starts a suggestion word may have for this typed word (also its buckets): its first two characters, or with typos its first and third. */
export function startsOfTyped(word: string): string[] {
  const c = chars(word);
  if (c.length <= 1) return [word];
  const starts = [c.slice(0, 2).join("")];
  if (typosAllowed(word) > 0 && c[2] !== c[1]) starts.push((c[0] as string) + (c[2] as string));
  return starts;
}

/** Every bucket the typed words read. */
export function bucketsOfTyped(words: readonly string[]): string[] {
  return [...new Set(words.flatMap(startsOfTyped))];
}

/** The typed text as the words that match: normalised, at most typedWordsMax. */
export function typedWords(q: string): string[] {
  return keywordWords(normalizeKeyword(q)).slice(0, SUGGEST_LIMITS.typedWordsMax);
}

/** The typos between a typed word and a suggestion word (as a prefix when `prefix`), or -1 when they do not match. */
export function wordDistance(typed: string, word: string, prefix: boolean): number {
  if (!startsOfTyped(typed).some((s) => word.startsWith(s))) return -1;
  const max = typosAllowed(typed);
  const d = prefix ? prefixDistance(typed, word, max) : boundedDistance(typed, word, max);
  return d > max ? -1 : d;
}

/** How typed words meet a suggestion: the fewest typos over its word positions, and whether that is at its first word; null when none matches. */
export function matchText(typed: readonly string[], text: string): { typos: number; start: number } | null {
  if (typed.length === 0) return null;
  const words = keywordWords(text);
  let best: { typos: number; start: number } | null = null;
  for (let p = 0; p + typed.length <= words.length; p++) {
    let typos = 0;
    for (let i = 0; i < typed.length && typos >= 0; i++) {
      const d = wordDistance(typed[i] as string, words[p + i] as string, i === typed.length - 1);
      typos = d < 0 ? -1 : typos + d;
    }
    if (typos >= 0 && (!best || typos < best.typos)) best = { typos, start: p };
    if (best?.typos === 0) break;
  }
  return best;
}

/**
 * The best `limit` suggestions for the typed words among the buckets read:
 * fewer typos first, then those matching from their first word, then popular
 * queries before keywords, then by score and text. A text offered both as a
 * query and a keyword appears once, as the query.
 */
export function rankSuggestions(typed: readonly string[], buckets: readonly SuggestBucket[], limit: number): Suggestion[] {
  const seen = new Map<string, { text: string; kind: SuggestKind; score: number; typos: number; start: number }>();
  for (const b of buckets) {
    for (const [text, score] of b.entries) {
      const had = seen.get(text);
      if (had && (had.kind === "query" || b.kind === "keyword")) continue;
      const m = matchText(typed, text);
      if (m) seen.set(text, { text, kind: b.kind, score, typos: m.typos, start: m.start });
    }
  }
  const kindOrder = (k: SuggestKind) => (k === "query" ? 0 : 1);
  return [...seen.values()]
    .sort(
      (a, b) =>
        a.typos - b.typos ||
        Number(a.start > 0) - Number(b.start > 0) ||
        kindOrder(a.kind) - kindOrder(b.kind) ||
        b.score - a.score ||
        (a.text < b.text ? -1 : a.text > b.text ? 1 : 0),
    )
    .slice(0, limit)
    .map(({ text, kind }) => ({ text, kind }));
}

const byScore = (a: readonly [string, number], b: readonly [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * Builds one kind's buckets from (text, score) pairs in any order, in memory
 * bounded by the budgets: a bucket holds at most twice its budget between
 * trims. A text is kept once (its best score); empty or over-long texts are skipped.
 */
export class SuggestBuilder {
  private readonly buckets = new Map<string, Array<readonly [string, number]>>();

  constructor(
    readonly kind: SuggestKind,
    private readonly perBucket: number = SUGGEST_LIMITS.entriesPerBucket,
    private readonly maxBuckets: number = SUGGEST_LIMITS.bucketsMax,
  ) {}

  add(text: string, score: number): void {
    if (text === "" || chars(text).length > SUGGEST_LIMITS.textMaxChars || text !== normalizeKeyword(text)) return;
    for (const key of bucketsOfText(text)) {
      const b = this.buckets.get(key) ?? [];
      if (b.length === 0) this.buckets.set(key, b);
      b.push([text, score]);
      if (b.length >= 2 * this.perBucket) this.buckets.set(key, trim(b, this.perBucket));
    }
  }

  /** The buckets, each best first and deduplicated, at most maxBuckets (those whose best entry scores highest). */
  build(): Map<string, SuggestBucket> {
    const done = [...this.buckets].map(([key, b]) => [key, trim(b, this.perBucket)] as const);
    done.sort((a, b) => byScore(a[1][0] as [string, number], b[1][0] as [string, number]) || (a[0] < b[0] ? -1 : 1));
    return new Map(
      done
        .slice(0, this.maxBuckets)
        .map(([key, entries]) => [key, { format: SUGGEST_FORMAT, version: SUGGEST_VERSION, kind: this.kind, entries } satisfies SuggestBucket]),
    );
  }
}

/** A bucket's best `n` entries, one per text. */
function trim(entries: ReadonlyArray<readonly [string, number]>, n: number): Array<readonly [string, number]> {
  const out: Array<readonly [string, number]> = [];
  const seen = new Set<string>();
  for (const e of [...entries].sort(byScore)) {
    if (seen.has(e[0])) continue;
    seen.add(e[0]);
    out.push(e);
    if (out.length === n) break;
  }
  return out;
}
