/**
 * The whole loop of issue 23, simulated on one machine (`npm run simulate-loop`):
 * round 0 served → shoppers search and click → events exported → a round
 * trained from the clicks → published → interleaved against round 0 → the
 * report and the guardrails decide → the winner is promoted.
 *
 * Every step is the command a shop would run (the same modules, or the CLI
 * itself in a child process where the CLI is the contract: events:export,
 * train, eval), against a worker started as `npm start` starts it, on its own
 * local state and port.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishTo } from "../../publish/node/artifact.js";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { applyMigrations, localTarget } from "../../publish/node/targets.js";
import { dataDir, dataSource } from "../../training/data/dataset.js";
import { artifactsDir, readManifest, roundDir, writeRound } from "../../training/round-artifact.js";
import { buildRound0Streaming } from "../../training/round0.js";
import { adminClient } from "../admin-client.js";
import { startDevServer } from "../dev-server.js";
import { type BotOutcome, newShopperCounts, runShoppers, runSpamBot, SHOPPER_MODEL, type ShopperCounts } from "./shoppers.js";
import { loadSimulationData, type SimulationData } from "./traffic.js";

export const LOOP_DEFAULTS = {
  concurrency: 16,
  /** The interleaving phase: shoppers up to this many, the report read every `checkEveryUsers`. */
  maxVerdictUsers: 3000,
  checkEveryUsers: 200,
  trainRounds: 1,
} as const;

export interface LoopOptions {
  readonly searches: number;
  readonly seed: number;
  readonly port: number;
  readonly trainRounds: number;
  readonly withCatalog: boolean;
  readonly maxVerdictUsers: number;
  /** The spam bot's searches (default: SHOPPER_MODEL.bot's share of `searches`, at least its minimum). */
  readonly botSearches?: number;
  readonly log: (line: string) => void;
}

export interface LoopResult {
  readonly round: number;
  readonly searches: number;
  readonly seed: number;
  readonly verdict: string;
  readonly winner: number | null;
  readonly promoted: number | null;
  readonly logged: ShopperCounts;
  readonly bot: BotOutcome;
  readonly export: Record<string, unknown> | null;
  readonly interleaving: { users: number; searches: number; clicks: number; experiment: string; state: string };
  readonly dev: { clicks: number; round0: number; bm25: number; labels: number };
  readonly seconds: number;
}

/** A CLI of this repo in a child process; resolves with its stdout and stderr, rejects with its last stderr line. */
export function runCliChild(script: string, args: readonly string[], env: Record<string, string> = {}): Promise<{ out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join("node_modules", ".bin", "tsx"), [join("scripts", script), ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("exit", (code) => {
      if (code === 0) resolve({ out, err });
      else reject(new Error(`${script} ${args.join(" ")} failed (${code}): ${err.trim().split("\n").at(-1) ?? ""}`));
    });
  });
}

const lastJson = (out: string): Record<string, unknown> => JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;

/** Dev F1 as `npm run eval` computes it (the round's own split: round 0's, which every round trained from it keeps). */
async function evalF1(method: "keywords" | "bm25", round: number, artifacts: string): Promise<number> {
  const { out } = await runCliChild("eval.ts", ["--method", method, "--round", String(round), "--json"], { COGR_ARTIFACTS: artifacts });
  return lastJson(out).f1 as number;
}

/** Round 0 of COGR_DATA, built as `npm start` builds it when there is none. */
async function ensureRound0(log: (l: string) => void): Promise<void> {
  if (existsSync(join(roundDir(0), "manifest.json"))) return;
  const dir = dataDir();
  dataSource(dir);
  log(`building round 0 from ${dir} …`);
  mkdirSync(join(artifactsDir(), "rounds"), { recursive: true });
  writeRound(await buildRound0Streaming(dir, join(artifactsDir(), "rounds", `.items-${process.pid}.jsonl`)));
}

/** The shoppers' hidden relevance: the labelled queries of round 0's training split, never a dev query. */
async function trainingShoppers(): Promise<SimulationData> {
  const all = await loadSimulationData(dataDir());
  const train = new Set(readManifest(roundDir(0)).split.train);
  const queries = all.queries.filter((q) => train.has(q.id));
  if (queries.length === 0) throw new Error("round 0's training split has no labelled query with a relevant item: nothing for the shoppers to want");
  return { queries, grades: all.grades };
}

type Detail = { experiment: { id: string; state: string }; report: { verdict: string; winner: number | null } };

export async function simulateLoop(opts: LoopOptions): Promise<LoopResult> {
  const t0 = Date.now();
  const { log } = opts;
  await ensureRound0(log);
  const data = await trainingShoppers();
  const work = join(artifactsDir(), "loop", `seed-${opts.seed}-searches-${opts.searches}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const state = mkdtempSync(join(tmpdir(), "cogr-loop-"));
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir: state });
  await publishTo(await localTarget(config, state), 0, { replace: true });
  const token = `loop-${randomUUID()}`; // the worker refuses an ADMIN_TOKEN under 32 characters
  log(`round 0 published; starting the worker on port ${opts.port} …`);
  const server = await startDevServer(opts.port, state, "ignore", { ADMIN_TOKEN: token, EVENTS_FLUSH_MS: "0", ROUND_CACHE_TTL_MS: "0" });
  try {
    const url = server.url;
    const admin = adminClient(url, token);

    // 1. Shoppers (and one spam bot) search round 0.
    const logged = newShopperCounts();
    const users = Math.ceil(opts.searches / SHOPPER_MODEL.searchesPerUser);
    const botSearches = opts.botSearches ?? Math.max(SHOPPER_MODEL.bot.minSearches, Math.round((opts.searches * SHOPPER_MODEL.bot.searchesPerThousand) / 1000));
    log(`${users} shoppers search round 0 (${opts.searches} searches), and a spam bot ${botSearches} times …`);
    const [bot] = await Promise.all([
      runSpamBot(url, data, opts.seed, botSearches),
      runShoppers(url, data, { seed: opts.seed, phase: "logged", from: 0, to: users, concurrency: LOOP_DEFAULTS.concurrency }, logged),
    ]);
    log(
      `logged ${logged.searches} searches, ${logged.clicks} clicks (${logged.noiseClicks} noise), ${logged.carts} add-to-cart, ${logged.purchases} purchases; bot: ${bot.searches} searches, ${bot.clicks} clicks on ${bot.itemId}, ${bot.refused} refused`,
    );

    // 2. Export the events, train a round from the clicks.
    const events = join(work, "events.jsonl");
    // Its last stderr line is the export's report as one JSON object: written, dropped and discounted, by reason.
    const exported = await runCliChild("events-export.ts", ["--local", "--state", state, "--out", events]);
    const exportSummary = lastJson(exported.err);
    log(`exported: ${JSON.stringify(exportSummary)}`);
    log(`training ${opts.trainRounds} round(s) from the clicks …`);
    await runCliChild("train.ts", [
      "--backend",
      "lexical",
      "--supervision",
      "clicks",
      "--events",
      events,
      "--from-round",
      "0",
      "--rounds",
      String(opts.trainRounds),
      "--seed",
      String(opts.seed),
      ...(opts.withCatalog ? ["--with-catalog"] : []),
    ]);
    const round = opts.trainRounds;

    // 3. Publish it, interleave it against round 0; the report and the guardrail cron decide.
    await publishTo(await localTarget(config, state), round, { replace: true });
    const { experiment } = await admin.call<{ experiment: { id: string } }>("POST", "/admin/experiments", {
      design: "interleave",
      control: 0,
      treatment: round,
    });
    log(`interleaving round ${round} against round 0 (${experiment.id}) …`);
    const seen = newShopperCounts();
    let detail = await admin.call<Detail>("GET", `/admin/experiments/${experiment.id}`);
    let verdictUsers = 0;
    while (verdictUsers < opts.maxVerdictUsers && detail.experiment.state === "running" && detail.report.verdict === "no detectable difference yet") {
      const to = Math.min(opts.maxVerdictUsers, verdictUsers + LOOP_DEFAULTS.checkEveryUsers);
      await runShoppers(url, data, { seed: opts.seed, phase: "interleaved", from: verdictUsers, to, concurrency: LOOP_DEFAULTS.concurrency }, seen);
      verdictUsers = to;
      await (await fetch(`${url}/__scheduled?cron=*+*+*+*+*`)).arrayBuffer(); // the guardrails, as the cron runs them
      await new Promise((r) => setTimeout(r, 200));
      detail = await admin.call<Detail>("GET", `/admin/experiments/${experiment.id}`);
    }
    const { verdict, winner } = detail.report;
    let promoted: number | null = null;
    if (detail.experiment.state === "running") {
      if (winner === round) {
        await admin.call("POST", `/admin/experiments/${experiment.id}/promote`, { round });
        promoted = round;
      } else {
        await admin.call("POST", `/admin/experiments/${experiment.id}/rollback`, {
          reason: winner === 0 ? "round 0 won the interleaving" : "no verdict within the simulation's budget",
        });
      }
    }
    const final = await admin.call<Detail>("GET", `/admin/experiments/${experiment.id}`);
    log(`interleaving: ${verdict} after ${verdictUsers} users; experiment ${final.experiment.state}`);

    // 4. Dev F1 (queries no shopper typed): the click round, round 0, BM25, and a round trained on the hand labels.
    const labelsRoot = join(artifactsDir(), "loop", "labels");
    log(`measuring dev F1 (a labels-trained round for reference under ${labelsRoot}) …`);
    await runCliChild(
      "train.ts",
      ["--backend", "lexical", "--supervision", "labels", "--from-round", "0", "--rounds", String(opts.trainRounds), "--seed", String(opts.seed)],
      { COGR_ARTIFACTS: labelsRoot },
    );
    const dev = {
      clicks: await evalF1("keywords", round, artifactsDir()),
      round0: await evalF1("keywords", 0, artifactsDir()),
      bm25: await evalF1("bm25", 0, artifactsDir()),
      labels: await evalF1("keywords", opts.trainRounds, labelsRoot),
    };
    return {
      round,
      searches: logged.searches,
      seed: opts.seed,
      verdict,
      winner,
      promoted,
      logged,
      bot,
      export: exportSummary,
      interleaving: { users: verdictUsers, searches: seen.searches, clicks: seen.clicks, experiment: experiment.id, state: final.experiment.state },
      dev,
      seconds: Math.round((Date.now() - t0) / 1000),
    };
  } finally {
    server.stop();
    await server.exited;
    rmSync(state, { recursive: true, force: true });
  }
}
