/**
 * `npm run import` with a real SIGINT once COGR_TEST_SIGINT_AFTER_ROWS rows are read, the import held
 * there until the signal lands (test/node/import.test.ts proves the clean-up): the hook is injected here,
 * so none lives in scripts/import.ts.
 */
import { runCli } from "../../scripts/cli.js";
import { importCommand } from "../../scripts/import/command.js";

const after = Number(process.env.COGR_TEST_SIGINT_AFTER_ROWS);
runCli(() =>
  importCommand({
    onRow: (n) => {
      if (n !== after) return;
      process.kill(process.pid, "SIGINT");
      return new Promise<void>((r) => setTimeout(r, 60_000)); // the handler exits long before this
    },
  }),
);
