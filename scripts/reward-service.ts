/**
 * `npm run reward-service -- --side query|item --round N [--port 8377] [--host 127.0.0.1]`
 * Serves the verl reward for one phase: the frozen opposite side of round N
 * (training/reward-service/). The token comes from COGR_REWARD_TOKEN.
 */
import { serve } from "@hono/node-server";
import { dataDir, loadDataset, requireLabels } from "../training/data/dataset.js";
import { rewardApp } from "../training/reward-service/app.js";
import { loadEnvironment } from "../training/reward-service/environment.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";
import { assertPortFree } from "./port.js";

const USAGE = "npm run reward-service -- --side query|item --round N [--port 8377] [--host 127.0.0.1]   (token: COGR_REWARD_TOKEN)";

runCli(async () => {
  const args = parseCli({ side: { type: "string" }, round: { type: "string" }, port: { type: "string" }, host: { type: "string" } }, USAGE);
  if (args.side !== "query" && args.side !== "item") throw new UsageError(`--side must be query or item\nusage: ${USAGE}`);
  if (args.round === undefined) throw new UsageError(`--round is required\nusage: ${USAGE}`);
  const token = process.env.COGR_REWARD_TOKEN ?? "";
  if (token === "") throw new UsageError("set COGR_REWARD_TOKEN: the shim sends it as a bearer token");
  const port = intOption("port", args.port, 8377, 1);
  const host = args.host ?? "127.0.0.1";
  await assertPortFree(port, host);
  const dataset = await loadDataset(dataDir());
  requireLabels(dataset, "the reward service", "it scores against the training queries' labels; import the catalogue with --queries and --labels");
  const env = loadEnvironment(dataset, args.side, intOption("round", args.round, 0));
  const server = serve({ fetch: rewardApp(env, token).fetch, port, hostname: host });
  console.log(`reward service (${env.side} side, round ${env.round}: ${env.items} items, ${env.queries} training queries) on http://${host}:${port}`);
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
});
