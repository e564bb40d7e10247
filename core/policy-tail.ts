/**
 * A lexical policy's tail: what its vocabulary (core/policy-candidates.ts)
 * holds past the head budgets (training/vocabulary.ts VOCAB_BUDGETS), the
 * rare keywords of the opposite index and the rare words' expansions. The
 * head ships inside the policy; the tail ships apart, keyed by word, so a
 * query reads the entries of its own words only: in the worker, a KV bucket
 * read per query (workers/search/policy-tail.ts), as the extractor's df tail
 * is; in the trainer, the same entries from the whole table in memory.
 *
 * Every use of the tail goes through the entries of the input's words
 * (`tailWordsOf`), so a keyword the trainer holds but the query's words do not
 * reach is unknown to both sides alike: trainer and worker decide the same.
 */
import { segmentText } from "./extract.js";
import { singular } from "./morph.js";
import { keywordWords, normalizeKeyword } from "./normalize.js";
import { bucketOf } from "./shard.js";

/** A tail keyword, its df in the opposite index and its profile (PolicyVocabulary.profiles). */
export type TailKeyword = readonly [keyword: string, df: number, profile: ReadonlyArray<readonly [string, number]>];

/** One word's tail entry (short keys: the entries ship in KV buckets). */
export interface TailWord {
  /** Tail keywords of ≤ POLICY_LIMITS.containMaxWords words filed under this word (singular), the rarest of theirs. */
  readonly k?: readonly TailKeyword[];
  /** The word's expansions and extensions when it is not among the head words (keywords of the head). */
  readonly e?: ReadonlyArray<readonly [string, number]>;
  /** A tail keyword spells this word as written: the spelling correction leaves it alone (core/typos.ts). */
  readonly n?: 1;
}

/** Word → entry: the whole tail (trainer) or the entries a query fetched (worker). */
export type PolicyTail = ReadonlyMap<string, TailWord>;

export const POLICY_TAIL_LIMITS = {
  /** Bytes of JSON a bucket holds on average (KV values; a query reads one bucket per word). */
  bucketBytes: 64 * 1024,
} as const;

export const tailBucketOf = (word: string, buckets: number) => bucketOf(word, buckets);

/**
 * The words whose entries a text's candidates and its spelling correction
 * read: each word as written and singular, as segmented
 * (core/extract.ts) and as the corrector splits it (core/typos.ts).
 */
export function tailWordsOf(text: string): string[] {
  const out = new Set<string>();
  const add = (w: string) => {
    out.add(w);
    out.add(singular(w));
  };
  for (const s of segmentText("name", text)) for (const w of s.words) add(w);
  for (const w of keywordWords(normalizeKeyword(text))) add(w);
  return [...out];
}

/** The entries of `words` that `tail` holds: what a worker fetches for them. */
export function tailSlice(tail: PolicyTail, words: Iterable<string>): Map<string, TailWord> {
  const out = new Map<string, TailWord>();
  for (const w of words) {
    const e = tail.get(w);
    if (e) out.set(w, e);
  }
  return out;
}

/** How many buckets a tail ships in: about `bytesPerBucket` of JSON each. */
export function tailBucketCount(entries: ReadonlyArray<readonly [string, TailWord]>, bytesPerBucket: number = POLICY_TAIL_LIMITS.bucketBytes): number {
  const bytes = entries.reduce((a, [w, e]) => a + w.length + JSON.stringify(e).length + 4, 0);
  return Math.max(1, Math.ceil(bytes / bytesPerBucket));
}

/** The tail's entries in `buckets` values (word → entry), each word in bucket tailBucketOf(word). */
export function tailBuckets(entries: Iterable<readonly [string, TailWord]>, buckets: number): Array<Record<string, TailWord>> {
  const out: Array<Record<string, TailWord>> = Array.from({ length: buckets }, () => ({}));
  for (const [w, e] of entries) (out[tailBucketOf(w, buckets)] as Record<string, TailWord>)[w] = e;
  return out;
}
