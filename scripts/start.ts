/**
 * `npm start`: one command from a fresh clone to a running search API.
 *   1. builds round 0 from COGR_DATA (default data/wands) if no round exists;
 *   2. publishes the newest round into the local state;
 *   3. runs `wrangler dev` on http://127.0.0.1:8787 until Ctrl-C.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { dataDir, loadWands, WANDS_FILES } from "../training/data/wands.js";
import { artifactsDir, readRound, writeRound } from "../training/round-artifact.js";
import { buildRound0 } from "../training/round0.js";
import { planPublish } from "../workers/publish/plan.js";
import { publishRound } from "../workers/publish/publisher.js";
import { intOption, parseCli, runCli } from "./cli.js";
import { readDeployConfig } from "./publish/deploy-config.js";
import { applyMigrations, DEFAULT_STATE_DIR, localTarget } from "./publish/targets.js";
import { QUIET_WRANGLER_ENV, WRANGLER_BIN } from "./wrangler.js";

const USAGE = "npm start [-- --port 8787 --state .wrangler/state]";

function newestRound(): number | null {
  const dir = join(artifactsDir(), "rounds");
  if (!existsSync(dir)) return null;
  const rounds = readdirSync(dir)
    .filter((d) => /^[0-9]+$/.test(d) && existsSync(join(dir, d, "manifest.json")))
    .map(Number);
  return rounds.length > 0 ? Math.max(...rounds) : null;
}

async function waitForHealth(url: string, child: { exitCode: number | null }): Promise<void> {
  for (let j = 0; j < 600; j++) {
    if (child.exitCode !== null) throw new Error("wrangler dev exited before it served");
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not answer on ${url} within 150 s`);
}

runCli(async () => {
  const args = parseCli({ port: { type: "string" }, state: { type: "string" } }, USAGE);
  const port = intOption("port", args.port, 8787, 1);
  const stateDir = args.state ?? DEFAULT_STATE_DIR;

  let round = newestRound();
  if (round === null) {
    const dir = dataDir();
    if (!Object.values(WANDS_FILES).every((f) => existsSync(join(dir, f)))) {
      throw new Error(`no WANDS data in ${dir}: run \`npm run data\`, or set COGR_DATA to a folder with product.csv, query.csv and label.csv`);
    }
    console.log(`building round 0 from ${dir} …`);
    writeRound(buildRound0(loadWands(dir)));
    round = 0;
  }
  const r = readRound(round);
  const config = readDeployConfig();
  console.log(`publishing round ${round} locally …`);
  await applyMigrations(config, { mode: "local", stateDir });
  const target = await localTarget(config, stateDir);
  try {
    const plan = planPublish({ manifest: r.manifest, items: r.items, index: r.serializedIndex, queryGenerator: r.queryGenerator }, config.shards.length);
    const outcome = await publishRound(target, plan);
    console.log(`round ${round} ${outcome === "unchanged" ? "is already published" : "published"}`);
  } finally {
    await target.dispose();
  }

  const url = `http://127.0.0.1:${port}`;
  // wrangler dev runs in its own process group so that stopping it stops everything it started
  // (its node wrapper, workerd, esbuild), however this process is signalled.
  const child = spawn(WRANGLER_BIN, ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", stateDir, "--show-interactive-dev-session=false"], {
    env: { ...process.env, ...QUIET_WRANGLER_ENV },
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const stop = () => {
    signalGroup("SIGINT");
    setTimeout(() => signalGroup("SIGKILL"), 5000).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.on("exit", () => signalGroup("SIGKILL"));
  await waitForHealth(url, child);
  console.log(`cogr-edge is serving round ${round} on ${url}  (try ${url}/v1/search?q=armchair — Ctrl-C stops it)`);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  signalGroup("SIGKILL"); // workerd children that outlive the wrapper
  process.exitCode = code ?? 0;
});
