/**
 * `npm run labels [-- --state DIR]`: loads the relevance labels of COGR_DATA
 * (WANDS, or a catalogue imported with labels) into the local catalogue's `labels` table for the workbench
 * (/compare shows labels and P/R/F1 with them). Local state only: labels are
 * development data, never part of a round and never read by search.
 * Replaces whatever labels were there; queries are keyed by their normalised
 * text (two WANDS queries with the same text share their labels, first wins).
 * Each row is stamped with the load time: a judgment made in the page later
 * wins over it (core/labels.ts). It also loads what the workbench shows next
 * to the labels: every item's description and features (the item page), and
 * the evaluation's BM25 run of each labelled query (the `bm25` side,
 * scripts/workbench/bm25-runs.ts), when a round's split exists to tune it on.
 */
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { normalizeKeyword } from "../core/normalize.js";
import { readDeployConfig } from "../publish/node/deploy-config.js";
import { applyMigrations, DEFAULT_STATE_DIR, localTarget } from "../publish/node/targets.js";
import { sqlText } from "../publish/sql.js";
import { dataDir, dataSource, hasLabels, loadSourceGrades, loadSourceQueries } from "../training/data/dataset.js";
import { DataError } from "../training/data/types.js";
import { parseCli, runCli, UsageError } from "./cli.js";
import { bm25Baseline, bm25RunStatements } from "./workbench/bm25-runs.js";
import { itemDetailStatements } from "./workbench/item-details.js";
import { executeAll } from "./workbench/sql.js";

const USAGE = "npm run labels [-- --state DIR]";
export const LABEL_LIMITS = { rowsPerStatement: 400, statementsPerBatch: 25 } as const;

runCli(async () => {
  const args = parseCli({ state: { type: "string" } }, USAGE);
  const stateDir = args.state ?? DEFAULT_STATE_DIR;
  // A --state that does not exist is a typo, not a new state: labels loaded there would reach no server
  // (npm start --state DIR creates it). The default state may be made here: the README loads labels before npm start.
  if (args.state !== undefined && !existsSync(args.state))
    throw new UsageError(`--state ${args.state} does not exist: name the state npm start serves (npm start -- --state DIR creates one)`);
  const t0 = performance.now();
  const src = dataSource(dataDir());
  if (!hasLabels(src)) throw new DataError(`no labels to load: ${src.dir} is a catalogue without queries and labels (import them with --queries and --labels)`);
  const queries = await loadSourceQueries(src);
  const grades = await loadSourceGrades(src);
  const rows = new Map<string, string>();
  const loadedAt = sqlText(new Date().toISOString());
  for (const q of queries) {
    const text = normalizeKeyword(q.text);
    if (text === "") continue;
    for (const [item, label] of grades.get(q.id) ?? []) {
      const key = `${text}\u0000${item}`;
      if (!rows.has(key)) rows.set(key, `(${sqlText(text)},${sqlText(item)},${sqlText(label)},${loadedAt})`);
    }
  }
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir });
  const target = await localTarget(config, stateDir);
  try {
    const values = [...rows.values()];
    const statements = ["DELETE FROM labels"];
    for (let j = 0; j < values.length; j += LABEL_LIMITS.rowsPerStatement) {
      statements.push(`INSERT INTO labels (query, item_id, label, loaded_at) VALUES ${values.slice(j, j + LABEL_LIMITS.rowsPerStatement).join(",")}`);
    }
    for (let j = 0; j < statements.length; j += LABEL_LIMITS.statementsPerBatch)
      await target.catalog.execute(statements.slice(j, j + LABEL_LIMITS.statementsPerBatch));
    const n = Number(await target.catalog.scalar("SELECT COUNT(*) FROM labels"));
    const nq = Number(await target.catalog.scalar("SELECT COUNT(DISTINCT query) FROM labels"));
    console.log(`${n} labels for ${nq} queries loaded into local state ${stateDir}; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const details = await itemDetailStatements(src, sqlText);
    await executeAll(target.catalog, details.statements);
    console.log(`${details.items} item descriptions and features loaded (the item page)`);
    const baseline = await bm25Baseline(src);
    if ("skipped" in baseline) console.log(`BM25 runs skipped: ${baseline.skipped}`);
    else {
      const texts = [...new Set([...rows.keys()].map((k) => k.slice(0, k.indexOf("\u0000"))))];
      await executeAll(target.catalog, bm25RunStatements(baseline, texts, sqlText));
      console.log(
        `BM25 runs of ${texts.length} labelled queries stored (over the item text, cutoff ${baseline.cutoff} tuned on ${baseline.tunedOn} training queries of round ${baseline.splitRound}'s split)`,
      );
    }
  } finally {
    await target.dispose();
  }
});
