/**
 * A worker thread that builds item candidates (core/policy-candidates.ts)
 * for its shard of the catalogue, a contiguous range of item ordinals whose
 * products it holds with the catalogue's n-gram df: either packed into a
 * file of its own (a phase's candidate store) or decoded by the item policy
 * (a decoding pass). Each item's candidates are a pure function of the item
 * and the vocabulary, so the shards change nothing.
 */
import { workerData } from "node:worker_threads";
import { decode } from "../../core/policy.js";
import type { PolicyVocabulary } from "../../core/policy-candidates.js";
import { newParams } from "../../core/policy-features.js";
import { writeCandidateFile } from "../candidate-store.js";
import { type ProductShard, shardProducts } from "../data/product-file.js";
import type { Product } from "../data/types.js";
import { candidateInputOf, keptCandidates } from "../lexical-data.js";
import { type PoolWorkerData, serve } from "./pool.js";

export interface CandidateWorkerData {
  /** The shard's products: items first, first + 1, …; or where their lines are (training/data/product-file.ts). */
  readonly products?: readonly Product[];
  readonly shard?: ProductShard;
  readonly first: number;
  readonly ngramDf: ReadonlyMap<string, number>;
  readonly itemCount: number;
}

export type CandidateMessage =
  | {
      readonly kind: "store";
      readonly vocab: PolicyVocabulary;
      readonly keep: ReadonlySet<string> | null;
      /** The shard's items to store (item ordinals, in order), or all of them. */
      readonly items: readonly number[] | null;
    }
  | {
      readonly kind: "decode";
      readonly vocab: PolicyVocabulary;
      readonly keep: ReadonlySet<string> | null;
      /** The shard's items [from, to) (places in the shard): a pass is sent in slices, each answered well within the pool's reply timeout. */
      readonly from: number;
      readonly to: number;
      readonly weights: Float64Array;
      readonly keywordWeights: ReadonlyMap<string, number>;
      readonly kMax: number;
      readonly minLogit: number;
    };

const data = workerData as CandidateWorkerData & PoolWorkerData;
const held = data.products ?? [];
const products = data.shard ? shardProducts(data.shard) : { count: held.length, product: (j: number) => held[j] as Product };

serve(data, (m) => {
  const msg = m as CandidateMessage;
  // j: the item's place in this shard.
  const build = (j: number) => keptCandidates(msg.vocab, candidateInputOf(products.product(j), data.ngramDf, data.itemCount), msg.keep);
  if (msg.kind === "store") {
    const items = msg.items;
    return items ? writeCandidateFile(items.length, (p) => build((items[p] as number) - data.first)) : writeCandidateFile(products.count, build);
  }
  const params = newParams();
  params.weights.set(msg.weights);
  for (const [k, w] of msg.keywordWeights) params.keywordWeights.set(k, w);
  const out: string[][] = [];
  for (let j = msg.from; j < Math.min(msg.to, products.count); j++) out.push(decode(params, build(j), msg.kMax, msg.minLogit));
  return out;
});
