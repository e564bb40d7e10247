/**
 * `npm run import` as a shop meets it: catalogues in other shapes (JSON Lines
 * with nested objects and lists, quoted CSV, TSV; other field names, string
 * ids, any order), each kind of bad input with its one line and exit code,
 * --max-bad, no half-written folder after a failure or Ctrl-C, and the
 * commands that read the imported folder through COGR_DATA.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildColumns } from "../../core/columns.js";
import { compileFilters, filterPredicate } from "../../core/filters.js";
import { compareIds } from "../../core/ids.js";
import { Rng } from "../../core/rng.js";
import { rewriteAsShopJsonl } from "../../scripts/bench/rewrite-catalogue.js";
import type { CatalogManifest } from "../../training/data/catalog.js";
import { readRound } from "../../training/round-artifact.js";
import { runEntry, runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

const tmp = (tag: string) => mkdtempSync(join(tmpdir(), `cogr-import-${tag}-`));

/** The folder --out names, and everything beside it (the temporary folder of an import lives there). */
const outIn = (tag: string) => join(tmp(tag), "catalog");
const beside = (out: string) => readdirSync(dirname(out));

const products = (out: string) =>
  readFileSync(join(out, "products.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: string; name: string; class: string; category: string; description: string; features: string[][]; facets: object });
const manifest = (out: string) => JSON.parse(readFileSync(join(out, "catalog.json"), "utf8")) as CatalogManifest;

/** The same ten products in three shapes; row k has id `p-<k>` and k-dependent text, given in a shuffled order. */
const SHOP = new Rng(5).shuffle(
  Array.from({ length: 10 }, (_, k) => ({
    code: `p-${k}`,
    title: `Chair, "model ${k}"`,
    notes: `line one\nline two, k=${k}`,
    dept: k % 2 === 0 ? "Chairs" : "Stools",
    color: ["red", "blue"][k % 2] as string,
  })),
);

function shopFiles(dir: string) {
  const jsonl = join(dir, "shop.jsonl");
  writeFileSync(
    jsonl,
    `${SHOP.map((r) => JSON.stringify({ meta: { code: r.code }, title: r.title, notes: r.notes, path: ["Furniture", r.dept], attrs: { color: r.color } })).join("\n")}\n`,
  );
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const csv = join(dir, "shop.csv");
  writeFileSync(
    csv,
    `code,title,notes,path,color\r\n${SHOP.map((r) => [r.code, q(r.title), q(r.notes), q(`Furniture / ${r.dept}`), r.color].join(",")).join("\r\n")}\r\n`,
  );
  const tsv = join(dir, "shop.tsv");
  writeFileSync(
    tsv,
    `code\ttitle\tnotes\tpath\tcolor\n${SHOP.map((r) => [r.code, q(r.title), q(r.notes), `Furniture / ${r.dept}`, r.color].join("\t")).join("\n")}\n`,
  );
  return { jsonl, csv, tsv };
}

describe("npm run import: catalogues in other shapes", () => {
  const dir = tmp("shapes");
  const files = shopFiles(dir);

  it("imports JSON Lines with nested objects and lists, string ids in any order, into id order", () => {
    const out = outIn("jsonl");
    const r = runScript("import.ts", [
      ...["--products", files.jsonl, "--id", "meta.code", "--title", "title", "--text", "notes", "--text", "attrs"],
      ...["--category", "path", "--facet", "attrs.color", "--out", out],
    ]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^imported 10 products of 10 rows into .*; skipped 0; no queries or labels; /);
    const got = products(out);
    expect(got.map((p) => p.id)).toEqual(SHOP.map((s) => s.code).sort(compareIds));
    expect(got[3]).toEqual({
      id: "p-3",
      name: 'Chair, "model 3"',
      class: "",
      category: "Furniture / Stools",
      description: "line one\nline two, k=3",
      features: [["color", "blue"]],
      facets: { "attrs.color": "blue" },
    });
    expect(manifest(out)).toMatchObject({
      format: "cogr-catalog",
      version: 1,
      mapping: { id: "meta.code", title: "title", text: ["notes", "attrs"], category: "path", facets: ["attrs.color"] },
      counts: { rows: 10, products: 10, skipped: 0, queries: null, labels: null },
      facets: ["attrs.color"],
      files: { products: "products.jsonl", queries: null, labels: null },
    });
    expect(beside(out)).toEqual(["catalog"]); // no temporary folder left
  });

  it("reads RFC 4180 CSV (commas, quotes, line breaks inside quoted fields) and TSV to the same products, with each row's first line", () => {
    const flags = ["--id", "code", "--title", "title", "--text", "notes", "--class", "path", "--facet", "color"];
    const csv = outIn("csv");
    const tsv = outIn("tsv");
    expect(runScript("import.ts", ["--products", files.csv, ...flags, "--out", csv]).status).toBe(0);
    expect(runScript("import.ts", ["--products", files.tsv, "--format", "tsv", ...flags, "--out", tsv]).status).toBe(0);
    const fromCsv = products(csv);
    expect(fromCsv).toHaveLength(10);
    expect(fromCsv[0]).toMatchObject({ id: "p-0", name: 'Chair, "model 0"', class: "Furniture / Chairs", description: "line one\nline two, k=0" });
    expect(products(tsv)).toEqual(fromCsv);
    // Rows span two lines each: a bad row is named by the line it starts on.
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, `code,title\n"a","multi\nline"\n,"no id"\n`);
    const r = runScript("import.ts", ["--products", bad, "--id", "code", "--title", "title", "--max-bad", "0", "--out", outIn("badcsv")]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`error: ${bad}:4: field "code": missing id; 1 of 2 rows bad (50.0 %), more than --max-bad 0 %`);
  });

  it("imports the same catalogue from a mapping file as from flags, byte for byte", () => {
    const map = join(dir, "cogr.catalog.json");
    writeFileSync(map, JSON.stringify({ products: "shop.jsonl", id: "meta.code", title: "title", text: ["notes", "attrs"], category: "path", out: "mapped" }));
    expect(runScript("import.ts", ["--map", map]).status).toBe(0);
    const flags = outIn("flags");
    const r = runScript("import.ts", [
      "--products",
      files.jsonl,
      "--id",
      "meta.code",
      "--title",
      "title",
      "--text",
      "notes",
      "--text",
      "attrs",
      "--category",
      "path",
      "--out",
      flags,
    ]);
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, "mapped", "products.jsonl"), "utf8")).toBe(readFileSync(join(flags, "products.jsonl"), "utf8"));
  });
});

describe("npm run import: bad input", () => {
  const dir = tmp("bad");
  const good = (k: number) => JSON.stringify({ sku: `s${k}`, name: `thing ${k}` });
  /** 100 good rows with `bad` put in at the given lines (1-based). */
  const file = (name: string, bad: Record<number, string>) => {
    const lines: string[] = [];
    for (let k = 0; lines.length < 100 + Object.keys(bad).length; k++) lines.push(bad[lines.length + 1] ?? good(k));
    const path = join(dir, name);
    writeFileSync(path, `${lines.join("\n")}\n`);
    return path;
  };
  const run = (path: string, ...extra: string[]) => {
    const out = outIn("out");
    return { out, ...runScript("import.ts", ["--products", path, "--id", "sku", "--title", "name", ...extra, "--out", out]) };
  };

  it("names the file, the line and the field of each bad row in one line, exit 2, and leaves no folder", () => {
    const cases: Array<[string, Record<number, string>, string]> = [
      ["json.jsonl", { 7: '{"sku": "x", "name": ' }, ":7: not valid JSON ("],
      ["list.jsonl", { 5: '["s1", "n"]' }, ":5: not a JSON object (a list)"],
      ["noid.jsonl", { 12: '{"name": "orphan"}' }, ':12: field "sku": missing id'],
      ["notitle.jsonl", { 3: '{"sku": "t1", "name": ""}' }, ':3: field "name": missing title'],
      ["dup.jsonl", { 40: good(8) }, `:40: field "sku": duplicate id "s8", first at `],
    ];
    for (const [name, bad, message] of cases) {
      const r = run(file(name, bad), "--max-bad", "0");
      expect(r.status, name).toBe(2);
      const lines = r.stderr.trim().split("\n");
      expect(lines, name).toHaveLength(1);
      expect(lines[0], name).toContain(`error: ${join(dir, name)}${message}`);
      expect(lines[0], name).toMatch(/; 1 of 101 rows bad \(1\.0 %\), more than --max-bad 0 %$/);
      expect(existsSync(r.out), name).toBe(false);
      expect(beside(r.out), name).toEqual([]);
    }
    expect(run(file("dup2.jsonl", { 40: good(8) }), "--max-bad", "0").stderr).toContain(`first at ${join(dir, "dup2.jsonl")}:9`);
  });

  it("skips up to --max-bad percent (default 1 %) of bad rows, reporting them by reason, and fails above it", () => {
    const one = file("one.jsonl", { 2: "nope" });
    const ok = run(one);
    expect(ok.status).toBe(0);
    expect(ok.stderr.trim()).toMatch(new RegExp(`^skipped ${one}:2: not valid JSON`));
    expect(ok.stdout).toMatch(/^imported 100 products of 101 rows .*skipped 1 \(invalid-json 1\)/);
    expect(manifest(ok.out).skipped).toMatchObject({ "invalid-json": 1, "missing-id": 0, "duplicate-id": 0 });
    const two = file("two.jsonl", { 2: "nope", 50: '{"sku": "s3", "name": "again"}' });
    const failed = run(two);
    expect(failed.status).toBe(2);
    expect(failed.stderr.trim()).toBe(
      `error: ${two}:2: not valid JSON (Unexpected token 'o', "nope" is not valid JSON); 2 of 102 rows bad (2.0 %), more than --max-bad 1 %`,
    );
    expect(beside(failed.out)).toEqual([]);
    const allowed = run(two, "--max-bad", "2.5");
    expect(allowed.status).toBe(0);
    expect(allowed.stdout).toMatch(/skipped 2 \(invalid-json 1, duplicate-id 1\)/);
  });

  it("leaves an earlier catalogue untouched when an import into it fails or is interrupted", () => {
    const out = outIn("keep");
    expect(runScript("import.ts", ["--products", file("first.jsonl", {}), "--id", "sku", "--title", "name", "--out", out]).status).toBe(0);
    const before = readFileSync(join(out, "products.jsonl"), "utf8");
    const failed = runScript("import.ts", ["--products", file("bad.jsonl", { 1: "x", 2: "y" }), "--id", "sku", "--title", "name", "--out", out]);
    expect(failed.status).toBe(2);
    const other = join(dir, "other.jsonl");
    writeFileSync(other, `${Array.from({ length: 500 }, (_, k) => JSON.stringify({ sku: `o${k}`, name: `other ${k}` })).join("\n")}\n`);
    const interrupted = join("test", "support", "import-interrupted.ts"); // the import with a real SIGINT at a row
    const stopped = runEntry(interrupted, ["--products", other, "--id", "sku", "--title", "name", "--out", out], { COGR_TEST_SIGINT_AFTER_ROWS: "250" });
    expect(stopped.status).toBe(130);
    expect(stopped.stderr.trim()).toBe(`error: import interrupted (SIGINT); ${out} left as it was`);
    expect(readFileSync(join(out, "products.jsonl"), "utf8")).toBe(before);
    expect(beside(out)).toEqual(["catalog"]);
    const fresh = outIn("fresh");
    expect(runEntry(interrupted, ["--products", other, "--id", "sku", "--title", "name", "--out", fresh], { COGR_TEST_SIGINT_AFTER_ROWS: "10" }).status).toBe(
      130,
    );
    expect(beside(fresh)).toEqual([]);
  });

  it("answers a wrong request in one line: usage errors exit 1, a folder it must not replace exits 2", () => {
    const path = file("fine.jsonl", {});
    const usage: string[][] = [
      ["--products", path, "--title", "name", "--out", outIn("u")],
      ["--products", path, "--id", "sku", "--title", "name", "--format", "xml", "--out", outIn("u")],
      ["--products", path, "--id", "sku", "--title", "name", "--max-bad", "150", "--out", outIn("u")],
      ["--products", path, "--id", "sku", "--title", "name", "--queries", path, "--out", outIn("u")],
    ];
    for (const args of usage) {
      const r = runScript("import.ts", args);
      expect(r.status, args.join(" ")).toBe(1);
      expect(r.stderr.split("\n")[0], args.join(" ")).toMatch(
        /^error: (--id FIELD is required|--format must be|--max-bad must be|--queries and --labels go together)/,
      );
      expect(r.stderr.split("\n")[1]).toMatch(/^usage: npm run import/);
    }
    const someone = join(tmp("theirs"), "data");
    mkdirSync(someone);
    writeFileSync(join(someone, "keep.txt"), "mine");
    const r = runScript("import.ts", ["--products", path, "--id", "sku", "--title", "name", "--out", someone]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`error: --out ${someone} is a folder that holds files but no catalog.json: refusing to replace it (choose another --out)`);
    expect(readdirSync(someone)).toEqual(["keep.txt"]);
  });
});

describe("commands on an imported catalogue (COGR_DATA)", () => {
  it("builds round 0 and evaluates with imported queries and labels; without them builds round 0 and says what the rest need", async () => {
    const synth = writeSyntheticWands(80);
    const shop = tmp("loop");
    const w = await rewriteAsShopJsonl(synth.dir, shop, { seed: 4 });
    const out = join(shop, "catalog");
    const imp = runScript("import.ts", ["--map", w.map, "--out", out]);
    expect(imp.status).toBe(0);
    expect(imp.stdout).toMatch(/imported 80 products of 80 rows .*; \d+ queries, \d+ labels \(1 of absent products\)/);
    const artifacts = tmp("art");
    const env = { COGR_DATA: out, COGR_ARTIFACTS: artifacts };
    const built = runScript("build-round.ts", ["--round", "0", "--dev-queries", "6"], env);
    expect(built.stderr).toBe("");
    expect(built.stdout).toMatch(/round 0 → .*: 80 items, \d+ keywords, \d+\/6 train\/dev queries; 1 of \d+ labels dropped/);
    const items = readRound(0, artifacts).items;
    expect(items).toHaveLength(80);
    expect(items.filter((it) => !it.id.startsWith("sku-"))).toEqual([]);
    const ev = runScript("eval.ts", ["--method", "keywords", "--round", "0", "--json"], env);
    expect(ev.status).toBe(0);
    expect(JSON.parse(ev.stdout).f1).toBeGreaterThan(0.2);

    const bare = join(shop, "bare");
    const noLabels = await rewriteAsShopJsonl(synth.dir, join(shop, "nolabels"), { labels: false });
    expect(runScript("import.ts", ["--map", noLabels.map, "--out", bare]).status).toBe(0);
    const bareEnv = { COGR_DATA: bare, COGR_ARTIFACTS: tmp("bare-art") };
    const round0 = runScript("build-round.ts", ["--round", "0"], bareEnv);
    expect(round0.status).toBe(0);
    expect(round0.stdout).toMatch(/80 items, .* 0\/0 train\/dev queries; no queries or labels in .*, so the split is empty/);
    const oneLine = (script: string, args: string[], message: RegExp) => {
      const r = runScript(script, args, bareEnv);
      expect(r.status, script).toBe(2);
      expect(r.stderr.trim().split("\n"), script).toHaveLength(1);
      expect(r.stderr, script).toMatch(message);
    };
    oneLine(
      "train.ts",
      ["--rounds", "1", "--supervision", "labels"],
      /^error: npm run train needs queries and relevance labels, .* `npm run train -- --supervision catalog`/,
    );
    oneLine("eval.ts", ["--method", "keywords"], /^error: eval measures against relevance labels, and .* has none/);
    oneLine("labels.ts", ["--state", tmp("state")], /^error: no labels to load: .* is a catalogue without queries and labels/);
  });
});

describe("an import's --facet fields become the round's filter and facet columns", () => {
  it("carries them through build-round into items.jsonl, as text and numeric columns a filter reads", () => {
    const dir = tmp("facets");
    const rows = Array.from({ length: 12 }, (_, k) => ({
      sku: `s${k}`,
      label: `lamp number ${k}`,
      kind: k % 3 === 0 ? "Floor Lamps" : "Desk Lamps",
      crumbs: ["Lighting", k % 2 === 0 ? "Lamps" : "Shades"],
      spec: { rating: k % 5, finish: k % 2 === 0 ? "brass" : "matte black" },
    }));
    const file = join(dir, "lamps.jsonl");
    writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const out = join(dir, "catalog");
    const imp = runScript("import.ts", [
      ...["--products", file, "--id", "sku", "--title", "label", "--class", "kind", "--category", "crumbs"],
      ...["--facet", "spec.rating", "--facet", "spec.finish", "--out", out],
    ]);
    expect(imp.stderr).toBe("");
    const artifacts = tmp("facets-art");
    const built = runScript("build-round.ts", ["--round", "0"], { COGR_DATA: out, COGR_ARTIFACTS: artifacts });
    expect(built.status).toBe(0);
    const items = readRound(0, artifacts).items;
    expect(items.find((it) => it.id === "s7")?.facets).toEqual({ "spec.rating": "2", "spec.finish": "matte black" });
    const { meta, codes } = buildColumns(items);
    expect(meta.columns.map((c) => [c.name, c.numeric, c.values.length])).toEqual([
      ["category.lvl0", false, 1],
      ["category.lvl1", false, 2],
      ["class", false, 2],
      ["spec.finish", false, 2],
      ["spec.rating", true, 5],
    ]);
    const keep = filterPredicate(
      compileFilters(meta, [
        { parameter: "filter[spec.rating]", field: "spec.rating", raw: "3.." },
        { parameter: "filter[spec.finish]", field: "spec.finish", raw: "Matte-Black" },
      ]),
      codes,
    );
    expect(items.filter((_, o) => keep(o)).map((it) => it.id)).toEqual(
      rows
        .filter((r) => r.spec.rating >= 3 && r.spec.finish === "matte black")
        .map((r) => r.sku)
        .sort(compareIds),
    );
  });
});
