/**
 * `npm run query-set -- --name N --file F [--state DIR]`: uploads a query set
 * for the workbench's /queries page into the local catalogue: one query per
 * line (or a WANDS-format query.csv, its `query` column), normalised, blank
 * lines and repeats dropped, replacing a set of the same name. With
 * COGR_DATA's products and a round's split, the evaluation's BM25 run of each
 * query is stored too (the `bm25` side; scripts/workbench/bm25-runs.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { normalizeKeyword } from "../core/normalize.js";
import { readDeployConfig } from "../publish/node/deploy-config.js";
import { applyMigrations, DEFAULT_STATE_DIR, localTarget } from "../publish/node/targets.js";
import { sqlText } from "../publish/sql.js";
import { dataDir, dataSource } from "../training/data/dataset.js";
import { DataError } from "../training/data/types.js";
import { parseCli, runCli, UsageError } from "./cli.js";
import { bm25Baseline, bm25RunStatements } from "./workbench/bm25-runs.js";
import { executeAll, packedInserts } from "./workbench/sql.js";

const USAGE = "npm run query-set -- --name N --file F [--state DIR]";
const QUERY_SET_CLI_LIMITS = { maxQueries: 10_000, maxQueryChars: 256 } as const;
const BUILT_IN = new Set(["labelled", "frequent"]);

/** The file's queries: lines, or a WANDS query.csv's query column; normalised, in order, each once. */
function parseQueryFile(text: string, path: string): string[] {
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? "").split("\t");
  const column = header.includes("query_id") && header.includes("query") ? header.indexOf("query") : -1;
  const out = new Set<string>();
  lines.slice(column >= 0 ? 1 : 0).forEach((line, j) => {
    const raw = column >= 0 ? (line.split("\t")[column] ?? "") : line;
    const q = normalizeKeyword(raw);
    if (q === "") return;
    if (q.length > QUERY_SET_CLI_LIMITS.maxQueryChars)
      throw new DataError(`${path}:${j + (column >= 0 ? 2 : 1)}: a query over ${QUERY_SET_CLI_LIMITS.maxQueryChars} characters`);
    out.add(q);
  });
  return [...out];
}

runCli(async () => {
  const args = parseCli({ name: { type: "string" }, file: { type: "string" }, state: { type: "string" } }, USAGE);
  if (args.name === undefined || args.file === undefined) throw new UsageError(`--name and --file are required\nusage: ${USAGE}`);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(args.name)) throw new UsageError(`--name must be 1–64 letters, digits, - or _, got ${JSON.stringify(args.name)}`);
  if (BUILT_IN.has(args.name)) throw new UsageError(`--name ${args.name} is a built-in set (labelled, frequent): pick another name`);
  if (!existsSync(args.file)) throw new UsageError(`--file ${args.file} does not exist`);
  if (args.state !== undefined && !existsSync(args.state)) throw new UsageError(`--state ${args.state} does not exist: name the state npm start serves`);
  const stateDir = args.state ?? DEFAULT_STATE_DIR;
  const queries = parseQueryFile(readFileSync(args.file, "utf8"), args.file);
  if (queries.length === 0) throw new DataError(`${args.file}: no queries (one per line, or a query.csv with a query column)`);
  if (queries.length > QUERY_SET_CLI_LIMITS.maxQueries) throw new DataError(`${args.file}: ${queries.length} queries, over ${QUERY_SET_CLI_LIMITS.maxQueries}`);
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir });
  const target = await localTarget(config, stateDir);
  try {
    const values = queries.map((q, j) => `(${sqlText(args.name as string)},${j},${sqlText(q)})`);
    await executeAll(target.catalog, [
      `DELETE FROM query_sets WHERE name = ${sqlText(args.name)}`,
      ...packedInserts("INSERT INTO query_sets (name, position, query) VALUES ", values),
    ]);
    console.log(`query set ${args.name}: ${queries.length} queries loaded into local state ${stateDir}`);
    let baseline: Awaited<ReturnType<typeof bm25Baseline>>;
    try {
      baseline = await bm25Baseline(dataSource(dataDir()));
    } catch (e) {
      baseline = { skipped: e instanceof Error ? e.message : String(e) };
    }
    if ("skipped" in baseline) console.log(`BM25 runs skipped: ${baseline.skipped}`);
    else {
      await executeAll(target.catalog, bm25RunStatements(baseline, queries, sqlText));
      console.log(`BM25 runs of ${queries.length} queries stored (cutoff ${baseline.cutoff} tuned on ${baseline.tunedOn} training queries)`);
    }
  } finally {
    await target.dispose();
  }
});
