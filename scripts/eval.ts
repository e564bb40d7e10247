/**
 * `npm run eval -- --method bm25|keywords [--round N] [--split dev|train]
 *                  [--queries FILE --labels FILE] [--json]`
 */

import { performance } from "node:perf_hooks";
import { type MetricSummary, table2Row } from "../core/metrics.js";
import { loadQueryCorrector, loadQueryGenerator } from "../core/query-generator.js";
import { dataDir, dataSource, hasLabels, loadDataset, loadSourceLabels, loadSourceQueries } from "../training/data/dataset.js";
import { DataError, type Query } from "../training/data/types.js";
import { loadLabels, loadQueries } from "../training/data/wands.js";
import { buildTextIndex, evaluateBm25, evaluateKeywords, toEvalQueries } from "../training/evaluate.js";
import { llmQueryKeywords } from "../training/llm/evaluate-llm.js";
import { readManifest, readRoundIndex, roundDir, wholeQueryGenerator } from "../training/round-artifact.js";
import { useRunTempRoot } from "../training/temp-root.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";

const USAGE = "npm run eval -- --method bm25|keywords [--round N] [--split dev|train] [--queries FILE --labels FILE] [--base-url URL] [--json]";

runCli(async () => {
  useRunTempRoot(); // every temporary file of the run in one folder, removed at exit or by the next run
  const args = parseCli(
    {
      method: { type: "string" },
      round: { type: "string" },
      split: { type: "string" },
      queries: { type: "string" },
      labels: { type: "string" },
      json: { type: "boolean" },
      "base-url": { type: "string" },
    },
    USAGE,
  );
  if (args.method !== "bm25" && args.method !== "keywords") throw new UsageError(`--method must be bm25 or keywords\nusage: ${USAGE}`);
  const which = args.split ?? "dev";
  if (which !== "dev" && which !== "train") throw new UsageError(`--split must be dev or train, got ${JSON.stringify(which)}`);
  if ((args.queries === undefined) !== (args.labels === undefined)) throw new UsageError("--queries and --labels go together");
  const roundNo = intOption("round", args.round, 0);
  const t0 = performance.now();
  // The split comes from the round so every method is measured on the same queries.
  // The keyword method needs the round's index, the queries and the labels, never the products (it streams at any catalogue size).
  const round = args.method === "keywords" ? readRoundIndex(roundNo) : null;
  const src = dataSource(dataDir());
  if (!hasLabels(src) && args.queries === undefined) {
    throw new DataError(
      `eval measures against relevance labels, and ${src.dir} has none: import the catalogue with --queries and --labels, or pass --queries FILE --labels FILE`,
    );
  }
  const dataset = round
    ? await (async () => {
        const ids = new Set(round.index.ids);
        const queries = await loadSourceQueries(src);
        return { queries, relevant: (await loadSourceLabels(src, ids)).relevant, productIds: ids, products: null };
      })()
    : await (async () => {
        const d = await loadDataset(src.dir);
        return { ...d, productIds: new Set(d.products.map((p) => p.id)) };
      })();
  const split = (round?.manifest ?? readManifest(roundDir(roundNo))).split;
  const byId = new Map(dataset.queries.map((q) => [q.id, q]));
  const pick = (ids: readonly string[]) => ids.map((id) => byId.get(id)).filter((q): q is Query => q !== undefined);

  let evalQueries: readonly Query[];
  let relevant = dataset.relevant;
  let tuneQueries: readonly Query[];
  let label: string;
  if (args.queries !== undefined && args.labels !== undefined) {
    evalQueries = await loadQueries(args.queries, src.ids);
    relevant = (await loadLabels(args.labels, dataset.productIds, src.ids)).relevant;
    const given = new Set(evalQueries.map((q) => q.id));
    tuneQueries = dataset.queries.filter((q) => !given.has(q.id));
    label = args.queries;
  } else {
    evalQueries = pick(which === "dev" ? split.dev : split.train);
    tuneQueries = pick(split.train);
    label = which;
  }

  let summary: MetricSummary;
  let extra = "";
  if (round) {
    const queryGenerator = wholeQueryGenerator(round.dir, round.manifest);
    const generate =
      queryGenerator.kind === "llm"
        ? await llmQueryKeywords(roundNo, queryGenerator, evalQueries, args["base-url"] ?? process.env.LLM_BASE_URL)
        : loadQueryGenerator(queryGenerator, round.index);
    if (!generate) throw new Error(`round ${roundNo} has no query generator to evaluate`);
    const { queries, leftOut } = toEvalQueries(evalQueries, relevant, round.index);
    // The worker reports (and weighs) a correction only for a CPU generator's answer; an LLM reads the query as typed.
    const correct = queryGenerator.kind === "llm" ? undefined : loadQueryCorrector(queryGenerator);
    summary = evaluateKeywords(round.index, generate, queries, leftOut, correct ? { correct } : {});
  } else {
    const text = buildTextIndex(dataset.products ?? []);
    const tune = toEvalQueries(tuneQueries, dataset.relevant, text).queries;
    const { queries, leftOut } = toEvalQueries(evalQueries, relevant, text);
    const r = evaluateBm25(text, tune, queries, leftOut);
    summary = r.summary;
    extra = `, cutoff ${r.cutoff} tuned on ${tune.length} training queries`;
  }
  const seconds = (performance.now() - t0) / 1000;
  const metrics = table2Row(summary);
  if (args.json) {
    console.log(
      JSON.stringify({
        ...metrics,
        queries: summary.queries,
        leftOut: summary.leftOut,
        method: args.method,
        round: args.method === "keywords" ? roundNo : null,
        split: label,
      }),
    );
    return;
  }
  const head = ["method", ...Object.keys(metrics), "queries"];
  const cells = [args.method === "keywords" ? `keywords r${roundNo}` : "bm25", ...Object.values(metrics).map((v) => v.toFixed(4)), String(summary.queries)];
  const width = head.map((h, j) => Math.max(h.length, (cells[j] as string).length));
  console.log(head.map((h, j) => h.padStart(width[j] as number)).join("  "));
  console.log(cells.map((c, j) => c.padStart(width[j] as number)).join("  "));
  console.log(`${label}: ${summary.queries} queries, ${summary.leftOut} left out (no relevant item in the universe)${extra}; ${seconds.toFixed(1)} s`);
});
