/**
 * `npm run coevolve -- --backend verl [--rounds 5] [--from-round 0] [--model HF_ID]
 *   [--runner 'bash {script}'] [--jobs jobs/coevolve] [--dry-run]`
 * Alg. 2 across verl jobs (training/verl/coevolve.ts): prints the plan with
 * --dry-run, else runs it, resuming after the last finished step.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { planCoevolve, runPlan } from "../training/verl/coevolve.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";
import { VERL_DEFAULTS } from "./train-verl.js";

const USAGE = "npm run coevolve -- --backend verl [--rounds 5] [--from-round 0] [--model HF_ID] [--runner 'bash {script}'] [--jobs jobs/coevolve] [--dry-run]";

runCli(async () => {
  const args = parseCli(
    {
      backend: { type: "string" },
      rounds: { type: "string" },
      "from-round": { type: "string" },
      model: { type: "string" },
      runner: { type: "string" },
      jobs: { type: "string" },
      "dry-run": { type: "boolean" },
    },
    USAGE,
  );
  if (args.backend !== "verl") throw new UsageError(`--backend must be verl (the lexical co-evolution is npm run train)\nusage: ${USAGE}`);
  const runner = args.runner ?? "bash {script}";
  if (!runner.includes("{script}")) throw new UsageError("--runner must hold {script}, where the job script goes");
  const jobsDir = args.jobs ?? join("jobs", "coevolve");
  const steps = planCoevolve({
    rounds: intOption("rounds", args.rounds, 5, 1),
    fromRound: intOption("from-round", args["from-round"], 0),
    baseModel: args.model ?? VERL_DEFAULTS.model,
    runner,
    jobsDir,
    queryPort: 8000,
    itemPort: 8001,
  });
  if (args["dry-run"]) {
    console.log(`# ${steps.length} steps; state in ${join(jobsDir, "state.json")}; jobs run through: ${runner}`);
    for (const [j, s] of steps.entries()) console.log(`${String(j + 1).padStart(3)}. [${s.kind}] ${s.id}\n     ${s.command}`);
    return;
  }
  if (!process.env.COGR_REWARD_TOKEN) throw new UsageError("set COGR_REWARD_TOKEN: the reward services and the shim share it");
  mkdirSync(jobsDir, { recursive: true });
  const state = await runPlan(
    steps,
    join(jobsDir, "state.json"),
    (s) => spawnSync("bash", ["-c", s.command], { stdio: "inherit" }).status ?? 1,
    (line) => console.log(line),
  );
  console.log(`co-evolution finished: ${state.done.length} steps`);
});
