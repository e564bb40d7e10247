/**
 * The paper's Table 6 as verl overrides, and the bundle's shell scripts.
 * Each override is one `key=value` line, checked against keys.ts by the
 * tests. Values that depend on the cluster (model path, checkpoint folder,
 * reward service) are shell variables with defaults the bundle records.
 */
import { DECODING } from "../../core/prompts.js";
import type { RewardSide } from "../reward-service/environment.js";

/** App. B.2, Table 6 (query and item side). */
export const TABLE6 = {
  query: { trainBatch: 512, miniBatch: 512, microBatchPerGpu: 64, epochs: 10 },
  item: { trainBatch: 256, miniBatch: 256, microBatchPerGpu: 32, epochs: 5 },
  common: { lr: 1e-6, rolloutN: 8, gpusPerNode: 8, maxResponseTokens: 512, maxPromptTokens: 1024 },
} as const;

/** Our SFT settings (the paper gives none): verl's SFT defaults, with the batch of the item side. */
export const SFT_SETTINGS = { trainBatch: 256, microBatchPerGpu: 8, maxLengthTokens: 2048, lr: 1e-5, epochs: 3 } as const;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Table 6's batch, or, when the training set is smaller (WANDS has ~400
 * training queries, Table 6 asks 512), the largest batch verl accepts: each
 * GPU's share of batch × n rollouts must divide into micro-batches. Only a
 * toy set (fewer rows than one micro-batch per GPU allows) also shrinks the
 * micro-batch, to the largest divisor of a GPU's share.
 */
export function effectiveBatch(side: RewardSide, rows: number, nnodes: number): { batch: number; microBatchPerGpu: number; clamped: boolean } {
  const t = TABLE6[side];
  const n = TABLE6.common.rolloutN;
  const gpus = TABLE6.common.gpusPerNode * nnodes;
  if (rows >= t.trainBatch) return { batch: t.trainBatch, microBatchPerGpu: t.microBatchPerGpu, clamped: false };
  const unit = (gpus * t.microBatchPerGpu) / gcd(n, gpus * t.microBatchPerGpu);
  const batch = Math.floor(rows / unit) * unit;
  if (batch > 0) return { batch, microBatchPerGpu: t.microBatchPerGpu, clamped: true };
  const step = gpus / gcd(n, gpus);
  const small = Math.floor(rows / step) * step;
  if (small === 0) throw new Error(`${rows} ${side} rows cannot fill one rollout per GPU on ${gpus} GPUs`);
  const share = (small * n) / gpus;
  let micro = Math.min(t.microBatchPerGpu, share);
  while (share % micro !== 0) micro--;
  return { batch: small, microBatchPerGpu: micro, clamped: true };
}

export interface GrpoJob {
  readonly side: RewardSide;
  readonly rows: number;
  readonly nnodes: number;
  readonly experiment: string;
}

/** `python3 -m verl.trainer.main_ppo` overrides, in order. */
export function grpoOverrides(job: GrpoJob): Array<readonly [string, string]> {
  const t = TABLE6[job.side];
  const c = TABLE6.common;
  const { batch, microBatchPerGpu } = effectiveBatch(job.side, job.rows, job.nnodes);
  const v = DECODING.indexing;
  const r = DECODING.rollout;
  const stepsPerEpoch = Math.max(1, Math.floor(job.rows / batch));
  return [
    ["algorithm.adv_estimator", "grpo"],
    ["algorithm.norm_adv_by_std_in_grpo", "True"],
    ["algorithm.use_kl_in_reward", "False"],
    ["data.train_files", "$BUNDLE/data/train.parquet"],
    ["data.val_files", "$BUNDLE/data/val.parquet"],
    ["data.prompt_key", "prompt"],
    ["data.reward_fn_key", "data_source"],
    ["data.train_batch_size", String(batch)],
    ["data.max_prompt_length", String(c.maxPromptTokens)],
    ["data.max_response_length", String(c.maxResponseTokens)],
    ["data.filter_overlong_prompts", "True"],
    ["data.truncation", "error"],
    ["data.shuffle", "True"],
    ["actor_rollout_ref.model.path", "$MODEL_PATH"],
    ["actor_rollout_ref.model.use_remove_padding", "True"],
    ["actor_rollout_ref.model.enable_gradient_checkpointing", "True"],
    ["actor_rollout_ref.actor.optim.lr", String(c.lr)],
    // Mini-batch = batch: one on-policy update per step (Table 6; counted in prompts).
    ["actor_rollout_ref.actor.ppo_mini_batch_size", String(Math.min(t.miniBatch, batch))],
    ["actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", String(microBatchPerGpu)],
    ["actor_rollout_ref.actor.ppo_epochs", "1"],
    ["actor_rollout_ref.actor.use_kl_loss", "False"],
    ["actor_rollout_ref.actor.entropy_coeff", "0"],
    ["actor_rollout_ref.actor.fsdp_config.param_offload", "False"],
    ["actor_rollout_ref.actor.fsdp_config.optimizer_offload", "False"],
    ["actor_rollout_ref.rollout.name", "vllm"],
    ["actor_rollout_ref.rollout.n", String(c.rolloutN)],
    ["actor_rollout_ref.rollout.temperature", String(r.temperature)],
    ["actor_rollout_ref.rollout.top_p", String(r.top_p)],
    ["actor_rollout_ref.rollout.top_k", String(r.top_k)],
    ["actor_rollout_ref.rollout.tensor_model_parallel_size", "$ROLLOUT_TP"],
    ["actor_rollout_ref.rollout.gpu_memory_utilization", "0.6"],
    ["actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu", String(microBatchPerGpu)],
    ["actor_rollout_ref.rollout.val_kwargs.temperature", String(v.temperature)],
    ["actor_rollout_ref.rollout.val_kwargs.top_p", String(v.top_p)],
    ["actor_rollout_ref.rollout.val_kwargs.top_k", String(v.top_k)],
    ["actor_rollout_ref.rollout.val_kwargs.do_sample", "True"],
    ["actor_rollout_ref.rollout.val_kwargs.n", "1"],
    // The shim scores a whole batch per request (the per-sample manager works too).
    ["reward_model.reward_manager", "batch"],
    ["custom_reward_function.path", "$BUNDLE/cogr_reward.py"],
    ["custom_reward_function.name", "compute_score"],
    ["trainer.project_name", "cogr"],
    ["trainer.experiment_name", job.experiment],
    ["trainer.logger", "[console]"],
    ["trainer.n_gpus_per_node", String(c.gpusPerNode)],
    ["trainer.nnodes", String(job.nnodes)],
    ["trainer.total_epochs", String(t.epochs)],
    ["trainer.save_freq", String(stepsPerEpoch)],
    ["trainer.test_freq", String(stepsPerEpoch)],
    ["trainer.val_before_train", "True"],
    ["trainer.default_local_dir", "$CHECKPOINT_DIR"],
    ["trainer.resume_mode", "auto"],
  ];
}

/** `torchrun -m verl.trainer.fsdp_sft_trainer` overrides for one side's SFT. */
export function sftOverrides(side: RewardSide, experiment: string): Array<readonly [string, string]> {
  const s = SFT_SETTINGS;
  return [
    ["data.train_files", `$BUNDLE/data/sft-${side}-train.parquet`],
    ["data.val_files", `$BUNDLE/data/sft-${side}-val.parquet`],
    ["data.prompt_key", "prompt"],
    ["data.response_key", "response"],
    ["data.train_batch_size", String(s.trainBatch)],
    ["data.micro_batch_size_per_gpu", String(s.microBatchPerGpu)],
    ["data.max_length", String(s.maxLengthTokens)],
    ["data.truncation", "error"],
    ["model.partial_pretrain", "$MODEL_PATH"],
    ["model.enable_gradient_checkpointing", "True"],
    ["optim.lr", String(s.lr)],
    ["trainer.default_local_dir", `$CHECKPOINT_DIR/sft-${side}`],
    ["trainer.project_name", "cogr"],
    ["trainer.experiment_name", experiment],
    ["trainer.logger", "[console]"],
    ["trainer.total_epochs", String(s.epochs)],
    ["trainer.nnodes", "1"],
    ["trainer.n_gpus_per_node", String(TABLE6.common.gpusPerNode)],
  ];
}

/** Override lines as a shell continuation; values with shell variables stay double-quoted so they expand. */
export function overrideLines(list: ReadonlyArray<readonly [string, string]>): string {
  return list.map(([k, v]) => `  ${k}="${v}"`).join(" \\\n");
}

/** The key=value overrides a script passes (the inverse of overrideLines), for the key-list test. */
export function parseOverrides(script: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const m of script.matchAll(/^ {2}\+?([a-z_][a-z0-9_.]*)="([^"]*)"/gm)) out.push([m[1] as string, m[2] as string]);
  return out;
}
