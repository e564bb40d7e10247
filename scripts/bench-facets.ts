/**
 * `npm run bench:facets -- [--round N] [--share F]`: the facet columns of a
 * built round (COGR_ARTIFACTS), as publish derives them, and what a faceted
 * search adds in core: counting `class` and filtering on a top-level
 * category over a sorted candidate set of `share` × the items (a common
 * query's I_ret(q) at 1M items is about 10 %). A benchmark, not a test.
 */
import { performance } from "node:perf_hooks";
import { buildColumns, CLASS_COLUMN, categoryLevelColumn, chunkCount } from "../core/columns.js";
import { compileFilters, countFacet, filterOrdinals, filterPredicate } from "../core/filters.js";
import { readManifest, roundDir, roundItems } from "../training/round-artifact.js";
import { percentile, printTable } from "./bench/stats.js";
import { parseCli, runCli, UsageError } from "./cli.js";

const USAGE = "npm run bench:facets -- [--round N] [--share F]";
const REPEATS = 50;

runCli(async () => {
  const args = parseCli({ round: { type: "string" }, share: { type: "string" } }, USAGE);
  const round = Number(args.round ?? 0);
  const share = Number(args.share ?? 0.1);
  if (!Number.isInteger(round) || round < 0) throw new UsageError(`--round must be a round number\nusage: ${USAGE}`);
  if (!(share > 0 && share <= 1)) throw new UsageError(`--share must be in (0, 1]\nusage: ${USAGE}`);
  const dir = roundDir(round);
  const manifest = readManifest(dir);
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const { meta, codes } = buildColumns(roundItems(dir, manifest));
  const buildMs = performance.now() - t0;
  const bytes = [...codes.values()].reduce((s, c) => s + c.byteLength, 0);
  const dictBytes = JSON.stringify(meta).length;
  console.log(
    `round ${round}: ${meta.itemCount} items, ${meta.columns.length} columns (${meta.omitted.length} left out) in ${(buildMs / 1000).toFixed(1)} s; codes ${(bytes / 2 ** 20).toFixed(1)} MB, meta ${(dictBytes / 2 ** 20).toFixed(2)} MB, ${chunkCount(meta)} chunks a column; RSS +${((process.memoryUsage().rss - rss0) / 2 ** 20).toFixed(0)} MB`,
  );
  printTable(
    meta.columns.map((c) => ({
      column: c.name,
      values: String(c.values.length),
      "bytes/item": String(c.width),
      MB: ((c.width * meta.itemCount) / 2 ** 20).toFixed(1),
    })),
  );

  // Every step-th ordinal: a sorted candidate set spread over the whole catalogue, as I_ret(q) is.
  const step = Math.max(1, Math.round(1 / share));
  const candidates = new Uint32Array(Math.ceil(meta.itemCount / step)).map((_, j) => j * step);
  const top = meta.columns.find((c) => c.name === categoryLevelColumn(0))?.values[0] ?? "none";
  const keep = filterPredicate(compileFilters(meta, [{ parameter: "category", field: "category", raw: top }]), codes);
  const time = (f: () => unknown) => {
    for (let r = 0; r < 5; r++) f();
    const xs: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const t = performance.now();
      f();
      xs.push(performance.now() - t);
    }
    return percentile(
      xs.sort((a, b) => a - b),
      50,
    );
  };
  const count = time(() => countFacet(meta, CLASS_COLUMN, codes.get(CLASS_COLUMN), candidates));
  const filter = time(() => filterOrdinals(candidates, keep));
  const ns = (msv: number) => ((msv * 1e6) / candidates.length).toFixed(1);
  console.log(`\nover ${candidates.length} candidates (every ${step}th ordinal), p50 of ${REPEATS}:`);
  printTable([
    { step: "facets=class (count, top 20)", "p50 ms": count.toFixed(2), "ns per candidate": ns(count) },
    { step: `filter category=${top}`, "p50 ms": filter.toFixed(2), "ns per candidate": ns(filter) },
  ]);
});
