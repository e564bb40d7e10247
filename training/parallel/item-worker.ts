/**
 * A worker thread of the item phase's data-parallel GRPO (training/parallel/item-phase.ts):
 * it opens the phase's candidate file, builds App. B.3's reward context once,
 * and maps the chunks it is sent (grpo-map.ts), keeping its copy of the
 * item policy current from the weights and keyword-weight updates each step carries.
 */
import { workerData } from "node:worker_threads";
import { newParams } from "../../core/policy-features.js";
import { ItemRewardContext, type ItemRewardInput } from "../../core/reward.js";
import { type CandidateFile, openCandidateFile } from "../candidate-store.js";
import { type ChunkTask, mapChunk } from "./grpo-map.js";
import { type PoolWorkerData, serve } from "./pool.js";

export interface ItemWorkerData {
  readonly file: CandidateFile;
  readonly reward: ItemRewardInput;
  readonly keywordWeights: ReadonlyArray<readonly [string, number]>;
  readonly groupSize: number;
}

export interface ItemStepMessage {
  readonly weights: Float64Array;
  /** Keyword weights the last step changed. */
  readonly updates: ReadonlyArray<readonly [string, number]>;
  readonly tasks: readonly ChunkTask[];
}

const data = workerData as ItemWorkerData & PoolWorkerData;
const store = openCandidateFile(data.file);
const ctx = new ItemRewardContext(data.reward);
const params = newParams();
for (const [k, w] of data.keywordWeights) params.keywordWeights.set(k, w);

serve(data, (m) => {
  const step = m as ItemStepMessage;
  params.weights.set(step.weights);
  for (const [k, w] of step.updates) params.keywordWeights.set(k, w);
  return step.tasks.map((t) =>
    mapChunk(
      params,
      (j) => store.get(j),
      (i, k) => ctx.reward(i, k),
      t,
      data.groupSize,
    ),
  );
});
