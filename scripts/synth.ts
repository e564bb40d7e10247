/** `npm run synth -- --items N [--seed S] --out DIR`: a deterministic WANDS-format catalogue of N items built from COGR_DATA. */
import { performance } from "node:perf_hooks";
import { dataDir, dataSource } from "../training/data/dataset.js";
import { writeSyntheticCatalogue } from "../training/data/synth.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";

const USAGE = "npm run synth -- --items N [--seed S] --out DIR";

runCli(async () => {
  const args = parseCli({ items: { type: "string" }, seed: { type: "string" }, out: { type: "string" } }, USAGE);
  if (args.items === undefined) throw new UsageError(`--items is required\nusage: ${USAGE}`);
  if (!args.out) throw new UsageError(`--out is required\nusage: ${USAGE}`);
  const items = intOption("items", args.items, 0, 1);
  const source = dataDir();
  dataSource(source); // neither a catalogue nor WANDS: one line, before anything is written
  const t0 = performance.now();
  const s = await writeSyntheticCatalogue(source, args.out, {
    items,
    seed: intOption("seed", args.seed, 42),
    progress: (done, total) => process.stderr.isTTY && process.stderr.write(`\rsynth ${done}/${total}`),
  });
  if (process.stderr.isTTY) process.stderr.write("\n");
  console.log(
    `synthetic catalogue → ${args.out}: ${s.items} items from ${s.templates} templates, ${s.queries} queries, ${s.labels} labels; ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
});
