/**
 * The learning curve of the simulated loop for the training report: dev F1 of
 * the click-trained round against the number of logged searches (each
 * `npm run simulate-loop` run appends a point to artifacts/loop/curve.jsonl),
 * with round 0, BM25 and the labels-trained round as references.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TopLevelSpec } from "vega-lite";

interface CurvePoint {
  readonly searches: number;
  readonly seed: number;
  readonly withCatalog?: boolean;
  readonly verdict: string;
  readonly dev: { clicks: number; round0: number; bm25: number; labels: number };
}

export function readCurve(root: string): CurvePoint[] {
  const file = join(root, "loop", "curve.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as CurvePoint);
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The report's section: a plot (log-scaled searches) and the same figures in a table. */
export async function curveSection(root: string, svg: (spec: TopLevelSpec) => Promise<string>): Promise<string> {
  const points = readCurve(root);
  if (points.length === 0) return "<p>No simulated loop yet: run <code>npm run simulate-loop -- --searches 2000</code>.</p>";
  const series = points.flatMap((p) =>
    (["clicks", "round0", "bm25", "labels"] as const).map((k) => ({
      searches: p.searches,
      seed: p.seed,
      f1: p.dev[k],
      method:
        k === "clicks"
          ? `trained from clicks${p.withCatalog ? " + catalogue" : ""}`
          : k === "round0"
            ? "round 0"
            : k === "bm25"
              ? "BM25 (tuned)"
              : "trained from labels",
    })),
  );
  const plot = await svg({
    data: { values: series },
    width: 560,
    height: 260,
    title: "Dev F1 against logged searches (simulated shoppers; dev queries never searched)",
    mark: { type: "line", point: true, tooltip: true },
    encoding: {
      x: { field: "searches", type: "quantitative", scale: { type: "log" }, title: "logged searches" },
      y: { field: "f1", type: "quantitative", aggregate: "mean", title: "dev F1 (mean over seeds)", scale: { zero: false } },
      color: { field: "method", type: "nominal" },
    },
  });
  const rows = points
    .map(
      (p) =>
        `<tr><td>${p.searches}</td><td>${p.seed}</td><td>${p.dev.clicks.toFixed(4)}</td><td>${p.dev.round0.toFixed(4)}</td><td>${p.dev.bm25.toFixed(4)}</td><td>${p.dev.labels.toFixed(4)}</td><td>${(p.dev.clicks / p.dev.bm25).toFixed(3)}×</td><td>${esc(p.verdict)}</td></tr>`,
    )
    .join("");
  return `${plot}<table><tr><th>searches</th><th>seed</th><th>clicks</th><th>round 0</th><th>BM25</th><th>labels</th><th>clicks ÷ BM25</th><th>interleaving</th></tr>${rows}</table>`;
}
