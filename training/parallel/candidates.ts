/**
 * Item candidates on worker threads (`--workers N`): the catalogue is cut
 * into N contiguous shards of item ordinals, each worker holding its shard's
 * products (or, when their text is on disk, where their lines are) and the
 * n-gram df once per run; a phase's candidate store is the
 * workers' files joined in shard order, a decoding pass their decoded sets
 * concatenated. The same stores and sets as one thread builds, whatever N.
 */
import type { PolicyVocabulary } from "../../core/policy-candidates.js";
import type { PolicyParams } from "../../core/policy-features.js";
import { type CandidateFile, type CandidateStore, joinCandidateFiles } from "../candidate-store.js";
import { storedShard } from "../data/product-file.js";
import type { TrainData } from "../lexical-data.js";
import type { CandidateMessage, CandidateWorkerData } from "./candidate-worker.js";
import { WorkerPool } from "./pool.js";

/** Items a worker decodes per message (about 10 s of CPU at 0.5 ms an item). */
export const CANDIDATE_SLICE = { decodeItems: 20_000 } as const;

export class ParallelCandidates {
  private readonly pool: WorkerPool;
  /** Worker w holds items [bounds[w], bounds[w + 1]). */
  private readonly bounds: number[];

  constructor(data: TrainData, workers: number) {
    const n = data.items.length;
    this.bounds = Array.from({ length: workers + 1 }, (_, w) => Math.floor((w * n) / workers));
    this.pool = new WorkerPool(new URL("./candidate-worker.ts", import.meta.url), workers, (w): CandidateWorkerData & Record<string, unknown> => {
      const [from, to] = [this.bounds[w] as number, this.bounds[w + 1] as number];
      const products = data.items.slice(from, to).map((it) => it.product);
      // Products whose text is on disk go as their lines' places: the worker reads them itself.
      const shard = storedShard(products);
      return { ...(shard ? { shard } : { products }), first: from, ngramDf: data.ngramDf, itemCount: n };
    });
  }

  /**
   * Every item's candidates against `vocab` (or those of `items`, item
   * ordinals in order: each worker stores its shard's), kept where `keep`
   * holds the keyword, in one file.
   */
  store(vocab: PolicyVocabulary, keep: ReadonlySet<string> | null, items: readonly number[] | null = null): CandidateStore {
    const msgs = Array.from({ length: this.pool.size }, (_, w): CandidateMessage => {
      const [from, to] = [this.bounds[w] as number, this.bounds[w + 1] as number];
      return { kind: "store", vocab, keep, items: items ? items.filter((i) => i >= from && i < to) : null };
    });
    return joinCandidateFiles(this.pool.run<CandidateFile>(msgs));
  }

  /** Every item's decoded keyword set (core/policy.ts decode) over its candidates that `keep` holds (all without it). */
  decode(
    vocab: PolicyVocabulary,
    params: PolicyParams,
    kMax: number,
    minLogit: number,
    keep: ReadonlySet<string> | null = null,
    slice: number = CANDIDATE_SLICE.decodeItems,
  ): string[][] {
    // In slices of each shard: at 1M items a whole shard's pass is minutes of CPU, past the pool's reply timeout on a busy machine.
    const shards = Array.from({ length: this.pool.size }, (): string[][][] => []);
    const largest = Math.max(...this.bounds.slice(1).map((b, w) => b - (this.bounds[w] as number)));
    for (let from = 0; from < largest; from += slice) {
      const msg: CandidateMessage = {
        kind: "decode",
        vocab,
        keep,
        weights: params.weights,
        keywordWeights: params.keywordWeights,
        kMax,
        minLogit,
        from,
        to: from + slice,
      };
      this.pool.run<string[][]>(Array(this.pool.size).fill(msg)).forEach((sets, w) => {
        shards[w]?.push(sets);
      });
    }
    return shards.flatMap((slices) => slices.flat());
  }

  close(): void {
    this.pool.close();
  }
}
