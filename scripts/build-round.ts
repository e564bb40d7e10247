/** `npm run build-round -- --round 0 [--seed S] [--dev-queries N]`: writes artifacts/rounds/0/, streaming the catalogue. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { dataDir } from "../training/data/dataset.js";
import { artifactsDir, writeRound } from "../training/round-artifact.js";
import { buildRound0Streaming } from "../training/round0.js";
import { intOption, parseCli, rankerOption, runCli, UsageError } from "./cli.js";

const USAGE = 'npm run build-round -- --round 0 [--seed S] [--dev-queries N] [--ranker keywords|text|"blend K:T"]';

runCli(async () => {
  const args = parseCli({ round: { type: "string" }, seed: { type: "string" }, "dev-queries": { type: "string" }, ranker: { type: "string" } }, USAGE);
  const round = intOption("round", args.round, -1);
  if (round !== 0) throw new UsageError(`only --round 0 is built here; later rounds come from \`npm run train\`\nusage: ${USAGE}`);
  const t0 = performance.now();
  mkdirSync(join(artifactsDir(), "rounds"), { recursive: true });
  const content = await buildRound0Streaming(dataDir(), join(artifactsDir(), "rounds", `.items-${process.pid}.jsonl`), {
    seed: intOption("seed", args.seed, 42),
    ranker: rankerOption(args.ranker),
    ...(args["dev-queries"] !== undefined ? { devQueries: intOption("dev-queries", args["dev-queries"], 50) } : {}),
  });
  const dir = writeRound(content);
  const s = content.config.labelStats as { rows: number; droppedMissingProduct: number };
  const labels =
    s.rows === 0 ? `no queries or labels in ${dataDir()}, so the split is empty` : `${s.droppedMissingProduct} of ${s.rows} labels dropped (product absent)`;
  console.log(
    `round 0 → ${dir}: ${content.index.itemCount} items, ${content.index.keywordPostings.size} keywords, ` +
      `${content.split.train.length}/${content.split.dev.length} train/dev queries; ${labels}; ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
});
