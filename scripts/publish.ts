/**
 * `npm run publish -- --round N [--local | --remote [--env E]] [--state DIR] [--via-wrangler] [--full] [--replace]`
 * Loads a round artifact into the serving index (D1 shards, catalogue, KV):
 * atomically, streamed, resumable after a kill, and incremental on the newest
 * published round with the same items unless --full.
 */
import { performance } from "node:perf_hooks";
import { SingleBar } from "cli-progress";
import { publishTo } from "../publish/node/artifact.js";
import { applyMigrations } from "../publish/node/targets.js";
import { runCli } from "./cli.js";
import { openTarget, parseTargetArgs } from "./publish/options.js";

const USAGE = "npm run publish -- --round N [--local | --remote [--env E]] [--state DIR] [--via-wrangler] [--full] [--replace]";

runCli(async () => {
  const choice = parseTargetArgs(USAGE);
  const t0 = performance.now();
  await applyMigrations(choice.config, { mode: choice.mode, stateDir: choice.stateDir });
  const target = await openTarget(choice);
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: "publishing {step} [{bar}] {percentage}% | ETA {eta_formatted} | {rows} rows, {blocks} blocks", hideCursor: true, etaBuffer: 50 })
    : null;
  try {
    bar?.start(1, 0, { step: "", rows: 0, blocks: 0 });
    const r = await publishTo(target, choice.round, {
      incremental: !choice.full,
      replace: choice.replace,
      progress: (step, p) => {
        // Test hook: a real kill after N committed batches (test/node/publish-resume.test.ts).
        if (process.env.COGR_PUBLISH_KILL_AFTER === String(p.batches - p.skipped)) process.kill(process.pid, "SIGKILL");
        bar?.setTotal(p.total);
        bar?.update(p.at, { step, rows: p.rows, blocks: p.blocks });
      },
    });
    bar?.stop();
    const where =
      choice.mode === "remote" ? `Cloudflare${choice.config.environment ? ` (env ${choice.config.environment})` : ""}` : `local state ${choice.stateDir}`;
    const m = r.manifest;
    const how =
      r.outcome === "unchanged"
        ? "was already published"
        : `${r.outcome === "replaced" ? "replaced and " : ""}published${m.chain.length > 1 ? ` on round ${m.chain[1]}` : " in full"}${r.resumedFrom > 0 ? ` (resumed after batch ${r.resumedFrom})` : ""}`;
    console.log(
      `round ${m.round} ${how} to ${where}: ${m.counts.items} items, ${m.counts.keywords + m.counts.words} postings over ${m.shardCount} shards; ` +
        `wrote ${r.rows} rows and ${r.blocks} blocks in ${r.batches - r.resumedFrom} batches; ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  } finally {
    bar?.stop();
  }
});
