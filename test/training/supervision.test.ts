/**
 * `npm run train -- --supervision`: the label-free path on a catalogue folder
 * with no query or label file, proof that it opens neither, what
 * labels+catalog adds (training only), the default, and bad values.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadWands } from "../../training/data/wands.js";
import { readManifest, readRound, roundDir } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import { defaultSupervision, loadCatalogOnly, supervisedQueries } from "../../training/supervision/supervision.js";
import { runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

const ARGS = ["--backend", "lexical", "--rounds", "1", "--epochs-query", "2", "--epochs-item", "1", "--seed", "7"];

/** A synthetic catalogue folder holding product.csv only. */
function catalogueOnly(): string {
  const { dir } = writeSyntheticWands(150);
  rmSync(join(dir, "query.csv"));
  rmSync(join(dir, "label.csv"));
  return dir;
}

describe("--supervision catalog (no labels)", () => {
  it("trains from product.csv alone when the folder has no query or label file, and records it", () => {
    const dir = catalogueOnly();
    const art = mkdtempSync(join(tmpdir(), "cogr-cold-"));
    expect(defaultSupervision(dir)).toBe("catalog");
    // No --supervision: the default picks catalog for a folder without labels.
    const r = runScript("train.ts", ARGS, { COGR_DATA: dir, COGR_ARTIFACTS: art });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^supervision: catalog \(the default/m);
    expect(r.stdout).toMatch(/rounds 1 written/);
    const round = readRound(1, art);
    expect(round.manifest.config.supervision).toBe("catalog");
    expect(round.manifest.metrics).toMatchObject({ supervision: "catalog" });
    // What it scored after each phase is held-out pseudo-queries, never recorded as dev F1.
    expect(round.manifest.metrics).toHaveProperty("heldOutPseudo.f1");
    expect(round.manifest.metrics).not.toHaveProperty("dev");
    expect((round.manifest.config.pseudoQueries as { train: number }).train).toBeGreaterThan(10);
    // Round 0, built by the run, has no split to evaluate: no labels were read.
    expect(readManifest(roundDir(0, art)).split.dev).toEqual([]);
    expect(existsSync(join(dir, "query.csv")) || existsSync(join(dir, "label.csv"))).toBe(false);
  });

  it("opens neither file even where both exist: unreadable ones (folders) do not stop it", () => {
    const { dir } = writeSyntheticWands(150);
    const art = mkdtempSync(join(tmpdir(), "cogr-cold-"));
    // The main round 0 (its split from the real files), then the files made unreadable.
    expect(runScript("build-round.ts", ["--round", "0"], { COGR_DATA: dir, COGR_ARTIFACTS: art }).status).toBe(0);
    const split = readManifest(roundDir(0, art)).split;
    for (const f of ["query.csv", "label.csv"]) {
      rmSync(join(dir, f));
      mkdirSync(join(dir, f));
    }
    const r = runScript("train.ts", [...ARGS, "--supervision", "catalog"], { COGR_DATA: dir, COGR_ARTIFACTS: art });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    // The trained round keeps the hand-labelled split round 0 recorded, so eval scores it on the real dev queries.
    expect(readRound(1, art).manifest.split).toEqual(split);
    // Any read of them would have failed.
    for (const f of ["query.csv", "label.csv"]) expect(() => readFileSync(join(dir, f))).toThrow(/EISDIR/);
  });
});

describe("what each supervision trains on", () => {
  const synth = writeSyntheticWands(150);

  it("labels+catalog adds pseudo-queries to the training queries only; catalog uses them alone", async () => {
    const dataset = await loadWands(synth.dir);
    const split = buildRound0(dataset).split;
    const labels = supervisedQueries(dataset, split, "labels", 42);
    const both = supervisedQueries(dataset, split, "labels+catalog", 42);
    const catalog = supervisedQueries(dataset, split, "catalog", 42);
    const ids = (qs: ReadonlyArray<{ id: string }>) => qs.map((q) => q.id);
    expect(ids(labels.train)).toEqual(split.train);
    expect(ids(both.dev)).toEqual(ids(labels.dev));
    expect(ids(both.train).slice(0, labels.train.length)).toEqual(ids(labels.train));
    const added = both.train.slice(labels.train.length);
    expect(added.length).toBeGreaterThan(0);
    // Never more pseudo-queries than hand-labelled ones, all of them pseudo-queries with relevant products.
    expect(added.length).toBeLessThanOrEqual(labels.train.length);
    expect(added.every((q) => q.id.startsWith("pq-"))).toBe(true);
    expect(added.every((q) => (both.relevant.get(q.id)?.size ?? 0) > 0)).toBe(true);
    expect(both.pseudo).toEqual({ train: added.length, heldOut: 0 });
    for (const q of labels.train) expect(both.relevant.get(q.id)).toEqual(dataset.relevant.get(q.id));
    // Catalog: nothing hand-labelled anywhere.
    expect(catalog.train.length).toBeGreaterThan(0);
    expect(catalog.dev.length).toBeGreaterThan(0);
    expect([...catalog.train, ...catalog.dev].every((q) => q.id.startsWith("pq-"))).toBe(true);
  });

  it("the default is labels when query.csv and label.csv are there; a products-only load reads product.csv", async () => {
    expect(defaultSupervision(synth.dir)).toBe("labels");
    const dir = catalogueOnly();
    const only = await loadCatalogOnly(dir);
    expect(only.products.length).toBe(150);
    expect(only.queries).toEqual([]);
    await expect(loadCatalogOnly(join(dir, "absent"))).rejects.toThrow(/no data in .*product\.csv/);
  });

  it("a run records its supervision: labels by default where labels exist, labels+catalog when asked", () => {
    for (const [extra, expected] of [
      [[], "labels"],
      [["--supervision", "labels+catalog"], "labels+catalog"],
    ] as const) {
      const art = mkdtempSync(join(tmpdir(), "cogr-cold-"));
      const r = runScript("train.ts", [...ARGS, ...extra], { COGR_DATA: synth.dir, COGR_ARTIFACTS: art });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^supervision: ${expected.replace("+", "\\+")}`, "m"));
      const m = readRound(1, art).manifest;
      expect(m.config.supervision).toBe(expected);
      expect(m.metrics).toMatchObject({ supervision: expected });
      // Dev stays the hand-labelled split: its F1 is recorded as dev F1.
      expect(m.metrics).toHaveProperty("dev.f1");
      expect(m.split).toEqual(readManifest(roundDir(0, art)).split);
    }
  });

  it("refuses a bad --supervision, and --cv with catalog, in one line with exit 1", () => {
    for (const args of [
      ["--supervision", "clickz"],
      ["--supervision", "catalog", "--cv", "2"],
    ]) {
      const r = runScript("train.ts", args, { COGR_DATA: synth.dir });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^error: --(supervision|cv) [^\n]*\n$/);
    }
  });

  it("npm run pseudo-queries shows examples with their relevant counts", () => {
    const r = runScript("pseudo-queries.ts", ["--show", "3"], { COGR_DATA: catalogueOnly() });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+ pseudo-queries \(\d+ training, \d+ held out\) from 150 products/);
    const rows = r.stdout.split("\n").filter((l) => /^\| (?!pseudo-query|---)/.test(l));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toMatch(/\| [1-9]\d* \| \d+ \| \d+ \|$/);
  });
});
