/**
 * `npm run bench:experiments [-- --drops 0.15,0.3,0.5 --seeds 1,2,3,4,5 --max-users 40000 --aa-seeds 1,2,3,4,5 --aa-users 3000 --trained-users 0]`
 * (needs COGR_DATA and round 0, `npm run build-round -- --round 0`): the
 * rollout loop seen end to end, and its sensitivity measured, on
 * `wrangler dev` over fresh local state.
 *   1. Sensitivity (scripts/bench/experiment-grid.ts): control round 0
 *      against degraded copies of it (for each `--drops` share, a seeded
 *      share of its keyword postings removed: lower offline F1, measured and
 *      printed): small, medium and large effects. For each effect and seed,
 *      simulated users (scripts/simulate/) drive an A/B 50/50 experiment,
 *      read by two statistics (plain per-search CTR, per-user CTR with
 *      CUPED), then an interleaving one, each until its verdict; it prints
 *      the users each needed and the median ratios.
 *   2. A/A: round 0 against an identical copy, to `--aa-users` users per
 *      seed (A/B and CUPED; `--aa-interleaving` adds interleaving, whose
 *      debiased credit sees no differing item there, so never decides), and
 *      the Monte Carlo A/A of the per-user statistics
 *      (scripts/simulate/aa-monte-carlo.ts): the false-positive rates.
 *   3. With `--trained-users N`: round 0 against the newest trained round, both designs, up to N users.
 *   4. A broken arm (no keyword postings) and the guardrail cron rolling it back.
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
import { aa, type GridSetup, median, printGrid, sensitivity } from "./bench/experiment-grid.js";
import { intOption, OptionError, parseCli, runCli } from "./cli.js";
import { startDevServer } from "./dev-server.js";
import { assertPortFree } from "./port.js";
import { AA_DEFAULTS, aaCupedRate, aaPreferenceRate } from "./simulate/aa-monte-carlo.js";
import { untilVerdict } from "./simulate/experiment-run.js";
import { loadSimulationData, type SimulationCounts, simulateUsers } from "./simulate/traffic.js";

/** Reports are read at users × 1.05 (at least every 10 users), so every statistic's count carries the same ≤ 5 % resolution. */
const BENCH = {
  port: 8799,
  searchesPerUser: 3,
  concurrency: 48,
  checkEveryUsers: 10,
  lookGrowth: 1.05,
  /** Degraded rounds are 990 + their index in --drops; the A/A copy of control is 989. */
  degradedRoundFirst: 990,
  copyRound: 989,
  brokenRound: 999,
  effectLabels: ["small", "medium", "large", "larger", "largest"],
} as const;
const USAGE =
  "npm run bench:experiments [-- --control 0 --drops 0.15,0.3,0.5 --seeds 1,2,3,4,5 --max-users 40000 --aa-seeds 1,2,3,4,5 --aa-users 3000 [--aa-interleaving] [--aa-monte-carlo 1000] [--trained-users N --treatment N]]";

async function run(admin: AdminClient, body: Record<string, unknown>, go: () => Promise<{ users: number; verdict: string; winner: number | null }>) {
  const { experiment } = await admin.call<{ experiment: { id: string } }>("POST", "/admin/experiments", body);
  const outcome = await go();
  await admin.call("POST", `/admin/experiments/${experiment.id}/rollback`, { reason: "benchmark run over" });
  return outcome;
}

const withWinner = (o: { verdict: string; winner: number | null }) => `${o.verdict}${o.winner !== null ? ` (round ${o.winner})` : ""}`;
const list = (name: string, value: string | undefined, fallback: string) =>
  (value ?? fallback)
    .split(",")
    .filter((x) => x !== "")
    .map((x) => intOption(name, x, 1));

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
      drops: { type: "string" },
      "trained-users": { type: "string" },
      seeds: { type: "string" },
      "max-users": { type: "string" },
      "aa-seeds": { type: "string" },
      "aa-users": { type: "string" },
      "aa-interleaving": { type: "boolean" },
      "aa-monte-carlo": { type: "string" },
    },
    USAGE,
  );
  const drops = (args.drops ?? "0.15,0.3,0.5").split(",").map(Number);
  if (drops.length === 0 || drops.length > BENCH.effectLabels.length || !drops.every((d) => d > 0 && d < 1))
    throw new OptionError(`--drops must be 1–${BENCH.effectLabels.length} shares between 0 and 1, got ${JSON.stringify(args.drops)}`);
  const control = intOption("control", args.control, 0);
  const seeds = list("seeds", args.seeds, "1,2,3,4,5");
  const aaSeeds = list("aa-seeds", args["aa-seeds"], "1,2,3,4,5");
  const maxUsers = intOption("max-users", args["max-users"], 40_000, 1);
  const aaUsers = intOption("aa-users", args["aa-users"], 3000, 1);
  const monteCarlo = intOption("aa-monte-carlo", args["aa-monte-carlo"], 1000);
  const trainedUsers = intOption("trained-users", args["trained-users"], 0);
  const trained = listRounds().filter((r) => r > 0 && r < BENCH.copyRound);
  if (trainedUsers > 0 && trained.length === 0 && args.treatment === undefined)
    throw new Error("--trained-users needs a trained round in artifacts/rounds: run `npm run train -- --backend lexical --rounds 5` first");
  const treatment = intOption("treatment", args.treatment, trained.at(-1) ?? 0);
  await assertPortFree(BENCH.port);

  const state = mkdtempSync(join(tmpdir(), "cogr-bench-exp-"));
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir: state });
  const r0 = readRound(control);
  // The degraded rounds: a seeded share of the control's keyword postings removed. The broken one: all of them. The copy: none.
  const withKeywords = (keep: (k: string) => boolean) =>
    KeywordIndex.fromPostings(r0.index.ids, r0.index.totalLength, new Map([...r0.index.keywordPostings].filter(([k]) => keep(k))), r0.index.wordPostings);
  // Derived rounds carry their own content hash (another round number is another manifest).
  const derived = (round: number, index: KeywordIndex) =>
    memorySource({
      ...r0,
      index,
      manifest: { ...r0.manifest, round, metrics: {}, contentHash: `${r0.manifest.contentHash.slice(0, 56)}${String(round).padStart(8, "0")}` },
    });
  const dataset = await loadDataset(dataDir());
  const effects = [...drops]
    .sort((a, b) => a - b)
    .map((drop, j) => {
      const index = withKeywords((k) => fnv1a32(`drop:${k}`) / 2 ** 32 >= drop);
      return { drop, round: BENCH.degradedRoundFirst + j, label: BENCH.effectLabels[j] as string, index, f1: devF1(dataset, r0, index) };
    });
  const f1Control = devF1(dataset, r0, r0.index);
  const rounds = [
    ...effects.map((e) => derived(e.round, e.index)),
    derived(BENCH.copyRound, r0.index),
    derived(
      BENCH.brokenRound,
      withKeywords(() => false),
    ),
  ];
  for (const r of [control, ...(trainedUsers > 0 ? [treatment] : []), ...rounds]) await publishTo(await localTarget(config, state), r, { incremental: false });

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
    const opts = { searchesPerUser: BENCH.searchesPerUser, concurrency: BENCH.concurrency, checkEvery: BENCH.checkEveryUsers, growth: BENCH.lookGrowth };
    const grid: GridSetup = { admin, url, data, control, opts };
    const rows: Array<Record<string, string>> = [];
    const all = { il: [] as number[], cuped: [] as number[] };
    const perEffect: string[] = [];
    let wrong = 0;
    let undecided = 0;
    for (const e of effects) {
      const out = await sensitivity(grid, e.round, `${e.label} (drop ${e.drop})`, seeds, maxUsers);
      rows.push(...out.rows);
      all.il.push(...out.ratios.il);
      all.cuped.push(...out.ratios.cuped);
      wrong += out.wrong;
      undecided += out.undecided;
      perEffect.push(
        `${e.label}: drop ${e.drop}, round ${e.round}, dev F1 ${e.f1.toFixed(4)}; median A/B ÷ interleaving ${median(out.ratios.il).toFixed(1)}×, A/B ÷ CUPED ${median(out.ratios.cuped).toFixed(2)}×`,
      );
    }
    console.log(
      `\nround ${control} (dev F1 ${f1Control.toFixed(4)}) against copies of it with a share of its keyword postings dropped; ` +
        `${BENCH.searchesPerUser} searches per user; reports read at users × ${BENCH.lookGrowth}; users until each statistic's verdict ("> N": none within N)\n`,
    );
    printGrid(rows);
    for (const line of perEffect) console.log(line);
    console.log(
      `\nmedian users to a verdict over all ${all.il.length} runs: A/B ÷ interleaving ${median(all.il).toFixed(1)}× (goal ≥ 10×), A/B ÷ A/B + CUPED ${median(all.cuped).toFixed(2)}×; ` +
        `${wrong} wrong verdicts, ${undecided} runs with a statistic undecided at ${maxUsers} users`,
    );

    if (aaSeeds.length > 0) {
      const fp = await aa(grid, BENCH.copyRound, aaSeeds, aaUsers, args["aa-interleaving"] === true);
      const rate = (k: number) => `${k}/${aaSeeds.length}`;
      console.log(
        `\nA/A (round ${control} against its copy, round ${BENCH.copyRound}), ${aaSeeds.length} seeds × ${aaUsers} users: verdicts (false positives) ` +
          `A/B ${rate(fp.ab)}, A/B + CUPED ${rate(fp.cuped)}${args["aa-interleaving"] ? `, interleaving ${rate(fp.il)}` : ""}`,
      );
    }
    if (monteCarlo > 0) {
      const mc = { ...AA_DEFAULTS, experiments: monteCarlo };
      console.log(
        `A/A Monte Carlo of the per-user statistics (${monteCarlo} experiments, looks from ${mc.firstLook} users × ${mc.growth} to ${mc.maxUsers}): ` +
          `false-positive rate interleaving preference ${(100 * aaPreferenceRate(mc)).toFixed(1)} %, CUPED ${(100 * aaCupedRate(mc)).toFixed(1)} %`,
      );
    }

    if (trainedUsers > 0) {
      const runOpts = { ...opts, seed: seeds[0] ?? 1, maxUsers: trainedUsers };
      const abBody = {
        design: "ab",
        arms: [
          { round: control, weight: 5000 },
          { round: treatment, weight: 5000 },
        ],
        control,
      };
      const abOut = await run(admin, abBody, () => untilVerdict(admin, url, data, runOpts));
      const ilOut = await run(admin, { design: "interleave", control, treatment }, () =>
        untilVerdict(admin, url, data, { ...runOpts, seed: runOpts.seed + 1000 }),
      );
      console.log(
        `\nround ${control} against trained round ${treatment}, up to ${trainedUsers} users each: ` +
          `A/B (CUPED) ${withWinner(abOut)} after ${abOut.users} users; interleaving ${withWinner(ilOut)} after ${ilOut.users} users`,
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
