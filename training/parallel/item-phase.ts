/**
 * The item side's steps, data-parallel (`npm run train -- --workers N`):
 * Phase 1's supervised steps (sftStep) and the item phase's GRPO steps (step).
 * For GRPO,
 * each step's batch is cut into chunks (grpo-map.ts), the chunks are spread
 * over N worker threads (chunk c on worker c mod N) that map them, and this
 * thread reduces their gradient sums in chunk order and takes the Adam step.
 * The workers read the phase's candidate file and App. B.3's reward tables,
 * built once per phase on SharedArrayBuffers (one copy for all); each step
 * sends the dense weights and the keyword weights the previous step moved.
 * Results depend on the seed, never on N.
 */
import type { PolicyParams } from "../../core/policy-features.js";
import type { ItemRewardTables } from "../../core/reward-tables.js";
import type { Rng } from "../../core/rng.js";
import type { CandidateStore } from "../candidate-store.js";
import { type AdamState, adamStep } from "../optimizer.js";
import type { StepStats } from "../phase.js";
import { type ChunkResult, chunkTasks, MAP_DEFAULTS, reduceChunks, type SftTask } from "./grpo-map.js";
import type { ItemStepMessage, ItemWorkerData } from "./item-worker.js";
import { WorkerPool } from "./pool.js";

export class ParallelItemPhase {
  private readonly pool: WorkerPool;
  private updates: Array<[string, number]> = [];

  constructor(
    workers: number,
    private readonly store: CandidateStore,
    reward: ItemRewardTables | null,
    params: PolicyParams,
    private readonly groupSize: number,
    /** The item of each of the store's records, when it holds a sample of the items (training/lexical-phases.ts trainedItems). */
    items: readonly number[] | null = null,
  ) {
    const file = store.file;
    if (!file) throw new Error("a data-parallel item phase needs its candidates in a file (buildCandidateStore with budget 0)");
    const data: ItemWorkerData = { file, reward, items, keywordWeights: [...params.keywordWeights], groupSize };
    this.pool = new WorkerPool(new URL("./item-worker.ts", import.meta.url), workers, () => ({ ...data }));
  }

  step(params: PolicyParams, adam: AdamState, batch: readonly number[], rng: Rng, lr: number): StepStats {
    let candidates = 0;
    for (const i of batch) candidates += this.store.size(i);
    const tasks = chunkTasks(batch, this.groupSize * candidates, rng);
    const n = this.pool.size;
    const messages: ItemStepMessage[] = Array.from({ length: n }, (_, w) => ({
      weights: params.weights,
      updates: this.updates,
      tasks: tasks.filter((t) => t.index % n === w),
    }));
    const results = this.pool.run<ChunkResult[]>(messages).flat();
    const r = reduceChunks(results);
    adamStep(params, adam, r.grad, lr);
    this.updates = [...r.grad.sparse.keys()].map((k) => [k, params.keywordWeights.get(k) ?? 0]);
    return { meanReward: r.meanReward, loss: r.loss, meanKeywords: r.meanKeywords, clippedFraction: r.clippedFraction };
  }

  /**
   * One Phase 1 step on the item side (Alg. 1): the batch in chunks of the
   * map's size, each chunk's cross-entropy gradient summed on a worker, the
   * sums added in chunk order, one Adam step. Returns the batch's mean loss.
   */
  sftStep(params: PolicyParams, adam: AdamState, batch: readonly number[], targets: (item: number) => readonly string[], lr: number): number {
    let decisions = 0;
    for (const i of batch) decisions += this.store.size(i);
    const tasks: SftTask[] = [];
    for (let j = 0; j < batch.length; j += MAP_DEFAULTS.chunkInputs) {
      const items = batch.slice(j, j + MAP_DEFAULTS.chunkInputs);
      tasks.push({ index: tasks.length, items, targets: items.map(targets), batchDecisions: decisions });
    }
    const n = this.pool.size;
    const messages: ItemStepMessage[] = Array.from({ length: n }, (_, w) => ({
      weights: params.weights,
      updates: this.updates,
      tasks: [],
      sft: tasks.filter((t) => t.index % n === w),
    }));
    const r = reduceChunks(this.pool.run<ChunkResult[]>(messages).flat());
    adamStep(params, adam, r.grad, lr);
    this.updates = [...r.grad.sparse.keys()].map((k) => [k, params.keywordWeights.get(k) ?? 0]);
    return r.loss;
  }

  close(): void {
    this.pool.close();
  }
}
