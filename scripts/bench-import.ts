/**
 * `npm run bench:import -- [--items 1000000] [--seed S] [--keep DIR]`: COGR_DATA
 * rewritten as a shop's JSON Lines catalogue of N lines (shuffled, other
 * field names, string ids; scripts/bench/rewrite-catalogue.ts), then
 * `npm run import` on it, timed, with its peak RSS (goal: 1M lines in
 * ≤ 2 min and ≤ 1 GB).
 *
 * `npm run bench:import -- --equivalence [--rounds 2] [--seeds 1,7,42]`: COGR_DATA
 * rewritten the same way with its queries and labels, imported, then trained
 * (`npm run train -- --backend lexical --rounds R --seed S`, for each seed)
 * and evaluated (`npm run eval -- --method keywords --round R`, dev split)
 * beside the same runs on COGR_DATA itself, each under its own
 * COGR_ARTIFACTS (goal: within 0.01 F1). The last line is one JSON object
 * with every F1 and the means over the seeds. `--ids padded`
 * keeps the source's id order (sku-00042), separating what the import
 * changes from what a new item order changes in seeded training.
 * A benchmark, not a test.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { dataDir } from "../training/data/dataset.js";
import { type IdStyle, REWRITE_FILES, rewriteAsShopJsonl } from "./bench/rewrite-catalogue.js";
import { step } from "./bench/scale-steps.js";
import { printTable } from "./bench/stats.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";

const USAGE =
  "npm run bench:import -- [--items 1000000] [--seed S] [--keep DIR] | --equivalence [--rounds 2] [--seeds 42[,7,…]] [--ids sku|padded] [--keep DIR]";
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

runCli(async () => {
  const args = parseCli(
    {
      items: { type: "string" },
      seed: { type: "string" },
      keep: { type: "string" },
      equivalence: { type: "boolean" },
      rounds: { type: "string" },
      ids: { type: "string" },
      seeds: { type: "string" },
    },
    USAGE,
  );
  const seed = intOption("seed", args.seed, 42);
  const ids = args.ids ?? "sku";
  if (ids !== "sku" && ids !== "padded") throw new UsageError(`--ids must be sku or padded\nusage: ${USAGE}`);
  const work = args.keep ?? mkdtempSync(join(tmpdir(), "cogr-bench-import-"));
  try {
    if (args.equivalence) await equivalence(work, intOption("rounds", args.rounds, 2, 1), seedList(args.seeds ?? String(seed)), ids);
    else await importBench(work, intOption("items", args.items, 1_000_000, 1), seed);
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
});

function seedList(value: string): number[] {
  const seeds = value.split(",").map((v) => intOption("seeds", v.trim(), 42));
  if (seeds.length === 0) throw new UsageError(`--seeds must list seeds, e.g. 1,7,42\nusage: ${USAGE}`);
  return seeds;
}

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
      "wall s": r.seconds.toFixed(1),
      "CPU s": r.cpuSeconds.toFixed(1),
      "peak RSS MB": r.peakRssMb.toFixed(0),
      "lines/s": Math.round(w.items / r.seconds).toLocaleString("en"),
      "input MB": mb(bytes),
      "products.jsonl MB": mb(catalog),
    },
  ]);
  console.log(r.out.split("\n").at(-1));
  console.log(
    JSON.stringify({
      items: w.items,
      inputMb: Number(mb(bytes)),
      seconds: Number(r.seconds.toFixed(1)),
      cpuSeconds: Number(r.cpuSeconds.toFixed(1)),
      peakRssMb: Math.round(r.peakRssMb),
    }),
  );
}

async function equivalence(work: string, rounds: number, seeds: readonly number[], ids: IdStyle): Promise<void> {
  const source = dataDir();
  const shop = join(work, "shop");
  const w = await rewriteAsShopJsonl(source, shop, { seed: seeds[0] as number, ids });
  if (w.labels === 0) throw new Error(`${source} has no labels: the equivalence is measured on its labelled queries`);
  const imp = await step("import", ["--map", w.map, "--out", join(work, "catalog")], {});
  console.log(imp.out.split("\n").at(-1));
  const data = { source, imported: join(work, "catalog") } as const;
  const rows: Array<Record<string, string>> = [];
  const runs: Array<{ seed: number; round0: Record<keyof typeof data, number>; f1: Record<keyof typeof data, number> }> = [];
  for (const seed of seeds) {
    const run = { seed, round0: { source: 0, imported: 0 }, f1: { source: 0, imported: 0 } };
    for (const name of ["source", "imported"] as const) {
      const env = { COGR_DATA: data[name], COGR_ARTIFACTS: join(work, `artifacts-${name}-seed-${seed}`) };
      await step("train", ["--backend", "lexical", "--rounds", String(rounds), "--seed", String(seed)], env);
      const evalF1 = async (round: number) => {
        const r = await step("eval", ["--method", "keywords", "--round", String(round), "--json"], env);
        return (JSON.parse(r.out.split("\n").at(-1) as string) as { f1: number }).f1;
      };
      run.round0[name] = await evalF1(0);
      run.f1[name] = await evalF1(rounds);
    }
    runs.push(run);
    rows.push({
      seed: String(seed),
      "round 0 F1 (source / imported)": `${run.round0.source.toFixed(4)} / ${run.round0.imported.toFixed(4)}`,
      [`round ${rounds} F1, ${source}`]: run.f1.source.toFixed(4),
      [`round ${rounds} F1, imported (${ids} ids)`]: run.f1.imported.toFixed(4),
      "|ΔF1|": Math.abs(run.f1.source - run.f1.imported).toFixed(4),
    });
  }
  const mean = (f: (r: (typeof runs)[number]) => number) => runs.reduce((sum, r) => sum + f(r), 0) / runs.length;
  const means = { source: mean((r) => r.f1.source), imported: mean((r) => r.f1.imported) };
  if (runs.length > 1) {
    rows.push({
      seed: "mean",
      "round 0 F1 (source / imported)": "",
      [`round ${rounds} F1, ${source}`]: means.source.toFixed(4),
      [`round ${rounds} F1, imported (${ids} ids)`]: means.imported.toFixed(4),
      "|ΔF1|": Math.abs(means.source - means.imported).toFixed(4),
    });
  }
  printTable(rows);
  console.log(`dev F1 at round ${rounds}, mean over seeds ${seeds.join(", ")}: |ΔF1| ${Math.abs(means.source - means.imported).toFixed(4)} (goal ≤ 0.01)`);
  console.log(JSON.stringify({ rounds, ids, runs, mean: means, absDiff: Number(Math.abs(means.source - means.imported).toFixed(4)) }));
}
