/**
 * `npm run bench:experiments [-- --control 0 --treatment N --seeds 1,2,3 --max-users 20000]`
 * (needs COGR_DATA and a trained round, `npm run train`): the rollout loop
 * seen end to end, and its sensitivity measured. Two rounds of different
 * offline quality are published into fresh local state and served by
 * `wrangler dev`; for each seed, simulated users (scripts/simulate/) drive
 * an A/B 50/50 experiment, then an interleaving one, each until its report
 * reaches a verdict. It prints the users each design needed and the median
 * ratio, then seeds a broken arm and shows the guardrail cron roll it back.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataDir } from "../training/data/wands.js";
import { listRounds, readRound } from "../training/round-artifact.js";
import { type AdminClient, adminClient } from "./admin-client.js";
import { printTable } from "./bench/stats.js";
import { intOption, parseCli, runCli } from "./cli.js";
import { startDevServer } from "./dev-server.js";
import { assertPortFree } from "./port.js";
import { readDeployConfig } from "./publish/deploy-config.js";
import { planFor, publishTo } from "./publish/local.js";
import { applyMigrations, localTarget } from "./publish/targets.js";
import { untilVerdict } from "./simulate/experiment-run.js";
import { loadSimulationData, type SimulationCounts, simulateUsers } from "./simulate/traffic.js";

const BENCH = { port: 8799, searchesPerUser: 3, concurrency: 16, checkEveryUsers: 25, brokenRound: 999 } as const;
const USAGE = "npm run bench:experiments [-- --control 0 --treatment N --seeds 1,2,3 --max-users 20000]";

async function run(admin: AdminClient, body: Record<string, unknown>, go: () => Promise<{ users: number; verdict: string; winner: number | null }>) {
  const { experiment } = await admin.call<{ experiment: { id: string } }>("POST", "/admin/experiments", body);
  const outcome = await go();
  await admin.call("POST", `/admin/experiments/${experiment.id}/rollback`, { reason: "benchmark run over" });
  return outcome;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

runCli(async () => {
  const args = parseCli({ control: { type: "string" }, treatment: { type: "string" }, seeds: { type: "string" }, "max-users": { type: "string" } }, USAGE);
  const trained = listRounds().filter((r) => r > 0);
  if (trained.length === 0) throw new Error("no trained round in artifacts/rounds: run `npm run train -- --backend lexical --rounds 5` first");
  const control = intOption("control", args.control, 0);
  const treatment = intOption("treatment", args.treatment, trained.at(-1) as number);
  const seeds = (args.seeds ?? "1,2,3").split(",").map((s) => intOption("seeds", s, 1));
  const maxUsers = intOption("max-users", args["max-users"], 20_000, 1);
  await assertPortFree(BENCH.port);

  const state = mkdtempSync(join(tmpdir(), "cogr-bench-exp-"));
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir: state });
  const r0 = readRound(control);
  // The seeded bad arm: the control round with its keyword postings removed, so every search finds nothing.
  const broken = { ...r0, manifest: { ...r0.manifest, round: BENCH.brokenRound }, serializedIndex: { ...r0.serializedIndex, keywords: [] } };
  for (const r of [r0, readRound(treatment), broken]) await publishTo(await localTarget(config, state), planFor(r, config));

  const token = `bench-${Date.now()}`;
  const server = await startDevServer(BENCH.port, state, "ignore", { ADMIN_TOKEN: token, EVENTS_FLUSH_MS: "0" });
  try {
    const url = server.url;
    const admin = adminClient(url, token);
    const data = loadSimulationData(dataDir());
    const rows: Array<Record<string, string>> = [];
    const ratios: number[] = [];
    for (const seed of seeds) {
      const opts = { seed, maxUsers, searchesPerUser: BENCH.searchesPerUser, concurrency: BENCH.concurrency, checkEvery: BENCH.checkEveryUsers };
      const ab = await run(
        admin,
        {
          design: "ab",
          arms: [
            { round: control, weight: 5000 },
            { round: treatment, weight: 5000 },
          ],
          control,
        },
        () => untilVerdict(admin, url, data, opts),
      );
      const il = await run(admin, { design: "interleave", control, treatment }, () => untilVerdict(admin, url, data, { ...opts, seed: seed + 1000 }));
      if (ab.verdict !== "no detectable difference yet" && il.verdict !== "no detectable difference yet") ratios.push(ab.users / il.users);
      rows.push({
        seed: String(seed),
        "A/B users": String(ab.users),
        "A/B verdict": `${ab.verdict}${ab.winner !== null ? ` (round ${ab.winner})` : ""}`,
        "interleaving users": String(il.users),
        "interleaving verdict": `${il.verdict}${il.winner !== null ? ` (round ${il.winner})` : ""}`,
        ratio: (ab.users / il.users).toFixed(1),
      });
      console.log(`seed ${seed}: A/B ${ab.users} users (${ab.verdict}), interleaving ${il.users} users (${il.verdict})`);
    }
    console.log(
      `\nround ${control} (control) against round ${treatment} (treatment); ${BENCH.searchesPerUser} searches per user; reports read every ${BENCH.checkEveryUsers} users\n`,
    );
    printTable(rows);
    console.log(`\nmedian users to a verdict, A/B ÷ interleaving: ${ratios.length ? median(ratios).toFixed(1) : "n/a"}× (goal ≥ 10×)`);

    // The guardrail: a broken arm at 50 %, the cron handler, and an automatic rollback.
    const { experiment } = await admin.call<{ experiment: { id: string } }>("POST", "/admin/experiments", {
      design: "ab",
      arms: [
        { round: control, weight: 5000 },
        { round: BENCH.brokenRound, weight: 5000 },
      ],
      control,
      guardrails: { minSearches: 100 },
    });
    const counts: SimulationCounts = { searches: 0, clicks: 0, failed: 0 };
    await simulateUsers(url, data, { seed: 99, from: 0, to: 100, searchesPerUser: BENCH.searchesPerUser, concurrency: BENCH.concurrency }, counts);
    await new Promise((r) => setTimeout(r, 200));
    await (await fetch(`${url}/__scheduled?cron=*+*+*+*+*`)).arrayBuffer();
    const after = await admin.call<{ experiment: { state: string }; changes: Array<{ actor: string; reason: string }> }>(
      "GET",
      `/admin/experiments/${experiment.id}`,
    );
    const last = after.changes.at(-1);
    console.log(
      `\nguardrail: a 50 % arm on broken round ${BENCH.brokenRound}, ${counts.searches} searches, one cron run → ${after.experiment.state}${last ? ` by ${last.actor}: ${last.reason}` : ""}`,
    );
  } finally {
    server.stop();
    await server.exited;
    rmSync(state, { recursive: true, force: true });
  }
});
