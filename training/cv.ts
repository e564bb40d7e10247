/**
 * Model selection by k-fold cross-validation over the training queries
 * (never the dev split): the round to ship and the ranker inside I_ret(q).
 *
 * The training queries are dealt into k folds (seeded). For each fold the
 * whole co-evolution runs from round 0 on the other k − 1 folds, and every
 * round it writes is scored on the fold it never saw, under every ranker of
 * RANKER_CHOICES. Each training query is held out exactly once, so the
 * pooled figures are a macro average over all of them, out of sample. The
 * BM25 baseline gets the same treatment (its cutoff tuned on the other
 * folds), so the margin over it is measured without dev as well.
 *
 * Choice: the round with the best pooled F1 (the ranker cannot move F1,
 * since I_ret(q) is the same set); at that round, the ranker with the best
 * pooled NDCG@100.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { KeywordIndex } from "../core/inverted-index.js";
import { bestCutoff, type MetricSummary, macroAverage, type QueryMetrics, queryMetrics } from "../core/metrics.js";
import { loadQueryGenerator } from "../core/query-generator.js";
import { RANKER_CHOICES, type RankerSpec, rankerName } from "../core/ranker.js";
import { type Split, seededHash } from "../core/split.js";
import type { Dataset } from "./data/types.js";
import { bm25Runs, buildTextIndex, perQueryMetrics, productText, toEvalQueries } from "./evaluate.js";
import { trainLexical } from "./lexical.js";
import type { TrainOptions, TrainProgress } from "./lexical-options.js";
import { ROUND_QUERY_TERMS } from "./query-terms.js";
import { readManifest, readRound, roundDir, wholeQueryGenerator, writeRound } from "./round-artifact.js";
import { buildRound0 } from "./round0.js";

export const CV_DEFAULTS = { folds: 5 } as const;

export interface CvCell {
  readonly round: number;
  readonly ranker: string;
  readonly summary: MetricSummary;
}

export interface CvReport {
  readonly version: 1;
  readonly folds: number;
  readonly seed: number;
  readonly queries: number;
  /** Pooled over the folds: every (round, ranker). */
  readonly cells: readonly CvCell[];
  readonly bm25: MetricSummary;
  readonly choice: { readonly round: number; readonly ranker: RankerSpec; readonly rankerName: string };
  readonly seconds: number;
}

/** Deals the query ids into k folds: sorted by a seeded hash, then round-robin (sizes differ by at most one). */
export function foldsOf(ids: readonly string[], k: number, seed: number): string[][] {
  if (!Number.isInteger(k) || k < 2 || k > ids.length) throw new RangeError(`--cv needs 2..${ids.length} folds, got ${k}`);
  const order = [...ids].sort((a, b) => seededHash(seed ^ 0x5f3759df, a) - seededHash(seed ^ 0x5f3759df, b) || (a < b ? -1 : 1));
  const folds: string[][] = Array.from({ length: k }, () => []);
  order.forEach((id, j) => {
    folds[j % k]?.push(id);
  });
  return folds;
}

export interface CvProgress extends TrainProgress {
  fold?(fold: number, folds: number): void;
}

/**
 * Runs the k trainings and scores them. `opts.artifactsRoot` is where the
 * main run's round 0 lies; the folds' rounds go under
 * `<root>/train/lexical/cv/seed-S/fold-F/` (each resumable like any run).
 */
export function crossValidate(dataset: Dataset, opts: TrainOptions, folds: number, progress: CvProgress, now = () => performance.now()): CvReport {
  const t0 = now();
  const main = readManifest(roundDir(0, opts.artifactsRoot));
  const trainIds = main.split.train;
  const deal = foldsOf(trainIds, folds, opts.seed);
  const text = buildTextIndex(dataset.products);
  const texts = new Map(dataset.products.map((p) => [p.id, productText(p)]));
  const byId = new Map(dataset.queries.map((q) => [q.id, q]));
  const evalQueries = (ids: readonly string[]) =>
    toEvalQueries(
      ids.map((id) => byId.get(id)).filter((q) => q !== undefined),
      dataset.relevant,
      text,
    );
  const pooled = new Map<string, QueryMetrics[]>();
  const bm25: QueryMetrics[] = [];
  let leftOut = 0;
  const rounds = new Set<number>();
  deal.forEach((held, f) => {
    progress.fold?.(f + 1, folds);
    const held_ = new Set(held);
    const split: Split = { seed: main.split.seed, devQueries: held.length, train: trainIds.filter((id) => !held_.has(id)), dev: [...held] };
    const root = join(opts.artifactsRoot, "train", "lexical", "cv", `seed-${opts.seed}`, `fold-${f + 1}`);
    writeRound(buildRound0(dataset, { split }), root);
    trainLexical(dataset, { ...opts, fromRound: 0, artifactsRoot: root, ranker: undefined }, progress);
    // BM25 on the held-out fold, its cutoff tuned on the other folds.
    const tune = evalQueries(split.train).queries;
    const heldOut = evalQueries(held);
    leftOut += heldOut.leftOut;
    const cutoff = bestCutoff(bm25Runs(text, tune), text.itemCount);
    for (const { ranked, relevant } of bm25Runs(text, heldOut.queries)) bm25.push(queryMetrics(ranked, Math.min(cutoff, ranked.length), relevant));
    for (let r = 0; r <= opts.rounds; r++) {
      const round = readRound(r, root);
      // A hinted policy's first pass runs over the fold's round as trained (the keyword bag), so its keywords, and
      // I_ret(q) with them, are the same under every ranker scored below: only the order moves.
      const generate = loadQueryGenerator(wholeQueryGenerator(round.dir, round.manifest), round.index);
      if (!generate) throw new Error(`fold ${f + 1} round ${r} has no query generator`);
      rounds.add(r);
      for (const ranker of RANKER_CHOICES) {
        const index = KeywordIndex.build(
          round.items.map((it) => ({ ...it, text: texts.get(it.id) })),
          { ranker, queryTerms: ROUND_QUERY_TERMS },
        );
        const key = `${r}\u0000${rankerName(ranker)}`;
        const list = pooled.get(key) ?? [];
        list.push(...perQueryMetrics(index, generate, heldOut.queries));
        pooled.set(key, list);
      }
    }
  });
  const cells: CvCell[] = [];
  for (const r of [...rounds].sort((a, b) => a - b)) {
    for (const ranker of RANKER_CHOICES) {
      cells.push({ round: r, ranker: rankerName(ranker), summary: macroAverage(pooled.get(`${r}\u0000${rankerName(ranker)}`) ?? [], leftOut) });
    }
  }
  return {
    version: 1,
    folds,
    seed: opts.seed,
    queries: trainIds.length,
    cells,
    bm25: macroAverage(bm25, leftOut),
    choice: choose(cells),
    seconds: (now() - t0) / 1000,
  };
}

/** The round with the best pooled F1 (ties: the earlier round, the cheaper one to have trained), then its ranker with the best NDCG@100. */
export function choose(cells: readonly CvCell[]): CvReport["choice"] {
  if (cells.length === 0) throw new RangeError("no cross-validation cells to choose from");
  const best = (xs: readonly CvCell[], by: (c: CvCell) => number) => xs.reduce((a, b) => (by(b) > by(a) ? b : a));
  const round = best(cells, (c) => c.summary.f1).round;
  const cell = best(
    cells.filter((c) => c.round === round),
    (c) => c.summary.at[100].ndcg,
  );
  const ranker = RANKER_CHOICES.find((r) => rankerName(r) === cell.ranker) as RankerSpec;
  return { round, ranker, rankerName: cell.ranker };
}
