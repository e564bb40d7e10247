/**
 * `npm run simulate-loop -- --searches N [--seed S] [--rounds R] [--with-catalog] [--max-verdict-users U] [--bot-searches B] [--port P] [--json]`
 * The whole label-free loop, simulated (scripts/simulate/loop.ts): shoppers
 * whose hidden relevance is the training queries' labels search round 0 on a
 * worker of its own, their events train a round, the round is interleaved
 * against round 0 and promoted if it wins. Needs COGR_DATA with labels (the
 * shoppers' hidden relevance and the dev F1). The last line is one JSON
 * object; each run is also appended to artifacts/loop/curve.jsonl, which
 * `npm run train:report` plots (dev F1 against the number of searches).
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { artifactsDir } from "../training/round-artifact.js";
import { intOption, parseCli, runCli } from "./cli.js";
import { assertPortFree } from "./port.js";
import { LOOP_DEFAULTS, simulateLoop } from "./simulate/loop.js";

const USAGE =
  "npm run simulate-loop -- --searches N [--seed S] [--rounds R] [--with-catalog] [--max-verdict-users U] [--bot-searches B] [--port 8797] [--json]";

runCli(async () => {
  const args = parseCli(
    {
      searches: { type: "string" },
      seed: { type: "string" },
      rounds: { type: "string" },
      "with-catalog": { type: "boolean" },
      "max-verdict-users": { type: "string" },
      port: { type: "string" },
      "bot-searches": { type: "string" },
      json: { type: "boolean" },
    },
    USAGE,
  );
  const port = intOption("port", args.port, 8797, 1);
  await assertPortFree(port);
  const json = Boolean(args.json);
  const result = await simulateLoop({
    searches: intOption("searches", args.searches, 2000, 1),
    seed: intOption("seed", args.seed, 1),
    port,
    trainRounds: intOption("rounds", args.rounds, LOOP_DEFAULTS.trainRounds, 1),
    withCatalog: Boolean(args["with-catalog"]),
    maxVerdictUsers: intOption("max-verdict-users", args["max-verdict-users"], LOOP_DEFAULTS.maxVerdictUsers, 1),
    ...(args["bot-searches"] !== undefined ? { botSearches: intOption("bot-searches", args["bot-searches"], 0) } : {}),
    log: (line) => (json ? process.stderr.write(`${line}\n`) : console.log(line)),
  });
  const dir = join(artifactsDir(), "loop");
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, "curve.jsonl"), `${JSON.stringify({ at: new Date().toISOString(), withCatalog: Boolean(args["with-catalog"]), ...result })}\n`);
  if (!json) {
    const f = (x: number) => x.toFixed(4);
    console.log(
      `dev F1: clicks round ${result.round} ${f(result.dev.clicks)}, round 0 ${f(result.dev.round0)}, BM25 ${f(result.dev.bm25)}, labels ${f(result.dev.labels)} (${(result.dev.clicks / result.dev.bm25).toFixed(3)}× BM25)`,
    );
  }
  console.log(JSON.stringify(result));
});
