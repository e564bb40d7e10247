import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadLabels, loadWands, parseFeatures, readTsv } from "../../training/data/wands.js";
import { wandsDir, writeSyntheticWands } from "../fixtures.js";

describe("WANDS loader (synthetic files)", () => {
  const synth = writeSyntheticWands(60);

  it("reads products, queries and relevant labels, dropping labels of absent products", () => {
    const d = loadWands(synth.dir);
    expect(d.products).toHaveLength(60);
    expect(d.queries).toHaveLength(synth.queryCount);
    expect(d.labelStats.droppedMissingProduct).toBe(1);
    const chairs = d.products.filter((p) => p.name.endsWith(" chair")).map((p) => p.id);
    expect([...(d.relevant.get("0") ?? [])].sort()).toEqual(chairs.sort());
    expect(d.relevant.has(String(synth.queryCount - 1))).toBe(false); // "spaceship": nothing relevant
  });

  it("tolerates empty fields and parses features into pairs", () => {
    const d = loadWands(synth.dir);
    expect(d.products[0]?.category).toBe("");
    expect(d.products[0]?.features).toEqual(expect.arrayContaining([["assembly", "required"]]));
    expect(parseFeatures("a : 1|b:2 ''|nokey|c : ")).toEqual([
      ["a", "1"],
      ["b", "2 ''"],
    ]);
  });

  it("names the file and line of a malformed row", () => {
    const path = join(synth.dir, "bad.csv");
    writeFileSync(path, "query_id\tquery\tquery_class\n1\tsofa\tSofas\n2\tbroken row\n");
    expect(() => readTsv(path, ["query_id", "query", "query_class"])).toThrow(`${path}:3: expected 3 tab-separated fields, found 2`);
    writeFileSync(path, "id\tquery_id\tproduct_id\tlabel\n1\t0\t1\tMaybe\n");
    expect(() => loadLabels(path, new Set(["1"]))).toThrow(`${path}:2: unknown label "Maybe"`);
    writeFileSync(path, "id\tquery_id\tproduct_id\tlabel\n1\tx\t1\tExact\n");
    expect(() => loadLabels(path, new Set(["1"]))).toThrow(`${path}:2: query_id must be a non-negative integer`);
  });

  it("says how to get the data when it is absent", () => {
    expect(() => loadWands(join(synth.dir, "nowhere"))).toThrow(/npm run data/);
  });
});

const wands = wandsDir();
describe.skipIf(!wands)("WANDS loader (real data in COGR_DATA)", () => {
  it("loads the shared subset as its README describes", () => {
    const d = loadWands(wands as string);
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
