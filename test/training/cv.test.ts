/**
 * Cross-validation (training/cv.ts) on the synthetic catalogue: every training
 * query held out exactly once, the dev split never read, the choice written
 * and used by `npm run train -- --cv K`.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RANKER_CHOICES, rankerName } from "../../core/ranker.js";
import { choose, foldsOf } from "../../training/cv.js";
import { readCvReport } from "../../training/cv-report.js";
import { readManifest, readRound, roundDir } from "../../training/round-artifact.js";
import { runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

const synth = writeSyntheticWands(150);
const ARGS = ["--backend", "lexical", "--rounds", "1", "--epochs-query", "1", "--epochs-item", "1", "--seed", "5"];

describe("k-fold cross-validation over the training queries", () => {
  it("deals the queries into disjoint folds that cover them, seeded", () => {
    const ids = Array.from({ length: 23 }, (_, j) => `q${j}`);
    const folds = foldsOf(ids, 5, 1);
    expect(folds.map((f) => f.length).sort()).toEqual([4, 4, 5, 5, 5]);
    expect(folds.flat().sort()).toEqual([...ids].sort());
    expect(foldsOf(ids, 5, 1)).toEqual(folds);
    expect(foldsOf(ids, 5, 2)).not.toEqual(folds);
    expect(() => foldsOf(ids, 1, 1)).toThrow(RangeError);
    expect(() => foldsOf(ids, 24, 1)).toThrow(RangeError);
  });

  it("picks the round by held-out F1, then the ranker by NDCG@100 at that round", () => {
    const m = (f1: number, ndcg: number) => ({ queries: 1, leftOut: 0, p: 0, r: 0, f1, at: { 10: at(0), 100: at(ndcg), 1000: at(0) } });
    const at = (ndcg: number) => ({ mrr: 0, ndcg, p: 0, r: 0, f1: 0 });
    const cells = [
      { round: 0, ranker: "keywords", summary: m(0.3, 0.9) },
      { round: 1, ranker: "keywords", summary: m(0.5, 0.4) },
      { round: 1, ranker: "text", summary: m(0.5, 0.6) },
      { round: 2, ranker: "keywords", summary: m(0.45, 0.99) },
    ];
    expect(choose(cells)).toEqual({ round: 1, ranker: RANKER_CHOICES[1], rankerName: "text" });
  });

  it("npm run train -- --cv 3 trains each fold on the others, scores every round and ranker out of sample, and writes rounds with the chosen ranker", () => {
    const root = mkdtempSync(join(tmpdir(), "cogr-cv-"));
    const r = runScript("train.ts", [...ARGS, "--cv", "3"], { COGR_DATA: synth.dir, COGR_ARTIFACTS: root });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/fold 3\/3 item-1: held-out fold F1/);
    expect(r.stdout).toMatch(/3-fold cross-validation over \d+ training queries/);
    expect(r.stdout).toMatch(/cross-validation picks round [01] \(held-out F1 0\.\d{4}\); the last round is 1/);

    const main = readManifest(roundDir(0, root));
    const report = readCvReport(root, 5);
    if (!report) throw new Error("no report written");
    // Every training query is scored once, as a held-out query; the dev queries never.
    const foldDevs = [1, 2, 3].map((f) => readManifest(roundDir(0, join(root, "train", "lexical", "cv", "seed-5", `fold-${f}`))).split.dev);
    expect(foldDevs.flat().sort()).toEqual([...main.split.train].sort());
    expect(foldDevs.flat().some((id) => main.split.dev.includes(id))).toBe(false);
    const cell = report.cells[0];
    expect(cell && cell.summary.queries + cell.summary.leftOut).toBe(main.split.train.length);
    expect(report.cells.length).toBe(2 * RANKER_CHOICES.length);
    expect(report.bm25.queries).toBe(cell?.summary.queries);
    // The ranker cannot move F1 (the set is the same); the rounds are written with the chosen one.
    const f1s = new Set(report.cells.filter((c) => c.round === 1).map((c) => c.summary.f1.toFixed(12)));
    expect(f1s.size).toBe(1);
    expect(readRound(1, root).manifest.config.ranker).toEqual(report.choice.ranker);
    expect(r.stdout).toContain(`(ranker ${rankerName(report.choice.ranker)})`);

    // --cv-only stops after the report; a report of another version is refused.
    const again = runScript("train.ts", [...ARGS, "--cv", "3", "--cv-only"], { COGR_DATA: synth.dir, COGR_ARTIFACTS: root });
    expect(again.status).toBe(0);
    expect(again.stdout).not.toMatch(/rounds .* written/);
    const file = join(root, "train", "lexical", "cv-seed-5.json");
    expect(existsSync(file)).toBe(true);
    writeFileSync(file, JSON.stringify({ ...report, version: 2 }));
    expect(() => readCvReport(root, 5)).toThrow(/unsupported cross-validation report version 2/);
  }, 300_000);

  it("refuses bad --cv, --ranker and --query-decoding values in one line", () => {
    const env = { COGR_DATA: synth.dir, COGR_ARTIFACTS: mkdtempSync(join(tmpdir(), "cogr-cv-bad-")) };
    for (const [args, message] of [
      [["--cv", "1"], /--cv must be an integer ≥ 2/],
      [["--cv-only"], /--cv-only goes with --cv K/],
      [["--ranker", "bm25"], /--ranker: unknown ranker "bm25"/],
      [["--cv", "3", "--from-round", "1"], /--cv trains every fold from round 0/],
      [["--query-decoding", "greedy"], /--query-decoding must be independent or sequential/],
    ] as const) {
      const r = runScript("train.ts", ["--backend", "lexical", ...args], env);
      expect(r.status, args.join(" ")).toBe(1);
      expect(r.stderr.split("\n")[0]).toMatch(message);
    }
  });
});
