/** `npm run unpublish -- --round N [--local | --remote [--env E]] [--state DIR]`: removes a round no arm serves. */
import { unpublishRound } from "../publish/publisher.js";
import { runCli } from "./cli.js";
import { openTarget, parseTargetArgs } from "./publish/options.js";

const USAGE = "npm run unpublish -- --round N [--local | --remote [--env E]] [--state DIR]";

runCli(async () => {
  const choice = parseTargetArgs(USAGE);
  const target = await openTarget(choice);
  try {
    await unpublishRound(target, choice.round);
    console.log(`round ${choice.round} unpublished`);
  } finally {
    await target.dispose();
  }
});
