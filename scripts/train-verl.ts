/** `npm run train -- --backend verl …`: writes a verl job bundle (training/verl/bundle.ts). */
import { existsSync, readdirSync } from "node:fs";
import { dataDir, loadDataset, requireLabels } from "../training/data/dataset.js";
import { readRound } from "../training/round-artifact.js";
import { writeGrpoBundle, writeSftBundle } from "../training/verl/bundle.js";
import { intOption, UsageError } from "./cli.js";

export const VERL_DEFAULTS = { model: "Qwen/Qwen3-4B-Instruct-2507", rayNodes: 2 } as const;

export async function writeVerlBundle(args: Record<string, string | boolean | undefined>, usage: string): Promise<void> {
  const side = args.side;
  if (side !== "query" && side !== "item" && side !== "sft") throw new UsageError(`--side must be query, item or sft\nusage: ${usage}`);
  if (typeof args.out !== "string" || args.out === "") throw new UsageError(`--out is required (e.g. jobs/q0)\nusage: ${usage}`);
  if (existsSync(args.out) && readdirSync(args.out).length > 0) throw new UsageError(`${args.out} exists and is not empty: choose another --out`);
  const round = intOption("round", typeof args.round === "string" ? args.round : undefined, 0);
  const model = typeof args.model === "string" ? args.model : VERL_DEFAULTS.model;
  const servedName = typeof args["served-name"] === "string" ? args["served-name"] : `cogr-${side}-r${round}`;
  const rayNodes = intOption("ray-nodes", typeof args["ray-nodes"] === "string" ? args["ray-nodes"] : undefined, VERL_DEFAULTS.rayNodes, 1);
  const dataset = await loadDataset(dataDir());
  requireLabels(dataset, "a verl bundle", "its datasets are the training queries; import the catalogue with --queries and --labels");
  const r = readRound(round);
  const opts = { out: args.out, model, servedName, rayNodes };
  const m = side === "sft" ? writeSftBundle(dataset, r, opts) : writeGrpoBundle(dataset, r, side, opts);
  console.log(
    `verl ${side} bundle for round ${round} written to ${args.out}: ${JSON.stringify(m.rows)} rows; start with ${side === "sft" ? "run-sft-query.sh and run-sft-item.sh" : "reward-service.sh, then run.sh (or run-ray.sh)"}`,
  );
}
