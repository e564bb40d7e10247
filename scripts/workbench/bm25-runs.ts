/**
 * The evaluation's BM25 baseline (training/evaluate.ts, as `npm run eval --
 * --method bm25` computes it: BM25 over the item text, the cutoff that
 * maximises macro F1 on the training queries of the newest round's split, or
 * before any round exists the default split round 0 is built with, paper §4.1) run over given queries, for the workbench's `bm25` side.
 * Serving holds no item-text postings, so each query's ranking is computed
 * here and stored in the catalogue's bm25_runs table.
 */
import { keywordWords, normalizeKeyword } from "../../core/normalize.js";
import { planQuery } from "../../core/retrieve.js";
import { SPLIT_DEFAULTS, splitQueries } from "../../core/split.js";
import { type DataSource, loadDataset } from "../../training/data/dataset.js";
import type { Query } from "../../training/data/types.js";
import { buildTextIndex, evaluateBm25, toEvalQueries } from "../../training/evaluate.js";
import { listRounds, readManifest, roundDir } from "../../training/round-artifact.js";
import { packedInserts } from "./sql.js";

/** Ranks stored per query: the retrieved set (the cutoff) and at least the 100 NDCG@100 reads. */
export const BM25_RUN_LIMITS = { minDepth: 100 } as const;

export interface Bm25Baseline {
  readonly cutoff: number;
  readonly tunedOn: number;
  readonly splitRound: number;
  /** [item id, score] in rank order, to max(cutoff, 100). */
  rank(query: string): Array<[string, number]>;
}

/** The baseline over COGR_DATA, tuned on the newest round's training queries; a reason instead when it cannot be. */
export async function bm25Baseline(src: DataSource): Promise<Bm25Baseline | { skipped: string }> {
  const rounds = listRounds();
  const newest = rounds[rounds.length - 1];
  const dataset = await loadDataset(src.dir);
  // Before any round is built (`npm run labels` ahead of `npm start`): the split round 0 is built with by default.
  const ids = dataset.queries.map((q) => q.id);
  const split =
    newest === undefined
      ? splitQueries(ids, SPLIT_DEFAULTS.seed, Math.min(SPLIT_DEFAULTS.devQueries, Math.floor(ids.length / 4)))
      : readManifest(roundDir(newest)).split;
  const splitRound = newest ?? 0;
  const byId = new Map(dataset.queries.map((q) => [q.id, q]));
  const train = split.train.map((id) => byId.get(id)).filter((q): q is Query => q !== undefined);
  if (train.length === 0) return { skipped: `round ${splitRound}'s split has no training queries to tune BM25's cutoff on` };
  const text = buildTextIndex(dataset.products);
  const tune = toEvalQueries(train, dataset.relevant, text).queries;
  const { cutoff } = evaluateBm25(text, tune, [], 0);
  const depth = Math.max(cutoff, BM25_RUN_LIMITS.minDepth);
  return {
    cutoff,
    tunedOn: tune.length,
    splitRound,
    rank: (query) => {
      const page = text.search(planQuery(keywordWords(normalizeKeyword(query)), ""), { limit: depth });
      return page.hits.map((h) => [text.ids[h.item] as string, h.score]);
    },
  };
}

/** Statements that replace the runs of `queries` (normalised texts). */
export function bm25RunStatements(baseline: Bm25Baseline, queries: readonly string[], quote: (s: string) => string): string[] {
  const values = queries.map((q) => `(${quote(q)},${quote(JSON.stringify(baseline.rank(q)))},${baseline.cutoff},${baseline.tunedOn},${baseline.splitRound})`);
  const deletes = packedInserts(
    "DELETE FROM bm25_runs WHERE query IN (",
    queries.map((q) => quote(q)),
    ")",
  );
  return [...deletes, ...packedInserts("INSERT INTO bm25_runs (query, ranked, cutoff, tuned_on, split_round) VALUES ", values)];
}
