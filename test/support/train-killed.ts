/** `npm run train` with a real SIGKILL once phase COGR_TEST_KILL_AFTER is checkpointed (test/training/train.test.ts). */
import { runCli } from "../../scripts/cli.js";
import { trainCommand } from "../../scripts/train.js";

const phase = process.env.COGR_TEST_KILL_AFTER;
runCli(() =>
  trainCommand({
    checkpointed: (p) => {
      if (p === phase) process.kill(process.pid, "SIGKILL");
    },
  }),
);
