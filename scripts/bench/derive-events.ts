/** `tsx scripts/bench/derive-events.ts FILE`: the derivation alone, as `--supervision clicks` runs it (bench:events times it). */
import { deriveClickRelevance } from "../../training/clicks/derive.js";
import { formatDeriveReport } from "../../training/clicks/report.js";
import { readLines } from "../../training/jsonl.js";
import { runCli } from "../cli.js";

runCli(() => {
  const file = process.argv[2];
  if (!file) throw new Error("usage: tsx scripts/bench/derive-events.ts FILE");
  console.log(formatDeriveReport(deriveClickRelevance(() => readLines(file)).report));
});
