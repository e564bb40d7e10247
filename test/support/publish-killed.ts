/**
 * `npm run publish` with a real SIGKILL once COGR_TEST_KILL_AFTER batches of this run are committed
 * (test/node/publish-resume.test.ts): the hook is injected here, so none lives in scripts/publish.ts.
 */
import { runCli } from "../../scripts/cli.js";
import { publishCommand } from "../../scripts/publish/command.js";

const killAfter = Number(process.env.COGR_TEST_KILL_AFTER);
runCli(() =>
  publishCommand({
    afterBatch: (_step, p) => {
      if (p.batches - p.skipped === killAfter) process.kill(process.pid, "SIGKILL");
    },
  }),
);
