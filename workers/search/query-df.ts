/**
 * The df tail of a large round's extractor (core/query-generator.ts): the
 * generator ships only the df of its most frequent keywords, so what an
 * isolate parses stays bounded whatever the catalogue's vocabulary. A query's
 * other n-grams are looked up in the round's df buckets in KV, all in one bulk
 * read, through a byte-budgeted isolate LRU. A failed read leaves the head
 * alone: the search still answers, from the keywords the head knows, and that
 * answer is not cached.
 */

import type { ServingManifest } from "../../core/contract.js";
import { queryDfKey } from "../../core/contract.js";
import { dfBucketOf, type ExtractorGeneratorSpec, extractorCorrection, extractorGenerator, extractorTailTerms, specDf } from "../../core/query-generator.js";
import { SERVING_LIMITS } from "./limits.js";
import { kvGetCachedJson } from "./store/kv-store.js";
import { ByteLru } from "./store/lru.js";

export const dfBucketLru = new ByteLru<Record<string, number>>(SERVING_LIMITS.dfBucketLruBytes, (key, v) => key.length * 2 + JSON.stringify(v).length * 2 + 64);

/** The keywords, and the spelling correction the extractor applied (core/typos.ts: a word the fetched tail holds is left alone). */
export type AsyncGenerator = (query: string, verbatim: boolean) => Promise<{ keywords: string[]; corrected: string | null; partial?: boolean }>;

/** The extractor with its df tail fetched per query, or null when the extractor has no tail. */
export function tailedExtractor(spec: ExtractorGeneratorSpec, kv: KVNamespace, round: ServingManifest): AsyncGenerator | null {
  if (!spec.tail) return null;
  const head = specDf(spec);
  const generate = extractorGenerator(spec, head);
  const buckets = spec.tail.buckets;
  return async (query, verbatim) => {
    const terms = extractorTailTerms(spec, head, query);
    const { got, partial } = await kvGetCachedJson(
      kv,
      terms.map((t) => queryDfKey(round.round, round.contentHash, dfBucketOf(t, buckets))),
      dfBucketLru,
      `round ${round.round}: its query df could not be read; answering from the generator's head:`,
    );
    const tail = new Map<string, number>();
    for (const t of terms) {
      const df = got.get(queryDfKey(round.round, round.contentHash, dfBucketOf(t, buckets)))?.[t];
      if (df !== undefined) tail.set(t, df);
    }
    // A bucket that could not be read: the answer is the head's alone (not cached as the round's).
    return {
      keywords: generate(query, tail, verbatim),
      corrected: extractorCorrection(head, query, tail, verbatim)?.text ?? null,
      ...(partial ? { partial } : {}),
    };
  };
}
