/**
 * Item candidates on worker threads (`--workers N`): the catalogue is cut
 * into N contiguous shards of item ordinals, each worker holding its shard's
 * products and the n-gram df once per run; a phase's candidate store is the
 * workers' files joined in shard order, a decoding pass their decoded sets
 * concatenated. The same stores and sets as one thread builds, whatever N.
 */
import type { PolicyVocabulary } from "../../core/policy-candidates.js";
import type { PolicyParams } from "../../core/policy-features.js";
import { type CandidateFile, type CandidateStore, joinCandidateFiles } from "../candidate-store.js";
import type { TrainData } from "../lexical-data.js";
import type { CandidateMessage, CandidateWorkerData } from "./candidate-worker.js";
import { WorkerPool } from "./pool.js";

export class ParallelCandidates {
  private readonly pool: WorkerPool;

  constructor(data: TrainData, workers: number) {
    const n = data.items.length;
    const shard = (w: number) => [Math.floor((w * n) / workers), Math.floor(((w + 1) * n) / workers)] as const;
    this.pool = new WorkerPool(new URL("./candidate-worker.ts", import.meta.url), workers, (w): CandidateWorkerData & Record<string, unknown> => {
      const [from, to] = shard(w);
      return { products: data.items.slice(from, to).map((it) => it.product), ngramDf: data.ngramDf, itemCount: n };
    });
  }

  /** Every item's candidates against `vocab`, kept where `keep` holds the keyword, in one file. */
  store(vocab: PolicyVocabulary, keep: ReadonlySet<string> | null): CandidateStore {
    const msg: CandidateMessage = { kind: "store", vocab, keep };
    return joinCandidateFiles(this.pool.run<CandidateFile>(Array(this.pool.size).fill(msg)));
  }

  /** Every item's decoded keyword set (core/policy.ts decode). */
  decode(vocab: PolicyVocabulary, params: PolicyParams, kMax: number, minLogit: number): string[][] {
    const msg: CandidateMessage = { kind: "decode", vocab, weights: params.weights, keywordWeights: params.keywordWeights, kMax, minLogit };
    return this.pool.run<string[][]>(Array(this.pool.size).fill(msg)).flat();
  }

  close(): void {
    this.pool.close();
  }
}
