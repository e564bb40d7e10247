/**
 * `npm run bench:import -- [--items 1000000] [--seed S] [--keep DIR]`: COGR_DATA
 * rewritten as a shop's JSON Lines catalogue of N lines (shuffled, other
 * field names, string ids; scripts/bench/rewrite-catalogue.ts), then
 * `npm run import` on it, timed, with its peak RSS (goal: 1M lines in
 * ≤ 2 min and ≤ 1 GB).
 *
 * `npm run bench:import -- --equivalence [--rounds 2] [--seed 42]`: COGR_DATA
 * rewritten the same way with its queries and labels, imported, then trained
 * (`npm run train -- --backend lexical --rounds R --seed S`) and evaluated
 * (`npm run eval -- --method keywords --round R`, dev split) beside the same
 * run on COGR_DATA itself, each under its own COGR_ARTIFACTS (goal: within
 * 0.01 F1). The last line is one JSON object with both F1s.
 * A benchmark, not a test.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { dataDir } from "../training/data/dataset.js";
import { REWRITE_FILES, rewriteAsShopJsonl } from "./bench/rewrite-catalogue.js";
import { step } from "./bench/scale-steps.js";
import { printTable } from "./bench/stats.js";
import { intOption, parseCli, runCli } from "./cli.js";

const USAGE = "npm run bench:import -- [--items 1000000] [--seed S] [--keep DIR] | --equivalence [--rounds 2] [--seed 42] [--keep DIR]";
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

runCli(async () => {
  const args = parseCli(
    { items: { type: "string" }, seed: { type: "string" }, keep: { type: "string" }, equivalence: { type: "boolean" }, rounds: { type: "string" } },
    USAGE,
  );
  const seed = intOption("seed", args.seed, 42);
  const work = args.keep ?? mkdtempSync(join(tmpdir(), "cogr-bench-import-"));
  try {
    if (args.equivalence) await equivalence(work, intOption("rounds", args.rounds, 2, 1), seed);
    else await importBench(work, intOption("items", args.items, 1_000_000, 1), seed);
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
});

async function importBench(work: string, items: number, seed: number): Promise<void> {
  const shop = join(work, "shop");
  const t0 = performance.now();
  const w = await rewriteAsShopJsonl(dataDir(), shop, { items, seed, labels: false });
  const bytes = statSync(join(shop, REWRITE_FILES.products)).size;
  console.log(`rewrote ${dataDir()} as ${w.items} shuffled JSON lines (${mb(bytes)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const r = await step("import", ["--map", w.map, "--out", join(work, "catalog")], {});
  const catalog = statSync(join(work, "catalog", "products.jsonl")).size;
  printTable([
    {
      step: `import ${w.items} lines`,
      seconds: r.seconds.toFixed(1),
      "peak RSS MB": r.peakRssMb.toFixed(0),
      "lines/s": Math.round(w.items / r.seconds).toLocaleString("en"),
      "input MB": mb(bytes),
      "products.jsonl MB": mb(catalog),
    },
  ]);
  console.log(r.out.split("\n").at(-1));
  console.log(JSON.stringify({ items: w.items, inputMb: Number(mb(bytes)), seconds: Number(r.seconds.toFixed(1)), peakRssMb: Math.round(r.peakRssMb) }));
}

async function equivalence(work: string, rounds: number, seed: number): Promise<void> {
  const source = dataDir();
  const shop = join(work, "shop");
  const w = await rewriteAsShopJsonl(source, shop, { seed });
  if (w.labels === 0) throw new Error(`${source} has no labels: the equivalence is measured on its labelled queries`);
  const imp = await step("import", ["--map", w.map, "--out", join(work, "catalog")], {});
  console.log(imp.out.split("\n").at(-1));
  const rows: Array<Record<string, string>> = [];
  const f1 = {} as Record<"source" | "imported", { round0: number; trained: number; seconds: number }>;
  for (const [name, data] of [
    ["source", source],
    ["imported", join(work, "catalog")],
  ] as const) {
    const env = { COGR_DATA: data, COGR_ARTIFACTS: join(work, `artifacts-${name}`) };
    const train = await step("train", ["--backend", "lexical", "--rounds", String(rounds), "--seed", String(seed)], env);
    const evalF1 = async (round: number) => {
      const r = await step("eval", ["--method", "keywords", "--round", String(round), "--json"], env);
      return (JSON.parse(r.out.split("\n").at(-1) as string) as { f1: number }).f1;
    };
    f1[name] = { round0: await evalF1(0), trained: await evalF1(rounds), seconds: train.seconds };
    rows.push({
      data: name === "source" ? `${source} (as it is)` : "rewritten as JSON Lines, imported",
      "round 0 dev F1": f1[name].round0.toFixed(4),
      [`round ${rounds} dev F1`]: f1[name].trained.toFixed(4),
      "train s": train.seconds.toFixed(0),
    });
  }
  printTable(rows);
  const diff = Math.abs(f1.source.trained - f1.imported.trained);
  console.log(`|ΔF1| at round ${rounds}: ${diff.toFixed(4)} (goal ≤ 0.01)`);
  console.log(
    JSON.stringify({
      rounds,
      seed,
      source: { round0: f1.source.round0, f1: f1.source.trained },
      imported: { round0: f1.imported.round0, f1: f1.imported.trained },
      absDiff: Number(diff.toFixed(4)),
    }),
  );
}
