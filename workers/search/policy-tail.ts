/**
 * A large round's query policy reads its vocabulary's tail per query
 * (core/policy-tail.ts): the entries of the query's words, then, when the
 * spelling correction changed it, of the corrected words, from the round's
 * tail buckets in KV (one bulk read each), through a byte-budgeted isolate
 * LRU. The answer is then the trainer's (core/query-generator.ts
 * fetchPolicyTail). A failed read answers from the head alone, marked
 * partial, so that answer is not cached as the round's.
 */

import type { ServingManifest } from "../../core/contract.js";
import { queryDfKey } from "../../core/contract.js";
import type { SearchHints } from "../../core/hints.js";
import { type PolicyTail, type TailWord, tailBucketOf } from "../../core/policy-tail.js";
import { fetchPolicyTail, hasServedTail, loadHintedGenerator, loadQueryCorrector, type PolicyGeneratorSpec } from "../../core/query-generator.js";
import { SERVING_LIMITS } from "./limits.js";
import { kvGetCachedJson } from "./store/kv-store.js";
import { ByteLru } from "./store/lru.js";

type Bucket = Record<string, TailWord>;

export const tailBucketLru = new ByteLru<Bucket>(SERVING_LIMITS.policyTailLruBytes, (key, v) => key.length * 2 + JSON.stringify(v).length * 2 + 64);

/** One query's tail entries, and whether a bucket could not be read (the answer is then the head's alone). */
export interface FetchedTail {
  readonly tail: PolicyTail;
  readonly partial: boolean;
}

export interface TailedPolicy {
  /** The query's tail entries (its words', then its correction's). */
  fetch(query: string, verbatim: boolean): Promise<FetchedTail>;
  /** The keywords and the correction, read with those entries. */
  answer(query: string, hints: SearchHints | undefined, verbatim: boolean, tail: PolicyTail): { keywords: string[]; corrected: string | null };
}

/** The policy with its tail fetched per query, or null when its tail ships inside it or it has none. */
export function tailedPolicy(spec: PolicyGeneratorSpec, kv: KVNamespace, round: ServingManifest): TailedPolicy | null {
  const meta = spec.policy.tail;
  if (!meta || !hasServedTail(spec)) return null;
  const generate = loadHintedGenerator(spec);
  const correct = loadQueryCorrector(spec);
  const keyOf = (word: string) => queryDfKey(round.round, round.contentHash, tailBucketOf(word, meta.buckets));
  return {
    async fetch(query, verbatim) {
      let partial = false;
      const read = async (words: readonly string[]) => {
        const { got, partial: missed } = await kvGetCachedJson(
          kv,
          words.map(keyOf),
          tailBucketLru,
          `round ${round.round}: its query policy's tail could not be read; answering from the policy's head:`,
        );
        partial ||= missed;
        const out = new Map<string, TailWord>();
        for (const w of words) {
          const e = got.get(keyOf(w))?.[w];
          if (e) out.set(w, e);
        }
        return out;
      };
      const tail = await fetchPolicyTail(spec, query, verbatim, read);
      return { tail, partial };
    },
    answer(query, hints, verbatim, tail) {
      return { keywords: generate(query, hints, { verbatim, tail }), corrected: correct(query, { verbatim, tail })?.text ?? null };
    },
  };
}
