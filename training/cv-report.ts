/**
 * The cross-validation report (training/cv.ts) on disk and as a table:
 * `<root>/train/lexical/cv-seed-S.json`, versioned; the loader refuses
 * another version.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { table2Row } from "../core/metrics.js";
import type { CvReport } from "./cv.js";

export const cvReportPath = (root: string, seed: number) => join(root, "train", "lexical", `cv-seed-${seed}.json`);

export function writeCvReport(report: CvReport, root: string): string {
  const file = cvReportPath(root, report.seed);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** The report of a seed, or null when that seed was never cross-validated. */
export function readCvReport(root: string, seed: number): CvReport | null {
  const file = cvReportPath(root, seed);
  if (!existsSync(file)) return null;
  const r = JSON.parse(readFileSync(file, "utf8")) as Partial<CvReport>;
  if (r.version !== 1) throw new Error(`${file}: unsupported cross-validation report version ${String(r.version)} (this build reads 1)`);
  return r as CvReport;
}

/** Pooled held-out F1 of a round (any ranker: they share I_ret(q)). */
export function cvF1(report: CvReport, round: number): number {
  return report.cells.find((c) => c.round === round)?.summary.f1 ?? Number.NaN;
}

const COLUMNS = ["mrr@100", "ndcg@100", "f1@100", "p", "r", "f1"] as const;

/** One row per (round, ranker), BM25 last, the choice marked. */
export function formatCvReport(r: CvReport): string {
  const rows = r.cells.map((c) => {
    const m = table2Row(c.summary);
    const mark = c.round === r.choice.round && c.ranker === r.choice.rankerName ? " ← chosen" : "";
    return `| ${c.round} | ${c.ranker} | ${COLUMNS.map((k) => m[k].toFixed(4)).join(" | ")} |${mark}`;
  });
  const b = table2Row(r.bm25);
  return [
    `${r.folds}-fold cross-validation over ${r.queries} training queries (seed ${r.seed}, ${r.cells[0]?.summary.queries ?? 0} scored, ${r.seconds.toFixed(0)} s):`,
    `| round | ranker | ${COLUMNS.join(" | ")} |`,
    `|---|---|${COLUMNS.map(() => "---").join("|")}|`,
    ...rows,
    `| BM25, cutoff tuned on the other folds | | ${COLUMNS.map((k) => b[k].toFixed(4)).join(" | ")} |`,
    `chosen: round ${r.choice.round}, ranker ${r.choice.rankerName}`,
  ].join("\n");
}
