/**
 * `npm run labels:export -- --out DIR [--state DIR]`: the local catalogue's
 * labels as the workbench reads them (the file's, with judgments made in the
 * page merged by core/labels.ts) into a WANDS-format folder that training
 * and evaluation read as COGR_DATA: label.csv, query.csv (COGR_DATA's queries
 * with their ids, then the judged queries it lacks, numbered after them) and,
 * for a WANDS folder, a copy of product.csv.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Grade, mergeLabels } from "../core/labels.js";
import { normalizeKeyword } from "../core/normalize.js";
import { readDeployConfig } from "../publish/node/deploy-config.js";
import { applyMigrations, DEFAULT_STATE_DIR, localBindings } from "../publish/node/targets.js";
import { dataDir, dataSource, loadSourceQueries } from "../training/data/dataset.js";
import { DataError } from "../training/data/types.js";
import { parseCli, runCli, UsageError } from "./cli.js";

const USAGE = "npm run labels:export -- --out DIR [--state DIR]";

/** A TSV field: WANDS's files have no quoting, so tabs and line breaks become spaces. */
const field = (s: string) => s.replace(/[\t\r\n]+/g, " ");

runCli(async () => {
  const args = parseCli({ out: { type: "string" }, state: { type: "string" } }, USAGE);
  if (args.out === undefined) throw new UsageError(`--out DIR is required\nusage: ${USAGE}`);
  if (args.state !== undefined && !existsSync(args.state)) throw new UsageError(`--state ${args.state} does not exist: name the state npm start serves`);
  const stateDir = args.state ?? DEFAULT_STATE_DIR;
  const src = dataSource(dataDir());
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir });
  const proxy = await localBindings(config, stateDir);
  let file: Array<{ query: string; item_id: string; label: Grade; loaded_at: string | null }>;
  let judged: Array<{ query: string; item_id: string; label: Grade; judged_at: string }>;
  try {
    const db = proxy.env[config.catalog.binding] as { prepare(sql: string): { all<T>(): Promise<{ results: T[] }> } };
    file = (await db.prepare("SELECT query, item_id, label, loaded_at FROM labels").all<(typeof file)[number]>()).results;
    judged = (await db.prepare("SELECT query, item_id, label, judged_at FROM judgments").all<(typeof judged)[number]>()).results;
  } finally {
    await proxy.dispose();
  }
  if (file.length === 0 && judged.length === 0)
    throw new DataError(`no labels or judgments in local state ${stateDir}: npm run labels loads the file's, the compare page adds judgments`);
  const texts = [...new Set([...file.map((r) => r.query), ...judged.map((r) => r.query)])].sort();
  const merged = new Map<string, Map<string, Grade>>();
  for (const q of texts) {
    merged.set(
      q,
      mergeLabels(
        file.filter((r) => r.query === q).map((r) => ({ itemId: r.item_id, label: r.label, loadedAt: r.loaded_at })),
        judged.filter((r) => r.query === q).map((r) => ({ itemId: r.item_id, label: r.label, judgedAt: r.judged_at })),
      ),
    );
  }
  // COGR_DATA's queries keep their ids (a round's split names them); a judged query it lacks gets the next id.
  const queries = await loadSourceQueries(src);
  const idsOf = new Map<string, string[]>();
  for (const q of queries) {
    const t = normalizeKeyword(q.text);
    idsOf.set(t, [...(idsOf.get(t) ?? []), q.id]);
  }
  let next = queries.reduce((m, q) => Math.max(m, Number.isInteger(Number(q.id)) ? Number(q.id) : -1), -1) + 1;
  const queryRows = queries.map((q) => `${field(q.id)}\t${field(q.text)}\t${field(q.class)}`);
  for (const t of texts)
    if (!idsOf.has(t)) {
      idsOf.set(t, [String(next)]);
      queryRows.push(`${next++}\t${field(t)}\t`);
    }
  const labelRows: string[] = [];
  for (const [t, labels] of merged)
    for (const id of idsOf.get(t) ?? []) for (const [item, label] of labels) labelRows.push(`${labelRows.length}\t${id}\t${field(item)}\t${label}`);
  mkdirSync(args.out, { recursive: true });
  writeFileSync(join(args.out, "query.csv"), `query_id\tquery\tquery_class\n${queryRows.map((r) => `${r}\n`).join("")}`);
  writeFileSync(join(args.out, "label.csv"), `id\tquery_id\tproduct_id\tlabel\n${labelRows.map((r) => `${r}\n`).join("")}`);
  const products = src.kind === "wands" ? src.products : null;
  if (products) copyFileSync(products, join(args.out, "product.csv"));
  console.log(
    `${labelRows.length} labels for ${texts.length} queries (${judged.length} judgments merged) exported to ${args.out}` +
      (products ? ` with product.csv: COGR_DATA=${args.out} trains and evaluates on them` : ": pass --queries/--labels to npm run eval"),
  );
});
