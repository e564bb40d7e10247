/**
 * `npm run typos -- --queries FILE --out FILE [--seed S] [--round N --split dev|train]`
 *
 * A seeded misspelled copy of a WANDS-format query file (query_id, query,
 * query_class): one typo in one word of each query (training/typos.ts), the
 * ids kept, so the same labels judge it. With --round and --split, only that
 * split of the round's queries. Evaluate it with
 * `npm run eval -- --method keywords --queries OUT --labels label.csv`.
 */
import { writeFileSync } from "node:fs";
import { Rng } from "../core/rng.js";
import { loadQueries } from "../training/data/wands.js";
import { readManifest, roundDir } from "../training/round-artifact.js";
import { misspellQuery } from "../training/typos.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";

const USAGE = "npm run typos -- --queries FILE --out FILE [--seed S] [--round N --split dev|train] [--ids integer|string]";

runCli(async () => {
  const args = parseCli(
    {
      queries: { type: "string" },
      out: { type: "string" },
      seed: { type: "string" },
      round: { type: "string" },
      split: { type: "string" },
      ids: { type: "string" },
    },
    USAGE,
  );
  if (!args.queries || !args.out) throw new UsageError("--queries and --out are required");
  if (args.split !== undefined && args.split !== "dev" && args.split !== "train")
    throw new UsageError(`--split must be dev or train, got ${JSON.stringify(args.split)}`);
  if ((args.split === undefined) !== (args.round === undefined)) throw new UsageError("--round and --split go together");
  if (args.ids !== undefined && args.ids !== "integer" && args.ids !== "string")
    throw new UsageError(`--ids must be integer or string, got ${JSON.stringify(args.ids)}`);
  const seed = intOption("seed", args.seed, 1);
  const keep = args.split ? new Set(readManifest(roundDir(intOption("round", args.round, 0))).split[args.split as "dev" | "train"]) : null;
  const queries = (await loadQueries(args.queries, args.ids === "string" ? "string" : "integer")).filter((q) => !keep || keep.has(q.id));
  const rng = new Rng(seed);
  let untouched = 0;
  const tsv = (s: string) => s.replace(/[\t\r\n]+/g, " ");
  const lines = ["query_id\tquery\tquery_class"];
  for (const q of queries) {
    const typo = misspellQuery(q.text, rng);
    if (typo === null) untouched++;
    lines.push(`${q.id}\t${tsv(typo ?? q.text)}\t${tsv(q.class)}`);
  }
  writeFileSync(args.out, `${lines.join("\n")}\n`);
  console.log(
    `${queries.length} queries written to ${args.out}, ${queries.length - untouched} with one typo (seed ${seed}); ${untouched} had no word of 4+ letters and are copied as they are`,
  );
});
