/**
 * The catalogue folder and the import's parts, in process: field mapping,
 * the id-sorted writer, the folder's reader, and the equivalence of a
 * WANDS-format catalogue with its shop-shaped rewrite once imported.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { itemSegments } from "../../core/extract.js";
import { compareIds } from "../../core/ids.js";
import { Rng } from "../../core/rng.js";
import { rewriteAsShopJsonl } from "../../scripts/bench/rewrite-catalogue.js";
import { CATALOG_FILES, FieldMapping, readCatalogManifest, streamCatalogProducts } from "../../training/data/catalog.js";
import { loadDataset } from "../../training/data/dataset.js";
import type { Product } from "../../training/data/types.js";
import { importCatalog } from "../../training/import/import.js";
import { resolveSpec, toProduct } from "../../training/import/mapping.js";
import { SortedSpool } from "../../training/import/sorted-writer.js";
import { buildRound0Streaming } from "../../training/round0.js";
import { writeSyntheticWands } from "../fixtures.js";

const tmp = (tag: string) => mkdtempSync(join(tmpdir(), `cogr-${tag}-`));
const mapping = (m: Partial<FieldMapping> & Pick<FieldMapping, "id" | "title">) => FieldMapping.parse(m);
const productOf = (row: Record<string, unknown>, m: FieldMapping) => {
  const r = toProduct(row, m);
  if (!r.ok) throw new Error(r.message);
  return JSON.parse(r.json) as Product;
};

describe("field mapping", () => {
  it("maps nested objects, lists and numbers; dotted paths; a list-valued category is a path core/extract cuts into levels", () => {
    const m = mapping({ id: "sku", title: "info.name", text: ["body", "attrs", "tags"], class: "kind", category: "crumbs", facets: ["attrs.color", "stock"] });
    const p = productOf(
      {
        sku: 1042,
        info: { name: "Oak  Desk" },
        body: "A desk.",
        attrs: { color: "oak", size: { w: 120, h: 75 }, empty: "", legs: [4] },
        tags: ["office", "wood"],
        kind: ["Desks", "Office"],
        crumbs: ["Furniture", "Office Furniture", "Desks"],
        stock: true,
        ignored: { x: 1 },
      },
      m,
    );
    expect(p).toEqual({
      id: "1042",
      name: "Oak  Desk",
      class: "Desks, Office",
      category: "Furniture / Office Furniture / Desks",
      description: "A desk.\noffice, wood",
      features: [
        ["color", "oak"],
        ["size.w", "120"],
        ["size.h", "75"],
        ["legs", "4"],
      ],
      facets: { "attrs.color": "oak", stock: "true" },
    });
    const levels = itemSegments(p)
      .filter((s) => s.field === "category")
      .map((s) => s.words.join(" "));
    expect(levels).toEqual(["furniture", "office furniture", "desks"]);
    // A key holding a dot is found whole before the path is walked.
    expect(productOf({ "a.b": "whole", a: { b: "walked" }, t: "x" }, mapping({ id: "a.b", title: "t" })).id).toBe("whole");
    // A list of one-pair objects keeps repeated keys, in order (a JSON object cannot).
    expect(productOf({ id: "x", t: "y", f: [{ color: "red" }, { color: "blue" }] }, mapping({ id: "id", title: "t", text: ["f"] })).features).toEqual([
      ["color", "red"],
      ["color", "blue"],
    ]);
  });

  it("says which field makes a row bad, and why", () => {
    const m = mapping({ id: "sku", title: "name" });
    const bad = (row: Record<string, unknown>) => {
      const r = toProduct(row, m);
      return r.ok ? null : [r.reason, r.field, r.message];
    };
    expect(bad({ name: "x" })).toEqual(["missing-id", "sku", "missing id"]);
    expect(bad({ sku: "  ", name: "x" })).toEqual(["missing-id", "sku", "missing id"]);
    expect(bad({ sku: { a: 1 }, name: "x" })).toEqual(["invalid-id", "sku", "id must be a string or a number, got object"]);
    expect(bad({ sku: "a\tb", name: "x" })).toEqual(["invalid-id", "sku", "id holds a tab, line break or other control character"]);
    expect(bad({ sku: "x".repeat(257), name: "x" })).toEqual(["invalid-id", "sku", "id longer than 256 characters"]);
    expect(bad({ sku: "a", name: [] })).toEqual(["missing-title", "name", "missing title"]);
    expect(bad({ sku: "a", name: "ok" })).toBeNull();
  });

  it("reads the mapping file with paths relative to it, and lets flags win", () => {
    const dir = tmp("map");
    const map = join(dir, "cogr.catalog.json");
    writeFileSync(map, JSON.stringify({ products: "in/p.jsonl", id: "sku", title: "name", text: ["a"], facets: ["c"], maxBad: 5, out: "cat" }));
    const spec = resolveSpec({ map, title: "label", text: ["b", "c"] });
    expect(spec).toMatchObject({ products: join(dir, "in/p.jsonl"), format: "jsonl", out: join(dir, "cat"), maxBadPercent: 5 });
    expect(spec.mapping).toEqual({ id: "sku", title: "label", text: ["b", "c"], facets: ["c"] });
    writeFileSync(map, JSON.stringify({ products: "p.jsonl", idd: "sku" }));
    expect(() => resolveSpec({ map })).toThrow(/cogr\.catalog\.json: idd: Unrecognized key/);
  });
});

describe("the id-sorted writer", () => {
  it("writes rows given in any order in compareIds order, keeps the first of a duplicate and names both lines", async () => {
    const dir = tmp("spool");
    const ids = ["10", "9", "sku-b", "sku-a", "100", "Z", "a", "02", "ä"];
    const rng = new Rng(3);
    const rows = rng.shuffle([...ids, "sku-a"]);
    const spool = new SortedSpool(join(dir, "spool"));
    rows.forEach((id, j) => {
      spool.add(id, j + 1, JSON.stringify({ id, line: j + 1 }));
    });
    const duplicates: Array<{ id: string; line: number; firstLine: number }> = [];
    const r = await spool.writeSorted(join(dir, "out.jsonl"), (d) => {
      duplicates.push(d);
    });
    const written = readFileSync(join(dir, "out.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; line: number });
    expect(r.products).toBe(ids.length);
    expect(written.map((w) => w.id)).toEqual([...ids].sort(compareIds));
    const lines = rows.flatMap((id, j) => (id === "sku-a" ? [j + 1] : []));
    expect(duplicates).toEqual([{ id: "sku-a", line: lines[1], firstLine: lines[0] }]);
    expect(written.find((w) => w.id === "sku-a")?.line).toBe(lines[0]);
    expect(spool.has("sku-b")).toBe(true);
    expect(spool.has("sku-c")).toBe(false);
  });
});

describe("the catalogue folder", () => {
  it("refuses an unknown version, and products out of id order, in one line each", async () => {
    const synth = writeSyntheticWands(20);
    const shop = tmp("shop");
    const w = await rewriteAsShopJsonl(synth.dir, shop, { seed: 1 });
    const out = join(tmp("cat"), "catalog");
    await importCatalog(resolveSpec({ map: w.map, out }));
    const manifestPath = join(out, CATALOG_FILES.manifest);
    const manifest = readFileSync(manifestPath, "utf8");
    writeFileSync(manifestPath, manifest.replace('"version": 1', '"version": 2'));
    expect(() => readCatalogManifest(out)).toThrow(`${manifestPath}: unsupported cogr-catalog version 2 (this build reads 1); re-import with npm run import`);
    writeFileSync(manifestPath, manifest);
    const productsPath = join(out, CATALOG_FILES.products);
    const lines = readFileSync(productsPath, "utf8").trim().split("\n");
    writeFileSync(productsPath, `${[lines[1], lines[0], ...lines.slice(2)].join("\n")}\n`);
    const read = async () => {
      for await (const _ of streamCatalogProducts(out));
    };
    await expect(read()).rejects.toThrow(new RegExp(`^${productsPath}:2: id "[^"]+" is not after "[^"]+" \\(products must be in ascending id order`));
  });

  it("without queries or labels, loads as a dataset with none", async () => {
    const synth = writeSyntheticWands(30);
    const shop = tmp("shop");
    const w = await rewriteAsShopJsonl(synth.dir, shop, { labels: false });
    const out = join(tmp("cat"), "catalog");
    const report = await importCatalog(resolveSpec({ map: w.map, out }));
    expect(report).toMatchObject({ rows: 30, products: 30, queries: null, labels: null });
    const d = await loadDataset(out);
    expect(d.products).toHaveLength(30);
    expect(d.queries).toEqual([]);
    expect(d.relevant.size).toBe(0);
    expect(d.labelStats).toEqual({ rows: 0, droppedMissingProduct: 0, relevant: 0 });
  });
});

describe("equivalence: a WANDS-format catalogue rewritten as a shop's JSON Lines and imported", () => {
  it("builds a round 0 with the same items, keywords, split and metrics as the WANDS files (modulo ids)", async () => {
    const synth = writeSyntheticWands(150);
    const shop = tmp("shop");
    const w = await rewriteAsShopJsonl(synth.dir, shop, { seed: 9 });
    const shuffled = readFileSync(join(shop, "products.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { sku: string }).sku);
    expect(shuffled).not.toEqual([...shuffled].sort(compareIds)); // the input really is out of order
    expect(shuffled.length).toBeGreaterThan(0);
    expect(shuffled.filter((id) => !id.startsWith("sku-"))).toEqual([]);
    const out = join(tmp("cat"), "catalog");
    await importCatalog(resolveSpec({ map: w.map, out }));
    const art = tmp("art");
    const wands = await buildRound0Streaming(synth.dir, join(art, "a.jsonl"), { devQueries: 8 });
    const imported = await buildRound0Streaming(out, join(art, "b.jsonl"), { devQueries: 8 });
    const items = (file: string, rename: (id: string) => string) =>
      readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { id: string })
        .map((it) => ({ ...it, id: rename(it.id) }))
        .sort((a, b) => compareIds(a.id, b.id));
    const fromWands = items(join(art, "a.jsonl"), (id) => id);
    expect(fromWands).toHaveLength(150);
    // The import's --facet field rides along in items.jsonl (the round's facet columns); everything else is WANDS's.
    const fromImport = items(join(art, "b.jsonl"), (id) => id.replace(/^sku-/, "")) as Array<{ id: string; facets?: Record<string, string> }>;
    expect(fromImport.map(({ facets: _facets, ...rest }) => rest)).toEqual(fromWands);
    expect(fromImport.filter((it) => it.facets?.["attributes.color"] === undefined)).toEqual([]);
    expect(imported.index.keywordPostings.size).toBe(wands.index.keywordPostings.size);
    expect(imported.split).toEqual(wands.split);
    expect(imported.metrics).toEqual(wands.metrics);
    expect((wands.metrics as { dev: { f1: number } }).dev.f1).toBeGreaterThan(0);
  });
});
