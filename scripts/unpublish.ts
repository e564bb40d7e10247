/**
 * `npm run unpublish -- --round N [--local | --remote [--env E] [--yes]] [--config wrangler.toml] [--state DIR] [--break-lock]`:
 * removes a round no arm serves (D1's experiments table decides, publish/publisher.ts servingRounds),
 * under the publish lock; remotely after the placeholder check and a confirmation.
 */
import { withLock } from "../publish/lock.js";
import { assertRealIds } from "../publish/node/deploy-config.js";
import { lockOwner, processAlive } from "../publish/node/lock-owner.js";
import { applyMigrations, pendingMigrations } from "../publish/node/targets.js";
import { unpublishRound } from "../publish/publisher.js";
import { runCli } from "./cli.js";
import { whereOf } from "./publish/command.js";
import { assertConfirmable, confirmRemote } from "./publish/confirm.js";
import { migrationLines } from "./publish/dry-run.js";
import { openTarget, parseTargetArgs } from "./publish/options.js";

const USAGE = "npm run unpublish -- --round N [--local | --remote [--env E] [--yes]] [--config wrangler.toml] [--state DIR] [--break-lock]";

runCli(async () => {
  const choice = parseTargetArgs(USAGE, "unpublish");
  const what = `unpublish round ${choice.round} from ${whereOf(choice)}`;
  if (choice.mode === "remote") {
    assertRealIds(choice.config);
    assertConfirmable(what, choice);
  }
  // The lock's table may be newer than the state (a migration the last publish did not have).
  const scope = { mode: choice.mode, stateDir: choice.stateDir };
  const pending = await pendingMigrations(choice.config, scope);
  if (choice.mode === "remote") {
    for (const line of migrationLines(pending)) console.error(line);
    await confirmRemote(what, choice);
  }
  await applyMigrations(choice.config, scope, pending);
  const target = await openTarget(choice);
  try {
    await withLock(target, lockOwner(), { breakLock: choice.breakLock, alive: processAlive }, (lock) => {
      if (lock.tookOverFrom) console.error(`took over the publish lock from ${lock.tookOverFrom}`);
      return unpublishRound(target, choice.round);
    });
    console.log(`round ${choice.round} unpublished`);
  } finally {
    await target.dispose();
  }
});
