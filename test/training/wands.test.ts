import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadLabels, loadProducts, loadWands, parseFeatures, readTsv, TSV_LIMITS } from "../../training/data/wands.js";
import { wandsDir, writeSyntheticWands } from "../fixtures.js";

describe("WANDS loader (synthetic files)", () => {
  const synth = writeSyntheticWands(60);

  it("reads products, queries and relevant labels, dropping labels of absent products", async () => {
    const d = await loadWands(synth.dir);
    expect(d.products).toHaveLength(60);
    expect(d.queries).toHaveLength(synth.queryCount);
    expect(d.labelStats.droppedMissingProduct).toBe(1);
    const chairs = d.products.filter((p) => p.name.endsWith(" chair")).map((p) => p.id);
    expect([...(d.relevant.get("0") ?? [])].sort()).toEqual(chairs.sort());
    expect(d.relevant.has(String(synth.queryCount - 1))).toBe(false); // "spaceship": nothing relevant
  });

  it("tolerates empty fields and parses features into pairs", async () => {
    const d = await loadWands(synth.dir);
    expect(d.products[0]?.category).toBe("");
    expect(d.products[0]?.features).toEqual(expect.arrayContaining([["assembly", "required"]]));
    expect(parseFeatures("a : 1|b:2 ''|nokey|c : ")).toEqual([
      ["a", "1"],
      ["b", "2 ''"],
    ]);
  });

  it("names the file and line of a malformed row", async () => {
    const path = join(synth.dir, "bad.csv");
    writeFileSync(path, "query_id\tquery\tquery_class\n1\tsofa\tSofas\n2\tbroken row\n");
    await expect(readTsv(path, ["query_id", "query", "query_class"])).rejects.toThrow(`${path}:3: expected 3 tab-separated fields, found 2`);
    writeFileSync(path, "id\tquery_id\tproduct_id\tlabel\n1\t0\t1\tMaybe\n");
    await expect(loadLabels(path, new Set(["1"]))).rejects.toThrow(`${path}:2: unknown label "Maybe"`);
    writeFileSync(path, "id\tquery_id\tproduct_id\tlabel\n1\tx\t1\tExact\n");
    await expect(loadLabels(path, new Set(["1"]))).rejects.toThrow(`${path}:2: query_id must be a non-negative integer`);
  });

  it("streams huge fields whole, and refuses a row over the row limit with its line", async () => {
    const path = join(synth.dir, "huge.csv");
    const head = "product_id\tproduct_name\tproduct_class\tcategory hierarchy\tproduct_description\tproduct_features\n";
    const big = "wood ".repeat(1_000_000); // 5 MB in one field, across many read chunks
    writeFileSync(path, `${head}1\tchair\tChairs\t\t${big}\t\n2\tsofa\tSofas\t\tsoft\t\n`);
    const got = await loadProducts(path);
    expect(got.map((p) => [p.id, p.description.length])).toEqual([
      ["1", big.length],
      ["2", 4],
    ]);
    writeFileSync(path, `${head}1\tchair\tChairs\t\tok\t\n2\tsofa\tSofas\t\t${"x".repeat(TSV_LIMITS.maxRowBytes + 10)}\t\n`);
    await expect(loadProducts(path)).rejects.toThrow(new RegExp(`^${path.replace(/[/.]/g, "\\$&")}:\\d+: .*(max_record_size|Max Record Size)`, "i"));
    writeFileSync(path, `${head}1\tchair\tChairs\t\tok\t\n2\tsofa\tSofas\n3\tbed\tBeds\t\tok\t\n`);
    await expect(loadProducts(path)).rejects.toThrow(`${path}:3: expected 6 tab-separated fields, found 3`);
    writeFileSync(path, `${head}1\tchair\tChairs\t\tok\t\nx\tsofa\tSofas\t\tok\t\n`);
    await expect(loadProducts(path)).rejects.toThrow(`${path}:3: product_id must be a non-negative integer`);
  });

  it("says how to get the data when it is absent", async () => {
    await expect(loadWands(join(synth.dir, "nowhere"))).rejects.toThrow(/npm run data/);
  });
});

const wands = wandsDir();
describe.skipIf(!wands)("WANDS loader (real data in COGR_DATA)", () => {
  it("loads the shared subset as its README describes", async () => {
    const d = await loadWands(wands as string);
    expect(d.products.length).toBeGreaterThan(10_000);
    expect(d.queries.length).toBeGreaterThanOrEqual(455);
    expect(d.labelStats.rows).toBeGreaterThan(50_000);
    // Query 366 has no relevant product even upstream.
    expect(d.relevant.has("366")).toBe(false);
    // Unquoted fields keep their literal double quotes.
    expect(d.products.some((p) => JSON.stringify(p).includes('\\"'))).toBe(true);
  });
});
if (!wands) console.warn("WANDS tests skipped: set COGR_DATA to a WANDS folder (e.g. ../shared/data/wands) to run them");
