/**
 * `npm start`: one command from a fresh clone to a running search API.
 *   1. builds round 0 from COGR_DATA (a catalogue folder or WANDS; default data/wands) if no round exists;
 *   2. publishes the newest round into the local state (replacing an earlier,
 *      different round N there: re-training rewrites artifacts/rounds/N);
 *   3. runs `wrangler dev` on http://127.0.0.1:8787 until Ctrl-C.
 * A port that is taken, or an ADMIN_TOKEN under 32 characters, is refused
 * first; "serving" is said only once this run's own server answers (see
 * dev-server.ts).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { publishTo } from "../publish/node/artifact.js";
import { readDeployConfig } from "../publish/node/deploy-config.js";
import { applyMigrations, DEFAULT_STATE_DIR, localTarget } from "../publish/node/targets.js";
import { servingRounds } from "../publish/publisher.js";
import { dataDir, dataSource } from "../training/data/dataset.js";
import { artifactsDir, listRounds, writeRound } from "../training/round-artifact.js";
import { buildRound0Streaming } from "../training/round0.js";
import { assertAdminToken } from "./admin-token.js";
import { intOption, parseCli, runCli } from "./cli.js";
import { startDevServer } from "./dev-server.js";
import { assertPortFree } from "./port.js";

const USAGE = "npm start [-- --port 8787 --state .wrangler/state]";
const PASS_THROUGH = ["ADMIN_TOKEN", "JUDGE_TOKEN", "LLM_BASE_URL", "LLM_API_KEY", "LLM_TIMEOUT_MS", "LLM_BREAKER_COOLDOWN_MS"] as const;

runCli(async () => {
  const args = parseCli({ port: { type: "string" }, state: { type: "string" } }, USAGE);
  const port = intOption("port", args.port, 8787, 1);
  const stateDir = args.state ?? DEFAULT_STATE_DIR;
  assertAdminToken(); // before building or publishing anything, as is the port
  await assertPortFree(port);

  let round = listRounds().at(-1) ?? null;
  if (round === null) {
    const dir = dataDir();
    dataSource(dir); // no catalogue and no WANDS: one line saying how to get either
    console.log(`building round 0 from ${dir} …`);
    mkdirSync(join(artifactsDir(), "rounds"), { recursive: true });
    writeRound(await buildRound0Streaming(dir, join(artifactsDir(), "rounds", `.items-${process.pid}.jsonl`)));
    round = 0;
  }
  const config = readDeployConfig();
  console.log(`publishing round ${round} locally …`);
  await applyMigrations(config, { mode: "local", stateDir });
  // Local state is a development cache of the artifacts: a re-trained round replaces the one published under its number.
  const { outcome } = await publishTo(await localTarget(config, stateDir), round, { replace: true });
  const said = { unchanged: "is already published", published: "published", replaced: "published (it replaced an earlier round with that number)" } as const;
  console.log(`round ${round} ${said[outcome]}`);
  // An experiment, or the outcome of the last one, decides what serves; say which rounds that is.
  const reader = await localTarget(config, stateDir);
  const serving = await servingRounds(reader).finally(() => reader.dispose());

  // Vars and secrets come from .dev.vars; these few also pass through from the shell when set there (shown in the process list: local use only).
  const passed = Object.fromEntries(PASS_THROUGH.filter((k) => process.env[k]).map((k) => [k, process.env[k] as string]));
  const server = await startDevServer(port, stateDir, "inherit", passed);
  const what = serving.length === 1 ? `round ${serving[0]}` : `rounds ${serving.join(" and ")} (an experiment runs)`;
  console.log(`cogr-edge is serving ${what} on ${server.url}  (try ${server.url}/v1/search?q=armchair — Ctrl-C stops it)`);
  process.exitCode = (await server.exited) ?? 0;
});
