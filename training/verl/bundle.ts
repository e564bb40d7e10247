/**
 * `npm run train -- --backend verl`: a complete job bundle in one folder.
 *
 *   bundle.json          format, version, side, round, model, Table 6 as applied, verl version checked
 *   data/*.parquet       verl datasets (datasets.ts, parquet.ts)
 *   cogr_reward.py       the reward shim verl loads (standard-library Python)
 *   reward-service.sh    starts the reward service for this phase
 *   run.sh, run-ray.sh   GRPO on one node, or several through Ray
 *   run-sft-query.sh, run-sft-item.sh   (the SFT bundle instead)
 *   merge.sh, serve.sh   checkpoint → Hugging Face → vllm serve
 */
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EXTRACTOR_DEFAULTS } from "../../core/extract.js";
import { PROMPTS } from "../../core/prompts.js";
import type { Dataset } from "../data/types.js";
import { DATA_LIMITS } from "../lexical-data.js";
import type { RewardSide } from "../reward-service/environment.js";
import type { Round } from "../round-artifact.js";
import { itemRows, queryRows, sftRows, VAL_ROWS, validationSample } from "./datasets.js";
import { VERL_CHECKED } from "./keys.js";
import { effectiveBatch, grpoOverrides, SFT_SETTINGS, sftOverrides, TABLE6 } from "./launch.js";
import { writeRlParquet, writeSftParquet } from "./parquet.js";
import { mergeScript, rayScript, rewardServiceScript, runScript, serveScript, sftScript } from "./scripts.js";

export const BUNDLE_FORMAT = "cogr-verl-bundle";
export const BUNDLE_VERSION = 1;
export const SHIM_SOURCE = join(dirname(fileURLToPath(import.meta.url)), "cogr_reward.py");

export interface BundleOptions {
  readonly out: string;
  /** The model to start from: a Hugging Face id or a merged checkpoint folder. */
  readonly model: string;
  /** The name vLLM serves the result under. */
  readonly servedName: string;
  /** Nodes for run-ray.sh. */
  readonly rayNodes: number;
}

function writeScript(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

const repoRoot = () => resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export function writeGrpoBundle(dataset: Dataset, round: Round, side: RewardSide, opts: BundleOptions): Record<string, unknown> {
  mkdirSync(join(opts.out, "data"), { recursive: true });
  const rows = side === "query" ? queryRows(dataset, round) : itemRows(dataset, round);
  writeRlParquet(join(opts.out, "data", "train.parquet"), rows);
  writeRlParquet(join(opts.out, "data", "val.parquet"), validationSample(rows, VAL_ROWS[side]));
  copyFileSync(SHIM_SOURCE, join(opts.out, "cogr_reward.py"));
  const experiment = `${side}-r${round.manifest.round}`;
  const v = { model: opts.model, servedName: opts.servedName, repo: repoRoot(), side, round: round.manifest.round };
  writeScript(join(opts.out, "run.sh"), runScript(v, grpoOverrides({ side, rows: rows.length, nnodes: 1, experiment })));
  writeScript(join(opts.out, "run-ray.sh"), rayScript(v, grpoOverrides({ side, rows: rows.length, nnodes: opts.rayNodes, experiment })));
  writeScript(join(opts.out, "reward-service.sh"), rewardServiceScript(v));
  writeScript(join(opts.out, "merge.sh"), mergeScript());
  writeScript(join(opts.out, "serve.sh"), serveScript(opts.servedName));
  const single = effectiveBatch(side, rows.length, 1);
  const manifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    kind: "grpo",
    side,
    round: round.manifest.round,
    model: opts.model,
    servedName: opts.servedName,
    rows: rows.length,
    table6: { ...TABLE6[side], ...TABLE6.common },
    applied: { trainBatch: single.batch, microBatchPerGpu: single.microBatchPerGpu, clampedToRows: single.clamped, rayNodes: opts.rayNodes },
    prompts: { format: PROMPTS.format, version: PROMPTS.version },
    verl: VERL_CHECKED,
  };
  writeFileSync(join(opts.out, "bundle.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export function writeSftBundle(dataset: Dataset, round0: Round, opts: BundleOptions): Record<string, unknown> {
  mkdirSync(join(opts.out, "data"), { recursive: true });
  const rows = sftRows(dataset, round0);
  for (const side of ["query", "item"] as const) {
    writeSftParquet(join(opts.out, "data", `sft-${side}-train.parquet`), rows[side]);
    writeSftParquet(join(opts.out, "data", `sft-${side}-val.parquet`), validationSample(rows[side], VAL_ROWS.sft));
    writeScript(
      join(opts.out, `run-sft-${side}.sh`),
      sftScript({ model: opts.model, servedName: opts.servedName, repo: repoRoot() }, side, sftOverrides(side, `sft-${side}`)),
    );
  }
  writeScript(join(opts.out, "merge.sh"), mergeScript());
  writeScript(join(opts.out, "serve.sh"), serveScript(opts.servedName));
  const manifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    kind: "sft",
    round: round0.manifest.round,
    model: opts.model,
    servedName: opts.servedName,
    rows: { query: rows.query.length, item: rows.item.length },
    targets: {
      itemKeywordsM: EXTRACTOR_DEFAULTS.maxKeywords,
      queryTopN: DATA_LIMITS.sftQueryTargets,
      from: `round ${round0.manifest.round}'s extractor keywords, training queries only`,
    },
    settings: SFT_SETTINGS,
    prompts: { format: PROMPTS.format, version: PROMPTS.version },
    verl: VERL_CHECKED,
  };
  writeFileSync(join(opts.out, "bundle.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
