/**
 * Round 0's keyword extractor: the stand-in for what Alg. 1's base model G_0
 * would emit. It scores the n-grams of an item's (or query's) text by
 * weighted TF × IDF against the catalogue and keeps the best M (= 10, §3.3).
 *
 * N-grams never cross a segment boundary (a category level, a feature value,
 * a sentence), never start or end with a stop word and are never bare
 * numbers. An n-gram found in only one item cannot make that item share a
 * keyword with anything, so item keywords need df ≥ 2.
 */
import { keywordWords, normalizeKeyword } from "./normalize.js";

export const EXTRACTOR_DEFAULTS = {
  maxKeywords: 10,
  maxNgram: 3,
  minItemDf: 2,
  fieldWeights: { name: 3, class: 2.5, category: 1.5, features: 1, description: 1 },
} as const;

export type FieldName = keyof typeof EXTRACTOR_DEFAULTS.fieldWeights;

export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be but by for from has have in into is it its of on or that the this to was were will with " +
    "your you our we can not no all any each other more most very so than too up out over under about also only just " +
    "etc per via use used using ideal perfect great make makes made one two"
  ).split(" "),
);

export interface ItemText {
  readonly name: string;
  readonly class?: string;
  readonly category?: string;
  readonly features?: ReadonlyArray<readonly [string, string]>;
  readonly description?: string;
}

export interface Segment {
  readonly field: FieldName;
  readonly words: readonly string[];
}

const BOUNDARY = /[.,;:!?()[\]{}|/\n\r\t]+/;

/** Splits text at punctuation that ends a phrase, then normalises each piece into words. */
export function segmentText(field: FieldName, text: string | undefined): Segment[] {
  if (!text) return [];
  const out: Segment[] = [];
  for (const piece of text.split(BOUNDARY)) {
    const words = keywordWords(normalizeKeyword(piece));
    if (words.length > 0) out.push({ field, words });
  }
  return out;
}

export function itemSegments(item: ItemText): Segment[] {
  return [
    ...segmentText("name", item.name),
    ...segmentText("class", item.class),
    ...segmentText("category", item.category),
    ...(item.features ?? []).flatMap(([, v]) => segmentText("features", v)),
    ...segmentText("description", item.description),
  ];
}

const NUMERIC = /^[0-9]+$/;

/** The candidate n-grams of one segment, as normalised keywords, with repeats. */
export function segmentNgrams(words: readonly string[], maxN: number): string[] {
  const out: string[] = [];
  for (let n = 1; n <= maxN; n++) {
    for (let s = 0; s + n <= words.length; s++) {
      const first = words[s] as string;
      const last = words[s + n - 1] as string;
      if (STOPWORDS.has(first) || STOPWORDS.has(last) || NUMERIC.test(first) || NUMERIC.test(last)) continue;
      if (first.length < 2 && n === 1) continue;
      out.push(words.slice(s, s + n).join(" "));
    }
  }
  return out;
}

/** Document frequency of every candidate n-gram over a catalogue of segmented items. */
export function ngramDocumentFrequencies(items: Iterable<readonly Segment[]>, maxN: number = EXTRACTOR_DEFAULTS.maxNgram): Map<string, number> {
  const df = new Map<string, number>();
  for (const segs of items) countItemNgrams(df, segs, maxN);
  return df;
}

/** Adds one item's distinct candidate n-grams to a df table (a streamed catalogue counts item by item). */
export function countItemNgrams(df: Map<string, number>, segs: readonly Segment[], maxN: number = EXTRACTOR_DEFAULTS.maxNgram): void {
  const seen = new Set<string>();
  for (const s of segs) for (const g of segmentNgrams(s.words, maxN)) seen.add(g);
  for (const g of seen) df.set(g, (df.get(g) ?? 0) + 1);
}

/** What the extractor asks of a df table. */
export type DfLookup = Pick<ReadonlyMap<string, number>, "get">;

export interface ExtractorOptions {
  readonly maxKeywords?: number;
  readonly maxNgram?: number;
  /** N-grams with a smaller catalogue df are never chosen. */
  readonly minDf?: number;
}

/**
 * Top-M n-grams by Σ(field weight × count) × idf, idf = ln(N / df).
 * Ties go to the longer n-gram, then to code-unit order, so output is deterministic.
 */
export function extractKeywords(segments: readonly Segment[], df: DfLookup, itemCount: number, opts: ExtractorOptions = {}): string[] {
  return scoreNgrams(segments, df, itemCount, opts)
    .slice(0, opts.maxKeywords ?? EXTRACTOR_DEFAULTS.maxKeywords)
    .map(([g]) => g);
}

/** Every eligible n-gram with its Σ(field weight × count) × idf score, best first. */
export function scoreNgrams(
  segments: readonly Segment[],
  df: DfLookup,
  itemCount: number,
  opts: Omit<ExtractorOptions, "maxKeywords"> = {},
): Array<[string, number]> {
  const maxN = opts.maxNgram ?? EXTRACTOR_DEFAULTS.maxNgram;
  const minDf = opts.minDf ?? EXTRACTOR_DEFAULTS.minItemDf;
  const tf = new Map<string, number>();
  for (const s of segments) {
    const w = EXTRACTOR_DEFAULTS.fieldWeights[s.field];
    for (const g of segmentNgrams(s.words, maxN)) tf.set(g, (tf.get(g) ?? 0) + w);
  }
  const scored: Array<[string, number]> = [];
  for (const [g, t] of tf) {
    const d = df.get(g) ?? 0;
    if (d < minDf) continue;
    scored.push([g, t * Math.log(Math.max(itemCount, d) / d + 1)]);
  }
  return scored.sort((a, b) => b[1] - a[1] || b[0].split(" ").length - a[0].split(" ").length || (a[0] < b[0] ? -1 : 1));
}
