/**
 * `npm run publish -- --round N [--local | --remote [--env E]] [--state DIR] [--via-wrangler]`
 * Loads a round artifact into the serving index (D1 shards, catalogue, KV), atomically.
 */
import { performance } from "node:perf_hooks";
import { SingleBar } from "cli-progress";
import { readRound } from "../training/round-artifact.js";
import { runCli } from "./cli.js";
import { planFor, publishTo } from "./publish/local.js";
import { openTarget, parseTargetArgs } from "./publish/options.js";
import { applyMigrations } from "./publish/targets.js";

const USAGE = "npm run publish -- --round N [--local | --remote [--env E]] [--state DIR] [--via-wrangler]";

runCli(async () => {
  const choice = parseTargetArgs(USAGE);
  const t0 = performance.now();
  const round = readRound(choice.round);
  const plan = planFor(round, choice.config);
  await applyMigrations(choice.config, { mode: choice.mode, stateDir: choice.stateDir });
  const target = await openTarget(choice);
  const bar = process.stderr.isTTY ? new SingleBar({ format: "publishing {step} [{bar}] {value}/{total} statements", hideCursor: true }) : null;
  try {
    bar?.start(1, 0, { step: "" });
    const outcome = await publishTo(target, plan, (step, done, total) => {
      bar?.setTotal(total);
      bar?.update(done, { step });
    });
    bar?.stop();
    const where =
      choice.mode === "remote" ? `Cloudflare${choice.config.environment ? ` (env ${choice.config.environment})` : ""}` : `local state ${choice.stateDir}`;
    console.log(
      `round ${plan.round} ${outcome === "unchanged" ? "was already published" : "published"} to ${where}: ` +
        `${plan.manifest.counts.items} items, ${plan.manifest.counts.keywords + plan.manifest.counts.words} postings over ${plan.manifest.shardCount} shards ` +
        `in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  } finally {
    bar?.stop();
  }
});
