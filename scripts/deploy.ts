/**
 * `npm run deploy [-- --env staging|production] [--config wrangler.toml] [--dry-run]`: `wrangler deploy`,
 * after checking that no binding still has wrangler.toml's placeholder id (one line naming it): a worker
 * deployed against the placeholders would serve from databases that do not exist. --dry-run bundles only.
 */
import { spawn } from "node:child_process";
import { assertRealIds, readDeployConfig } from "../publish/node/deploy-config.js";
import { QUIET_WRANGLER_ENV, WRANGLER_BIN } from "../publish/node/wrangler.js";
import { parseCli, runCli } from "./cli.js";

const USAGE = "npm run deploy [-- --env staging|production] [--config wrangler.toml] [--dry-run]";

runCli(async () => {
  const args = parseCli({ env: { type: "string" }, config: { type: "string" }, "dry-run": { type: "boolean" } }, USAGE);
  const configPath = args.config ?? "wrangler.toml";
  const dryRun = Boolean(args["dry-run"]);
  if (!dryRun) assertRealIds(readDeployConfig(args.env, configPath));
  const wranglerArgs = ["deploy", "--config", configPath, ...(args.env ? ["--env", args.env] : []), ...(dryRun ? ["--dry-run"] : [])];
  const child = spawn(WRANGLER_BIN, wranglerArgs, { env: { ...process.env, ...QUIET_WRANGLER_ENV }, stdio: "inherit" });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`wrangler deploy failed (exit ${code}): see its output above`);
});
