/**
 * Every verl configuration key a bundle may override, copied from verl's own
 * flattened configuration so that a misspelt key fails a test
 * (test/training/verl-bundle.test.ts), not a GPU job.
 *
 * Checked against volcengine/verl at commit b2df6f8c8c9521fcc4742c40d437be40f48d8b42:
 *   - verl/trainer/config/_generated_ppo_trainer.yaml (main_ppo: GRPO)
 *   - verl/trainer/config/sft_trainer.yaml (fsdp_sft_trainer: SFT)
 * When moving to another verl version, re-read those two files and update
 * this list and VERL_CHECKED together.
 */
export const VERL_CHECKED = {
  repo: "volcengine/verl",
  commit: "b2df6f8c8c9521fcc4742c40d437be40f48d8b42",
  files: ["verl/trainer/config/_generated_ppo_trainer.yaml", "verl/trainer/config/sft_trainer.yaml"],
} as const;

/** Keys of `python3 -m verl.trainer.main_ppo` used by the GRPO bundles. */
export const PPO_KEYS: ReadonlySet<string> = new Set([
  "algorithm.adv_estimator",
  "algorithm.norm_adv_by_std_in_grpo",
  "algorithm.use_kl_in_reward",
  "data.train_files",
  "data.val_files",
  "data.prompt_key",
  "data.reward_fn_key",
  "data.train_batch_size",
  "data.max_prompt_length",
  "data.max_response_length",
  "data.filter_overlong_prompts",
  "data.truncation",
  "data.shuffle",
  "actor_rollout_ref.model.path",
  "actor_rollout_ref.model.use_remove_padding",
  "actor_rollout_ref.model.enable_gradient_checkpointing",
  "actor_rollout_ref.actor.optim.lr",
  "actor_rollout_ref.actor.ppo_mini_batch_size",
  "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
  "actor_rollout_ref.actor.ppo_epochs",
  "actor_rollout_ref.actor.use_kl_loss",
  "actor_rollout_ref.actor.entropy_coeff",
  "actor_rollout_ref.actor.fsdp_config.param_offload",
  "actor_rollout_ref.actor.fsdp_config.optimizer_offload",
  "actor_rollout_ref.rollout.name",
  "actor_rollout_ref.rollout.n",
  "actor_rollout_ref.rollout.temperature",
  "actor_rollout_ref.rollout.top_p",
  "actor_rollout_ref.rollout.top_k",
  "actor_rollout_ref.rollout.tensor_model_parallel_size",
  "actor_rollout_ref.rollout.gpu_memory_utilization",
  "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
  "actor_rollout_ref.rollout.val_kwargs.temperature",
  "actor_rollout_ref.rollout.val_kwargs.top_p",
  "actor_rollout_ref.rollout.val_kwargs.top_k",
  "actor_rollout_ref.rollout.val_kwargs.do_sample",
  "actor_rollout_ref.rollout.val_kwargs.n",
  "reward_model.reward_manager",
  "custom_reward_function.path",
  "custom_reward_function.name",
  "trainer.project_name",
  "trainer.experiment_name",
  "trainer.logger",
  "trainer.n_gpus_per_node",
  "trainer.nnodes",
  "trainer.total_epochs",
  "trainer.save_freq",
  "trainer.test_freq",
  "trainer.val_before_train",
  "trainer.default_local_dir",
  "trainer.resume_mode",
]);

/** Keys of `torchrun -m verl.trainer.fsdp_sft_trainer` used by the SFT bundle. */
export const SFT_KEYS: ReadonlySet<string> = new Set([
  "data.train_files",
  "data.val_files",
  "data.prompt_key",
  "data.response_key",
  "data.train_batch_size",
  "data.micro_batch_size_per_gpu",
  "data.max_length",
  "data.truncation",
  "model.partial_pretrain",
  "model.enable_gradient_checkpointing",
  "optim.lr",
  "trainer.default_local_dir",
  "trainer.project_name",
  "trainer.experiment_name",
  "trainer.logger",
  "trainer.total_epochs",
  "trainer.nnodes",
  "trainer.n_gpus_per_node",
]);
