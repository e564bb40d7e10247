/**
 * A worker thread of the item side's data-parallel steps (training/parallel/item-phase.ts),
 * Phase 1's supervised ones or the item phase's GRPO ones:
 * it opens the phase's candidate file, reads App. B.3's shared reward tables,
 * and maps the chunks it is sent (grpo-map.ts), keeping its copy of the
 * item policy current from the weights and keyword-weight updates each step carries.
 */
import { workerData } from "node:worker_threads";
import { newParams } from "../../core/policy-features.js";
import { ItemRewardContext } from "../../core/reward.js";
import type { ItemRewardTables } from "../../core/reward-tables.js";
import { type CandidateFile, openCandidateFile } from "../candidate-store.js";
import { type ChunkTask, mapChunk, type SftTask, sftChunk } from "./grpo-map.js";
import { type PoolWorkerData, serve } from "./pool.js";

export interface ItemWorkerData {
  readonly file: CandidateFile;
  /** App. B.3's reward tables (the item phase), on SharedArrayBuffers: read, never copied; none for Phase 1. */
  readonly reward: ItemRewardTables | null;
  /** The item of each of the file's records, when the phase trains on a sample of the items (record p is item items[p]); else record i is item i. */
  readonly items: readonly number[] | null;
  readonly keywordWeights: ReadonlyArray<readonly [string, number]>;
  readonly groupSize: number;
}

export interface ItemStepMessage {
  readonly weights: Float64Array;
  /** Keyword weights the last step changed. */
  readonly updates: ReadonlyArray<readonly [string, number]>;
  readonly tasks: readonly ChunkTask[];
  readonly sft?: readonly SftTask[];
}

const data = workerData as ItemWorkerData & PoolWorkerData;
const store = openCandidateFile(data.file);
const ctx = data.reward ? new ItemRewardContext(data.reward) : null;
const items = data.items;
const params = newParams();
for (const [k, w] of data.keywordWeights) params.keywordWeights.set(k, w);

serve(data, (m) => {
  const step = m as ItemStepMessage;
  params.weights.set(step.weights);
  for (const [k, w] of step.updates) params.keywordWeights.set(k, w);
  if (step.sft) return step.sft.map((t) => sftChunk(params, (j) => store.get(j), t));
  const reward = ctx;
  if (!reward) throw new Error("a GRPO step sent to a Phase 1 worker (no reward context)");
  return step.tasks.map((t) =>
    mapChunk(
      params,
      (j) => store.get(j),
      (p, k) => reward.reward(items ? (items[p] as number) : p, k),
      t,
      data.groupSize,
    ),
  );
});
