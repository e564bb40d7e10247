/** The --local / --remote [--env E] [--state DIR] options shared by publish and unpublish. */

import { type DeployConfig, readDeployConfig } from "../../publish/node/deploy-config.js";
import { DEFAULT_STATE_DIR, localTarget, type OpenTarget, wranglerTarget } from "../../publish/node/targets.js";
import { intOption, parseCli, UsageError } from "../cli.js";

export interface TargetChoice {
  readonly round: number;
  readonly mode: "local" | "remote";
  readonly stateDir: string;
  readonly config: DeployConfig;
  /** Write through the wrangler CLI even locally (what --remote always does). */
  readonly viaWrangler: boolean;
  /** publish only: write every row, building on no published round. */
  readonly full: boolean;
  /** publish only, local state only: a round N published with other content is unpublished first. */
  readonly replace: boolean;
  /** Remote changes without asking (CI). */
  readonly yes: boolean;
  /** publish only: print the plan (pending migrations, rows per database) and write nothing. */
  readonly dryRun: boolean;
  /** Take the publish lock from a holder that looks alive (publish/lock.ts). */
  readonly breakLock: boolean;
}

export function parseTargetArgs(usage: string, command: "publish" | "unpublish" = "publish"): TargetChoice {
  const args = parseCli(
    {
      round: { type: "string" },
      local: { type: "boolean" },
      remote: { type: "boolean" },
      env: { type: "string" },
      config: { type: "string" },
      state: { type: "string" },
      "via-wrangler": { type: "boolean" },
      full: { type: "boolean" },
      replace: { type: "boolean" },
      yes: { type: "boolean" },
      "dry-run": { type: "boolean" },
      "break-lock": { type: "boolean" },
    },
    usage,
  );
  if (args.round === undefined) throw new UsageError(`--round is required\nusage: ${usage}`);
  if (args.local && args.remote) throw new UsageError("choose one of --local and --remote");
  if (args.env && !args.remote) throw new UsageError("--env goes with --remote (local state has no environments)");
  if (args.replace && args.remote) throw new UsageError("--replace is for local state only: on shared state a round's number names its content");
  if (command === "unpublish" && (args.full || args.replace || args["dry-run"]))
    throw new UsageError(`--full, --replace and --dry-run are publish options\nusage: ${usage}`);
  const mode = args.remote ? "remote" : "local";
  return {
    round: intOption("round", args.round, 0),
    mode,
    stateDir: args.state ?? DEFAULT_STATE_DIR,
    config: readDeployConfig(args.env, args.config ?? "wrangler.toml"),
    viaWrangler: mode === "remote" || Boolean(args["via-wrangler"]),
    full: Boolean(args.full),
    replace: Boolean(args.replace),
    yes: Boolean(args.yes),
    dryRun: Boolean(args["dry-run"]),
    breakLock: Boolean(args["break-lock"]),
  };
}

export async function openTarget(choice: TargetChoice): Promise<OpenTarget> {
  return choice.viaWrangler ? wranglerTarget(choice.config, { mode: choice.mode, stateDir: choice.stateDir }) : localTarget(choice.config, choice.stateDir);
}
