/**
 * `npm run train:report` (needs COGR_DATA): an HTML report of the lexical
 * training run in artifacts/ — dev F1 over cumulative steps with phase and
 * round markers (cf. Fig. 3), keyword n-gram lengths and distinct keywords
 * per side by round (cf. Fig. 4), a Table-2-style table per round (train and
 * dev), a Table-3-style summary of the ablation runs, and the simulated
 * loop's learning curve from clicks (scripts/simulate/curve.ts). Plots are Vega-Lite,
 * rendered to inline SVG.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vega from "vega";
import * as vl from "vega-lite";
import { type MetricSummary, TABLE2_COLUMNS, table2Row } from "../core/metrics.js";
import { keywordWords } from "../core/normalize.js";
import { loadQueryGenerator } from "../core/query-generator.js";
import type { HistoryPoint } from "../training/checkpoint.js";
import type { CvReport } from "../training/cv.js";
import { readCvReport } from "../training/cv-report.js";
import { dataDir, loadDataset } from "../training/data/dataset.js";
import { evaluateKeywords, toEvalQueries } from "../training/evaluate.js";
import { artifactsDir, listRounds, readRound } from "../training/round-artifact.js";
import { runCli } from "./cli.js";
import { curveSection } from "./simulate/curve.js";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function svg(spec: vl.TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
  return view.toSVG();
}

const cells = (s: MetricSummary) => Object.values(table2Row(s)).map((v) => v.toFixed(4));

runCli(async () => {
  const root = artifactsDir();
  const dataset = await loadDataset(dataDir());
  const rounds = listRounds(root);
  if (rounds.length === 0) throw new Error(`no rounds under ${root}: run \`npm run build-round -- --round 0\` and \`npm run train\``);
  const ckptPath = join(root, "train", "lexical", "checkpoint.json");
  const history: HistoryPoint[] = existsSync(ckptPath) ? (JSON.parse(readFileSync(ckptPath, "utf8")) as { history: HistoryPoint[] }).history : [];

  const tableRows: string[] = [];
  const lengths: Array<{ round: number; side: string; n: string; share: number }> = [];
  const distinct: Array<{ round: number; side: string; keywords: number }> = [];
  for (const r of rounds) {
    const round = readRound(r, root);
    const gen = loadQueryGenerator(round.queryGenerator, round.index);
    if (!gen) continue;
    const byId = new Map(dataset.queries.map((q) => [q.id, q]));
    for (const split of ["train", "dev"] as const) {
      const qs = round.manifest.split[split].map((id) => byId.get(id)).filter((q) => q !== undefined);
      const { queries, leftOut } = toEvalQueries(qs, dataset.relevant, round.index);
      const s = evaluateKeywords(round.index, gen, queries, leftOut);
      tableRows.push(
        `<tr><td>${r}</td><td>${split}</td>${cells(s)
          .map((c) => `<td>${c}</td>`)
          .join("")}<td>${s.queries}</td></tr>`,
      );
    }
    const itemKw = new Set(round.items.flatMap((i) => i.keywords));
    const queryKw = new Set(dataset.queries.flatMap((q) => gen(q.text)));
    for (const [side, set] of [
      ["item", itemKw],
      ["query", queryKw],
    ] as const) {
      distinct.push({ round: r, side, keywords: set.size });
      const counts = [0, 0, 0];
      for (const k of set) {
        const j = Math.min(3, keywordWords(k).length) - 1;
        counts[j] = (counts[j] as number) + 1;
      }
      ["1", "2", "3+"].forEach((n, j) => {
        lengths.push({ round: r, side, n, share: set.size === 0 ? 0 : (counts[j] as number) / set.size });
      });
    }
  }

  const evals = history.filter((h) => h.devF1 !== undefined);
  const phaseEnds = history.filter((h, j) => history[j + 1]?.phase !== h.phase && h.phase !== "sft");
  const fig3 = evals.length
    ? await svg({
        width: 720,
        height: 280,
        title: "Dev F1 over cumulative training steps (rules: phase ends; labels: side-round)",
        layer: [
          {
            data: { values: evals },
            mark: { type: "line", point: true },
            encoding: {
              x: { field: "step", type: "quantitative", title: "cumulative GRPO steps" },
              y: { field: "devF1", type: "quantitative", title: "dev F1", scale: { zero: false } },
            },
          },
          { data: { values: phaseEnds }, mark: { type: "rule", strokeDash: [4, 3], color: "#999" }, encoding: { x: { field: "step", type: "quantitative" } } },
          {
            data: { values: phaseEnds },
            mark: { type: "text", dy: -125, angle: 0, fontSize: 9 },
            encoding: { x: { field: "step", type: "quantitative" }, text: { field: "phase" } },
          },
        ],
      })
    : "<p>No training history: run <code>npm run train</code>.</p>";
  const fig4b = await svg({
    data: { values: lengths },
    width: 300,
    height: 200,
    title: "Keyword n-gram length by round",
    mark: "bar",
    encoding: {
      x: { field: "round", type: "ordinal" },
      y: { field: "share", type: "quantitative", stack: "normalize", title: "share of distinct keywords" },
      color: { field: "n", type: "nominal", title: "words" },
      column: { field: "side", type: "nominal" },
    },
  });
  const fig4c = await svg({
    data: { values: distinct },
    width: 360,
    height: 220,
    title: "Distinct keywords per side by round",
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "round", type: "ordinal" },
      y: { field: "keywords", type: "quantitative", scale: { type: "log" } },
      color: { field: "side", type: "nominal" },
    },
  });

  const ablationRoot = join(root, "ablations");
  const ablations: string[] = [];
  const lastDev = (r: string, n: number) => (readRound(n, r).manifest.metrics as { dev?: MetricSummary }).dev;
  const mainLast = rounds.at(-1) as number;
  const mainDev = lastDev(root, mainLast);
  if (existsSync(ablationRoot)) {
    for (const name of readdirSync(ablationRoot).sort()) {
      const rs = listRounds(join(ablationRoot, name));
      const dev = rs.length > 1 ? lastDev(join(ablationRoot, name), rs.at(-1) as number) : undefined;
      if (dev)
        ablations.push(
          `<tr><td>${esc(name)} (round ${rs.at(-1)})</td><td>${dev.p.toFixed(4)}</td><td>${dev.r.toFixed(4)}</td><td>${dev.f1.toFixed(4)}</td></tr>`,
        );
    }
  }
  if (mainDev)
    ablations.push(
      `<tr><td><b>CoGR lexical (full), round ${mainLast}</b></td><td>${mainDev.p.toFixed(4)}</td><td>${mainDev.r.toFixed(4)}</td><td>${mainDev.f1.toFixed(4)}</td></tr>`,
    );

  // Cross-validation reports of any seed (npm run train -- --cv K): the held-out choice beside the last round.
  const cvDir = join(root, "train", "lexical");
  const cvSeeds = existsSync(cvDir)
    ? readdirSync(cvDir)
        .map((f) => /^cv-seed-(\d+)\.json$/.exec(f)?.[1])
        .filter((x): x is string => x !== undefined)
        .map(Number)
        .sort((a, b) => a - b)
    : [];
  const cvTables = cvSeeds.map((seed) => {
    const r = readCvReport(root, seed) as CvReport;
    const rows = r.cells.map((c) => {
      const m = table2Row(c.summary);
      const chosen = c.round === r.choice.round && c.ranker === r.choice.rankerName;
      return `<tr><td>${chosen ? "<b>" : ""}${c.round}${chosen ? " (chosen)</b>" : ""}</td><td>${esc(c.ranker)}</td>${TABLE2_COLUMNS.map((k) => `<td>${m[k].toFixed(4)}</td>`).join("")}</tr>`;
    });
    const b = table2Row(r.bm25);
    rows.push(`<tr><td>BM25</td><td>cutoff tuned on the other folds</td>${TABLE2_COLUMNS.map((k) => `<td>${b[k].toFixed(4)}</td>`).join("")}</tr>`);
    return `<h3>Seed ${seed}: ${r.folds} folds over ${r.queries} training queries; chosen round ${r.choice.round}, ranker ${esc(r.choice.rankerName)}</h3>
<table><tr><th>round</th><th>ranker</th>${TABLE2_COLUMNS.map((c) => `<th>${c}</th>`).join("")}</tr>${rows.join("")}</table>`;
  });

  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>cogr-edge training report</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem}table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:right}td:first-child,th:first-child{text-align:left}</style></head><body>
<h1>Lexical CoGR training report</h1>
<p>Data: ${esc(dataset.dir)} (${dataset.products.length} products, ${dataset.queries.length} queries). Rounds: ${rounds.join(", ")}.</p>
<h2>Dev F1 over training (cf. Fig. 3)</h2>${fig3}
<h2>Keyword evolution (cf. Fig. 4)</h2>${fig4b}${fig4c}
<h2>Retrieval by round (Table 2 columns)</h2>
<table><tr><th>round</th><th>split</th>${TABLE2_COLUMNS.map((c) => `<th>${c}</th>`).join("")}<th>queries</th></tr>${tableRows.join("")}</table>
<h2>Cross-validation over the training queries (held-out folds)</h2>
${cvTables.length > 0 ? cvTables.join("") : "<p>No cross-validation run: see <code>npm run train -- --cv 5</code>.</p>"}
<h2>Learning from clicks (npm run simulate-loop)</h2>
${await curveSection(root, svg)}
<h2>Ablations (Table 3 style, dev split)</h2>
${ablations.length > 0 ? `<table><tr><th>variant</th><th>P</th><th>R</th><th>F1</th></tr>${ablations.join("")}</table>` : "<p>No ablation runs: see <code>npm run train -- --no-sft</code> and the other flags.</p>"}
</body></html>`;
  const out = join(root, "report");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "index.html"), html);
  console.log(`report → ${join(out, "index.html")}`);
});
