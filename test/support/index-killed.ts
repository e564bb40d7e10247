/** `npm run index` with a real SIGKILL once COGR_TEST_KILL_AFTER items are done (test/node/llm-round.test.ts). */
import { runCli } from "../../scripts/cli.js";
import { indexCommand } from "../../scripts/index.js";

const after = Number(process.env.COGR_TEST_KILL_AFTER);
runCli(() =>
  indexCommand({
    progress: (stage, done) => {
      if (stage === "items" && done === after) process.kill(process.pid, "SIGKILL");
    },
  }),
);
