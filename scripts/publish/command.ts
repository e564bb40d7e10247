/**
 * `npm run publish`, as a function: scripts/publish.ts runs it, and a test runs it with hooks
 * (e.g. a real SIGKILL after N batches) from an entry of its own, so no test hook lives here.
 *
 * Order: the artifact, the placeholder ids (remote), the pending migrations, then either the
 * dry-run plan, or (remote) the operator's confirmation, the migrations, and the publish under
 * the publish lock.
 */
import { performance } from "node:perf_hooks";
import { SingleBar } from "cli-progress";
import { artifactSource, publishTo } from "../../publish/node/artifact.js";
import { assertRealIds } from "../../publish/node/deploy-config.js";
import { applyMigrations, pendingMigrations } from "../../publish/node/targets.js";
import type { PublishProgress } from "../../publish/publisher.js";
import { assertConfirmable, type ConfirmIo, confirmRemote, terminalIo } from "./confirm.js";
import { dryRunLines, migrationLines } from "./dry-run.js";
import { openTarget, parseTargetArgs, type TargetChoice } from "./options.js";

export const PUBLISH_USAGE =
  "npm run publish -- --round N [--local | --remote [--env E] [--yes]] [--dry-run] [--config wrangler.toml] [--state DIR] [--via-wrangler] [--full] [--replace] [--break-lock]";

export interface PublishHooks {
  /** Called after each committed batch, after the progress bar (tests: a kill at a batch of their choice). */
  readonly afterBatch?: PublishProgress;
  /** The terminal the remote confirmation uses. */
  readonly io?: ConfirmIo;
}

export const whereOf = (choice: TargetChoice) =>
  choice.mode === "remote" ? `Cloudflare${choice.config.environment ? ` (env ${choice.config.environment})` : ""}` : `local state ${choice.stateDir}`;

export async function publishCommand(hooks: PublishHooks = {}): Promise<void> {
  const choice = parseTargetArgs(PUBLISH_USAGE);
  const t0 = performance.now();
  const io = hooks.io ?? terminalIo();
  const what = `apply the pending migrations and publish round ${choice.round} to ${whereOf(choice)}`;
  if (choice.mode === "remote") {
    assertRealIds(choice.config); // before anything remote, or anything at all
    if (!choice.dryRun) assertConfirmable(what, choice, io);
  }
  const source = artifactSource(choice.round);
  // Locally the applied lists are read through the bindings (fast), --via-wrangler or not; remotely wrangler lists them.
  const migrationScope = { mode: choice.mode, stateDir: choice.stateDir };
  const pending = await pendingMigrations(choice.config, migrationScope);
  if (choice.dryRun) {
    const target = await openTarget(choice);
    try {
      console.log(`dry run: publish round ${choice.round} to ${whereOf(choice)}; nothing is written`);
      for (const line of await dryRunLines(choice, source, target, pending)) console.log(line);
    } finally {
      await target.dispose();
    }
    return;
  }
  if (choice.mode === "remote") {
    for (const line of migrationLines(pending)) console.error(line);
    await confirmRemote(what, choice, io);
  }
  await applyMigrations(choice.config, migrationScope, pending);
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: "publishing {step} [{bar}] {percentage}% | ETA {eta_formatted} | {rows} rows, {blocks} blocks", hideCursor: true, etaBuffer: 50 })
    : null;
  try {
    bar?.start(1, 0, { step: "", rows: 0, blocks: 0 });
    const r = await publishTo(await openTarget(choice), source, {
      incremental: !choice.full,
      replace: choice.replace,
      breakLock: choice.breakLock,
      onTakeOver: (from) => console.error(`took over the publish lock from ${from}`),
      progress: async (step, p) => {
        bar?.setTotal(p.total);
        bar?.update(p.at, { step, rows: p.rows, blocks: p.blocks });
        await hooks.afterBatch?.(step, p);
      },
    });
    bar?.stop();
    const m = r.manifest;
    const how =
      r.outcome === "unchanged"
        ? "was already published"
        : `${r.outcome === "replaced" ? "replaced and " : ""}published${m.chain.length > 1 ? ` on round ${m.chain[1]}` : " in full"}${r.resumedFrom > 0 ? ` (resumed after batch ${r.resumedFrom})` : ""}`;
    console.log(
      `round ${m.round} ${how} to ${whereOf(choice)}: ${m.counts.items} items, ${m.counts.keywords + m.counts.words} postings over ${m.shardCount} shards; ` +
        `wrote ${r.rows} rows and ${r.blocks} blocks in ${r.batches - r.resumedFrom} batches; ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  } finally {
    bar?.stop();
  }
}
