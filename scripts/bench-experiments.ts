/**
 * `npm run bench:experiments [-- --control 0 --treatment N --drop 0.5 --seeds 1,2,3 --max-users 40000]`
 * (needs COGR_DATA and a trained round, `npm run train`): the rollout loop
 * seen end to end, and its sensitivity measured, on `wrangler dev` over
 * fresh local state.
 *   1. Sensitivity: control round 0 against a degraded copy of it (a seeded
 *      `--drop` share of its keyword postings removed: lower offline F1,
 *      measured and printed). For each seed, simulated users
 *      (scripts/simulate/) drive an A/B 50/50 experiment, then an
 *      interleaving one, each until its report reaches a verdict; it prints
 *      the users each needed and the median ratio.
 *   2. Round 0 against the trained round N, both designs, up to a user budget.
 *   3. A broken arm (no keyword postings) and the guardrail cron rolling it back.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KeywordIndex } from "../core/inverted-index.js";
import { loadQueryGenerator } from "../core/query-generator.js";
import { fnv1a32 } from "../core/shard.js";
import { publishTo } from "../publish/node/artifact.js";
import { readDeployConfig } from "../publish/node/deploy-config.js";
import { applyMigrations, localTarget } from "../publish/node/targets.js";
import { memorySource } from "../publish/source.js";
import { dataDir, loadDataset } from "../training/data/dataset.js";
import type { Dataset } from "../training/data/types.js";
import { evaluateKeywords, toEvalQueries } from "../training/evaluate.js";
import { listRounds, readRound } from "../training/round-artifact.js";
import { type AdminClient, adminClient } from "./admin-client.js";
import { printTable } from "./bench/stats.js";
import { intOption, parseCli, runCli } from "./cli.js";
import { startDevServer } from "./dev-server.js";
import { assertPortFree } from "./port.js";
import { untilVerdict } from "./simulate/experiment-run.js";
import { loadSimulationData, type SimulationCounts, simulateUsers } from "./simulate/traffic.js";

/** Reports are read at users × 1.05 (at least every 10 users), so both designs' counts carry the same ≤ 5 % resolution. */
const BENCH = {
  port: 8799,
  searchesPerUser: 3,
  concurrency: 48,
  checkEveryUsers: 10,
  lookGrowth: 1.05,
  degradedRound: 998,
  brokenRound: 999,
  trainedPairUsers: 6000,
} as const;
const USAGE = "npm run bench:experiments [-- --control 0 --treatment N --drop 0.5 --seeds 1,2,3 --max-users 40000 --trained-users 6000]";

async function run(admin: AdminClient, body: Record<string, unknown>, go: () => Promise<{ users: number; verdict: string; winner: number | null }>) {
  const { experiment } = await admin.call<{ experiment: { id: string } }>("POST", "/admin/experiments", body);
  const outcome = await go();
  await admin.call("POST", `/admin/experiments/${experiment.id}/rollback`, { reason: "benchmark run over" });
  return outcome;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const withWinner = (o: { verdict: string; winner: number | null }) => `${o.verdict}${o.winner !== null ? ` (round ${o.winner})` : ""}`;

/** Dev F1 of a round's index with its own query generator, as `npm run eval` computes it. */
function devF1(dataset: Dataset, round: ReturnType<typeof readRound>, index: KeywordIndex): number {
  const dev = new Set(round.manifest.split.dev);
  const { queries, leftOut } = toEvalQueries(
    dataset.queries.filter((q) => dev.has(q.id)),
    dataset.relevant,
    index,
  );
  return evaluateKeywords(index, loadQueryGenerator(round.queryGenerator, index) ?? (() => []), queries, leftOut).f1;
}

runCli(async () => {
  const args = parseCli(
    {
      control: { type: "string" },
      treatment: { type: "string" },
      drop: { type: "string" },
      "trained-users": { type: "string" },
      seeds: { type: "string" },
      "max-users": { type: "string" },
    },
    USAGE,
  );
  const drop = Number(args.drop ?? "0.5");
  if (!(drop > 0 && drop < 1)) throw new Error(`--drop must be a share between 0 and 1, got ${args.drop}`);
  const trained = listRounds().filter((r) => r > 0);
  if (trained.length === 0) throw new Error("no trained round in artifacts/rounds: run `npm run train -- --backend lexical --rounds 5` first");
  const control = intOption("control", args.control, 0);
  const treatment = intOption("treatment", args.treatment, trained.at(-1) as number);
  const seeds = (args.seeds ?? "1,2,3").split(",").map((s) => intOption("seeds", s, 1));
  const maxUsers = intOption("max-users", args["max-users"], 40_000, 1);
  await assertPortFree(BENCH.port);

  const state = mkdtempSync(join(tmpdir(), "cogr-bench-exp-"));
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir: state });
  const r0 = readRound(control);
  // The degraded round: a seeded share of the control's keyword postings removed. The broken one: all of them.
  const withKeywords = (keep: (k: string) => boolean) =>
    KeywordIndex.fromPostings(r0.index.ids, r0.index.totalLength, new Map([...r0.index.keywordPostings].filter(([k]) => keep(k))), r0.index.wordPostings);
  const degradedIndex = withKeywords((k) => fnv1a32(`drop:${k}`) / 2 ** 32 >= drop);
  // Derived rounds carry their own content hash (another index is other content).
  const derived = (round: number, index: KeywordIndex) =>
    memorySource({
      ...r0,
      index,
      manifest: { ...r0.manifest, round, metrics: {}, contentHash: `${r0.manifest.contentHash.slice(0, 56)}${String(round).padStart(8, "0")}` },
    });
  const degraded = derived(BENCH.degradedRound, degradedIndex);
  const broken = derived(
    BENCH.brokenRound,
    withKeywords(() => false),
  );
  const dataset = await loadDataset(dataDir());
  const f1 = { control: devF1(dataset, r0, r0.index), degraded: devF1(dataset, r0, degradedIndex) };
  for (const r of [control, treatment, degraded, broken]) await publishTo(await localTarget(config, state), r, { incremental: false });

  const token = `bench-${randomUUID()}`; // the worker refuses an ADMIN_TOKEN under 32 characters
  // BENCH_VERBOSE=1 shows wrangler dev's output (the worker's logs, the guardrail's among them).
  const server = await startDevServer(
    BENCH.port,
    state,
    process.env.BENCH_VERBOSE ? "inherit" : "ignore",
    {
      ADMIN_TOKEN: token,
      EVENTS_FLUSH_MS: "0",
      // Every search sees an experiment change at once (else the isolate keeps the old configuration up to 5 s and misattributes its traffic).
      ROUND_CACHE_TTL_MS: "0",
    },
    { benchLimits: true },
  );
  try {
    const url = server.url;
    const admin = adminClient(url, token);
    const data = await loadSimulationData(dataDir());
    const rows: Array<Record<string, string>> = [];
    const ratios: number[] = [];
    const pair = async (t: number, seed: number, max: number) => {
      const opts = {
        seed,
        maxUsers: max,
        searchesPerUser: BENCH.searchesPerUser,
        concurrency: BENCH.concurrency,
        checkEvery: BENCH.checkEveryUsers,
        growth: BENCH.lookGrowth,
      };
      const ab = await run(
        admin,
        {
          design: "ab",
          arms: [
            { round: control, weight: 5000 },
            { round: t, weight: 5000 },
          ],
          control,
        },
        () => untilVerdict(admin, url, data, opts),
      );
      const il = await run(admin, { design: "interleave", control, treatment: t }, () => untilVerdict(admin, url, data, { ...opts, seed: seed + 1000 }));
      return { ab, il };
    };
    for (const seed of seeds) {
      const { ab, il } = await pair(BENCH.degradedRound, seed, maxUsers);
      if (ab.verdict !== "no detectable difference yet" && il.verdict !== "no detectable difference yet") ratios.push(ab.users / il.users);
      rows.push({
        seed: String(seed),
        "A/B users": String(ab.users),
        "A/B verdict": withWinner(ab),
        "interleaving users": String(il.users),
        "interleaving verdict": withWinner(il),
        ratio: (ab.users / il.users).toFixed(1),
      });
      console.log(`seed ${seed}: A/B ${ab.users} users (${ab.verdict}), interleaving ${il.users} users (${il.verdict})`);
    }
    console.log(
      `\nround ${control} (dev F1 ${f1.control.toFixed(4)}) against round ${BENCH.degradedRound}, round ${control} with ${(100 * drop).toFixed(0)} % of its keyword postings dropped (dev F1 ${f1.degraded.toFixed(4)}); ` +
        `${BENCH.searchesPerUser} searches per user; reports read at users × ${BENCH.lookGrowth}\n`,
    );
    printTable(rows);
    console.log(`\nmedian users to a verdict, A/B ÷ interleaving: ${ratios.length ? median(ratios).toFixed(1) : "n/a"}× (goal ≥ 10×)`);

    const trainedUsers = intOption("trained-users", args["trained-users"], BENCH.trainedPairUsers);
    if (trainedUsers > 0) {
      const { ab, il } = await pair(treatment, seeds[0] ?? 1, trainedUsers);
      console.log(
        `\nround ${control} against trained round ${treatment}, up to ${trainedUsers} users each: ` +
          `A/B ${withWinner(ab)} after ${ab.users} users; interleaving ${withWinner(il)} after ${il.users} users`,
      );
    }

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
    // The handler runs in waitUntil, after /__scheduled has answered: wait for its outcome.
    type Detail = { experiment: { state: string }; changes: Array<{ actor: string; reason: string }> };
    let after = await admin.call<Detail>("GET", `/admin/experiments/${experiment.id}`);
    for (let j = 0; j < 40 && after.experiment.state === "running"; j++) {
      await new Promise((r) => setTimeout(r, 250));
      after = await admin.call<Detail>("GET", `/admin/experiments/${experiment.id}`);
    }
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
