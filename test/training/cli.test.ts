import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRound, roundDir } from "../../training/round-artifact.js";
import { runScript } from "../cli.js";
import { wandsDir, writeSyntheticWands } from "../fixtures.js";

const KEYS = ["mrr@100", "ndcg@100", "p@100", "r@100", "f1@100", "p", "r", "f1", "queries", "method", "round"];

describe("build-round and eval CLIs (synthetic data)", () => {
  const synth = writeSyntheticWands(150);
  const artifacts = mkdtempSync(join(tmpdir(), "cogr-art-"));
  const env = { COGR_DATA: synth.dir, COGR_ARTIFACTS: artifacts };

  it("builds round 0 and evaluates both methods as JSON", () => {
    const built = runScript("build-round.ts", ["--round", "0", "--dev-queries", "8"], env);
    expect(built.stderr).toBe("");
    expect(built.status).toBe(0);
    expect(built.stdout).toMatch(/round 0 → .*150 items/);
    const round = readRound(0, artifacts);
    expect(round.manifest.split.dev).toHaveLength(8);
    expect(round.items).toHaveLength(150);
    expect(round.items.filter((i) => i.keywords.length > 10)).toEqual([]);

    for (const method of ["keywords", "bm25"]) {
      const r = runScript("eval.ts", ["--method", method, "--round", "0", "--json"], env);
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(Object.keys(out)).toEqual(expect.arrayContaining(KEYS));
      expect(out.method).toBe(method);
      expect(out.f1).toBeGreaterThan(0.2);
      expect(out.f1).toBeLessThanOrEqual(1);
    }
    const table = runScript("eval.ts", ["--method", "keywords", "--split", "train"], env);
    expect(table.stdout).toMatch(/mrr@100\s+ndcg@100\s+p@100\s+r@100\s+f1@100\s+p\s+r\s+f1\s+queries/);
    expect(table.stdout).toMatch(/1 left out/); // "spaceship" has no relevant item
  });

  it("evaluates a held-out query file, tuning BM25 on the other queries", () => {
    const q = join(synth.dir, "held.csv");
    const l = join(synth.dir, "held-labels.csv");
    writeFileSync(q, "query_id\tquery\tquery_class\n0\tchair\tx\n");
    writeFileSync(l, readFileSync(join(synth.dir, "label.csv"), "utf8"));
    const r = runScript("eval.ts", ["--method", "bm25", "--queries", q, "--labels", l, "--json"], env);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).queries).toBe(1);
  });

  it("answers bad input with one line and a non-zero exit", () => {
    const cases: string[][] = [["--method", "magic"], ["--method", "bm25", "--split", "test"], ["--method", "bm25", "--queries", "x"], ["--bogus"]];
    for (const args of cases) {
      const r = runScript("eval.ts", args, env);
      expect(r.status).not.toBe(0);
      expect(r.stderr.split("\n")[0]).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
    }
    const missing = runScript("eval.ts", ["--method", "keywords", "--round", "7"], { ...env, COGR_ARTIFACTS: mkdtempSync(join(tmpdir(), "cogr-none-")) });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^error: no round 7 in .*rounds \(no rounds there\): rounds after 0 come from `npm run train`/);
    const noData = runScript("build-round.ts", ["--round", "0"], { ...env, COGR_DATA: join(synth.dir, "absent") });
    expect(noData.status).toBe(2);
    expect(noData.stderr.trim().split("\n")).toHaveLength(1);
    expect(noData.stderr).toMatch(/npm run data/);
  });

  it("refuses a round whose files were altered or whose version is unknown", () => {
    const dir = roundDir(0, artifacts);
    const manifestPath = join(dir, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, version: 42 }));
    expect(() => readRound(0, artifacts)).toThrow(/unsupported round format version 42/);
    writeFileSync(manifestPath, JSON.stringify(manifest));
    writeFileSync(join(dir, "items.jsonl"), "{}\n");
    expect(() => readRound(0, artifacts)).toThrow(/checksum mismatch/);
  });
});

const wands = wandsDir();
describe.skipIf(!wands)("eval on WANDS (COGR_DATA)", () => {
  const artifacts = mkdtempSync(join(tmpdir(), "cogr-wands-"));
  const env = { COGR_DATA: wands, COGR_ARTIFACTS: artifacts };
  it("builds round 0 and reports BM25 and keyword metrics on the dev split", () => {
    expect(runScript("build-round.ts", ["--round", "0"], env).status).toBe(0);
    const kw = JSON.parse(runScript("eval.ts", ["--method", "keywords", "--round", "0", "--json"], env).stdout);
    const bm = JSON.parse(runScript("eval.ts", ["--method", "bm25", "--json"], env).stdout);
    expect(kw.queries).toBeGreaterThanOrEqual(48);
    expect(bm.queries).toBe(kw.queries);
    // Plausibility bands around the measured values (README): a regression moves them out.
    expect(kw.f1).toBeGreaterThan(0.25);
    expect(bm.f1).toBeGreaterThan(0.3);
    expect(bm["mrr@100"]).toBeGreaterThan(0.6);
  });
});

describe("npm run data", () => {
  it("reports data already present", () => {
    const synth = writeSyntheticWands(10);
    const r = runScript("data.ts", [], { COGR_DATA: synth.dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/already/);
  });
  it("fails with one line when the download is unreachable", () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-nodata-"));
    const r = runScript("data.ts", [], { COGR_DATA: join(dir, "wands"), COGR_WANDS_URL: "http://127.0.0.1:9/" });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: could not download WANDS .*COGR_DATA/);
  });
});
