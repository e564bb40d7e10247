/**
 * The workbench's CLIs on a synthetic catalogue and real local state: `npm run labels` stores the
 * evaluation's BM25 runs (the cutoff `npm run eval --method bm25` tunes) and item details;
 * `npm run query-set` uploads a set; `npm run labels:export` writes the labels merged with judgments
 * as a WANDS folder that evaluation reads. Bad input: one line, non-zero exit.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keywordWords, normalizeKeyword } from "../../core/normalize.js";
import { planQuery } from "../../core/retrieve.js";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { localTarget, type OpenTarget } from "../../publish/node/targets.js";
import { loadDataset } from "../../training/data/dataset.js";
import { buildTextIndex } from "../../training/evaluate.js";
import { runScript } from "../cli.js";
import { cliWorkspace } from "../fixtures.js";

const ws = cliWorkspace(150, "workbench");
const env = ws.env;
let db: OpenTarget;

beforeAll(async () => {
  const built = runScript("build-round.ts", ["--round", "0", "--dev-queries", "8"], env);
  expect(built.status).toBe(0);
}, 120_000);

afterAll(async () => {
  await db?.dispose();
});

describe("npm run labels, query-set and labels:export", () => {
  it("stores each labelled query's BM25 run with the cutoff npm run eval tunes, and every item's details", async () => {
    const r = runScript("labels.ts", ["--state", ws.state], env);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^\d+ labels for \d+ queries loaded into local state/);
    expect(r.stdout).toMatch(/^150 item descriptions and features loaded/m);
    const stored = /BM25 runs of (\d+) labelled queries stored \(over the item text, cutoff (\d+) tuned on (\d+) training queries of round 0's split\)/.exec(
      r.stdout,
    );
    const evaluated = /cutoff (\d+) tuned on (\d+) training queries/.exec(runScript("eval.ts", ["--method", "bm25", "--round", "0"], env).stdout);
    expect(stored?.slice(2)).toEqual(evaluated?.slice(1));
    db = await localTarget(readDeployConfig(), ws.state);
    const run = JSON.parse(String(await db.catalog.scalar("SELECT ranked FROM bm25_runs WHERE query = ?", "wood chair"))) as Array<[string, number]>;
    const text = buildTextIndex((await loadDataset(ws.synth.dir)).products);
    const page = text.search(planQuery(keywordWords(normalizeKeyword("wood chair")), ""), { limit: run.length });
    expect(run).toEqual(page.hits.map((h) => [text.ids[h.item], h.score]));
    expect(run.length).toBeGreaterThanOrEqual(Math.min(100, page.total));
    expect(await db.catalog.scalar("SELECT COUNT(*) FROM labels WHERE loaded_at IS NULL")).toBe(0);
    expect(JSON.parse(String(await db.catalog.scalar("SELECT features FROM item_details WHERE id = '1'")))).toContainEqual(["assembly", "required"]);
  });

  it("uploads a query set, normalised, in file order, each query once, with its BM25 runs", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "cogr-qs-")), "set.txt");
    writeFileSync(file, "Oak Chair\n\nspaceship\noak   chair\nzebra stool\n");
    const r = runScript("query-set.ts", ["--name", "mine", "--file", file, "--state", ws.state], env);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^query set mine: 3 queries loaded/);
    expect(r.stdout).toMatch(/BM25 runs of 3 queries stored/);
    expect(await db.catalog.scalar("SELECT group_concat(query, '|') FROM (SELECT query FROM query_sets WHERE name = 'mine' ORDER BY position)")).toBe(
      "oak chair|spaceship|zebra stool",
    );
    expect(await db.catalog.scalar("SELECT COUNT(*) FROM bm25_runs WHERE query IN ('oak chair', 'zebra stool')")).toBe(2);
  });

  it("exports the file's labels with newer judgments merged as a WANDS folder that npm run eval reads", async () => {
    // A judgment made after the load overrides the file's label; one for a query the file lacks adds that query.
    const relevantId = String(await db.catalog.scalar("SELECT item_id FROM labels WHERE query = 'chair' AND label = 'Exact' ORDER BY item_id LIMIT 1"));
    await db.catalog.execute([
      `INSERT INTO judgments (query, item_id, rater, label, judged_at) VALUES ('chair', '${relevantId}', 'ana', 'Irrelevant', '2999-01-01T00:00:00Z')`,
      "INSERT INTO judgments (query, item_id, rater, label, judged_at) VALUES ('zebra stool', '3', 'ana', 'Exact', '2999-01-01T00:00:00Z')",
    ]);
    const out = join(mkdtempSync(join(tmpdir(), "cogr-export-")), "labels");
    const r = runScript("labels-export.ts", ["--out", out, "--state", ws.state], env);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/labels for \d+ queries \(2 judgments merged\) exported to .* with product\.csv/);
    const queries = readFileSync(join(out, "query.csv"), "utf8").replace(/\n$/, "").split("\n");
    expect(queries.slice(0, -1)).toEqual(readFileSync(join(ws.synth.dir, "query.csv"), "utf8").trim().split("\n"));
    const zebra = queries.at(-1)?.split("\t") ?? [];
    expect(zebra.slice(1)).toEqual(["zebra stool", ""]);
    const labels = readFileSync(join(out, "label.csv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split("\t").slice(1));
    expect(labels).toContainEqual(["0", relevantId, "Irrelevant"]); // query 0 is "chair"
    expect(labels).not.toContainEqual(["0", relevantId, "Exact"]);
    expect(labels).toContainEqual([zebra[0], "3", "Exact"]);
    expect(readFileSync(join(out, "product.csv"))).toEqual(readFileSync(join(ws.synth.dir, "product.csv")));
    // Evaluation reads the folder as COGR_DATA, and its files as --queries/--labels.
    const asData = runScript("eval.ts", ["--method", "bm25", "--json"], { ...env, COGR_DATA: out });
    expect([asData.status, asData.stderr]).toEqual([0, ""]);
    expect(JSON.parse(asData.stdout).queries).toBeGreaterThan(0);
    const asFiles = runScript("eval.ts", ["--method", "keywords", "--json", "--queries", join(out, "query.csv"), "--labels", join(out, "label.csv")], env);
    expect([asFiles.status, asFiles.stderr]).toEqual([0, ""]);
    // Every query (the lines past the header) but "spaceship", which has no relevant item; "zebra stool" counts.
    expect(JSON.parse(asFiles.stdout).queries).toBe(queries.length - 2);
  });

  it.each([
    ["query-set.ts", ["--file", "x"], 1, /^error: --name and --file are required$/],
    ["query-set.ts", ["--name", "labelled", "--file", "x"], 1, /^error: --name labelled is a built-in set/],
    ["query-set.ts", ["--name", "a b", "--file", "x"], 1, /^error: --name must be 1–64 letters/],
    ["query-set.ts", ["--name", "s", "--file", "/no/such/file"], 1, /^error: --file \/no\/such\/file does not exist$/],
    ["labels-export.ts", [], 1, /^error: --out DIR is required$/],
    ["labels-export.ts", ["--out", "x", "--state", "/no/such/state"], 1, /^error: --state \/no\/such\/state does not exist/],
  ] as const)("%s %j → exit %i, one line", (script, args, status, line) => {
    const r = runScript(script, args, env);
    expect(r.status).toBe(status);
    expect(r.stderr.split("\n")[0]).toMatch(line);
    expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it("refuses an empty query file in one line", () => {
    const file = join(mkdtempSync(join(tmpdir(), "cogr-qs-")), "empty.txt");
    writeFileSync(file, "\n  \n");
    const r = runScript("query-set.ts", ["--name", "empty", "--file", file, "--state", ws.state], env);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`error: ${file}: no queries (one per line, or a query.csv with a query column)`);
  });
});
