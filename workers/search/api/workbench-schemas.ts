/**
 * The relevance workbench's schemas: /v1/compare, /v1/query-set(s) and
 * /v1/judgments (validation, types and the OpenAPI document, as schemas.ts).
 */
import { z } from "@hono/zod-openapi";
import { SERVING_LIMITS } from "../limits.js";
import { intParam, KeywordSource, SearchQuery, SearchResult } from "./schemas.js";

export const WORKBENCH_LIMITS = { querySetMax: 500, querySetDefault: 100, raterMaxChars: 64, itemIdMaxChars: 256 } as const;

function sideParam(name: string, description: string) {
  return z
    .string()
    .regex(/^(bm25|[0-9]{1,9})$/, `${name} must be a round number or bm25`)
    .optional()
    .openapi({ param: { name, in: "query", description }, example: "bm25" });
}

export const Label = z.enum(["Exact", "Partial", "Irrelevant"]);

const SIDE_A = "The left side: a published round's number, or bm25 (the evaluation's BM25 over the item text). Default: the newest round.";
const SIDE_B = "The right side: a published round's number, or bm25. Default: the second newest round, else bm25.";

export const CompareQuery = z.object({
  q: SearchQuery.shape.q,
  a: sideParam("a", SIDE_A),
  b: sideParam("b", SIDE_B),
  limit: intParam("limit", 1, SERVING_LIMITS.limitMax, 20).openapi({ param: { name: "limit", in: "query", description: "Results per side." } }),
});

const Metrics = z
  .object({
    relevant: z.number().int().nonnegative(),
    retrieved: z.number().int().nonnegative(),
    hits: z.number().int().nonnegative(),
    p: z.number(),
    r: z.number(),
    f1: z.number(),
    ndcg10: z.number(),
    ndcg100: z.number(),
  })
  .openapi("SideMetrics", {
    description:
      "Against the query's labels (file labels and judgments): P/R/F1 over the retrieved set (a round: I_ret(q); bm25: its top `cutoff`), NDCG@10 and @100 with binary gains.",
  });

export const CompareSide = z
  .object({
    kind: z.enum(["round", "bm25"]),
    round: z.number().int().nonnegative().openapi({ description: "The round whose index answered (bm25: whose catalogue names its items)." }),
    label: z.string().openapi({ description: "What the side is, in words." }),
    ranker: z.string().openapi({ description: "The round's ranker (GET /v1/rounds), or bm25." }),
    available: z.boolean().openapi({ description: "false: bm25 has no stored run for this query (npm run labels or npm run query-set stores them)." }),
    keywords: z.array(z.string()),
    keywordSource: KeywordSource,
    total: z.number().int().nonnegative().openapi({ description: "The retrieved set: a round's |I_ret(q)|; bm25: min(cutoff, items sharing a word)." }),
    metrics: Metrics.nullable().openapi({ description: "null without labels for the query (or bm25 without a run)." }),
    unjudgedTop10: z.number().int().nonnegative().openapi({ description: "How many of the side's top 10 have no label or judgment." }),
    results: z.array(
      SearchResult.extend({
        rank: z.number().int().positive(),
        inOther: z.boolean().openapi({ description: "The other side's shown results hold this item too." }),
        label: Label.nullable().optional().openapi({ description: "With labels for the query: the item's label, null when unlabelled." }),
      }),
    ),
  })
  .openapi("CompareSide");

const Change = z.object({ kind: z.enum(["up", "down", "same", "new", "gone"]), by: z.number().int().nonnegative().optional() }).openapi("RankChange", {
  description: "The item's move from the right side's rank to the left's: up/down by so many ranks, new (left only), gone (right only).",
});

export const CompareResponse = z
  .object({
    query: z.string(),
    labelled: z.boolean().openapi({ description: "Whether the query has labels (file labels or judgments)." }),
    sides: z.array(CompareSide).length(2),
    overlap: z
      .object({ jaccard10: z.number(), jaccard100: z.number(), rbo10: z.number(), rbo100: z.number() })
      .openapi({ description: "How much the two rankings agree at 10 and 100: Jaccard of the top-k sets, and rank-biased overlap (p = 0.9)." }),
    aligned: z
      .array(
        z.object({
          id: z.string(),
          ranks: z.tuple([z.number().int().positive().nullable(), z.number().int().positive().nullable()]),
          change: Change,
        }),
      )
      .openapi({ description: "Every shown item once, with its rank on each side (null: not shown there): left's order, then right-only items." }),
  })
  .openapi("CompareResponse");

export const QuerySetQuery = z.object({
  a: sideParam("a", SIDE_A),
  b: sideParam("b", SIDE_B),
  set: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "set must be labelled, frequent or an uploaded set's name (letters, digits, - and _)")
    .optional()
    .openapi({ param: { name: "set", in: "query", description: "labelled (default), frequent, or an uploaded set's name." }, example: "labelled" }),
  limit: intParam("limit", 1, WORKBENCH_LIMITS.querySetMax, WORKBENCH_LIMITS.querySetDefault).openapi({
    param: { name: "limit", in: "query", description: "How many of the set's queries to evaluate (its first ones)." },
  }),
});

const QuerySide = z.object({
  retrieved: z.number().int().nonnegative().nullable().openapi({ description: "The retrieved set's size; null: bm25 has no run for the query." }),
  metrics: Metrics.nullable(),
  unjudgedTop10: z.number().int().nonnegative(),
});

const Paired = z
  .object({
    queries: z.number().int().nonnegative(),
    meanA: z.number(),
    meanB: z.number(),
    meanDelta: z.number(),
    ci95: z.tuple([z.number(), z.number()]).openapi({ description: "95 % percentile-bootstrap interval of the mean delta (a − b), paired by query." }),
    wins: z.number().int().nonnegative(),
    losses: z.number().int().nonnegative(),
    ties: z.number().int().nonnegative(),
    signTestP: z.number().openapi({ description: "Two-sided sign test over wins and losses." }),
  })
  .openapi("PairedSummary");

export const QuerySetResponse = z
  .object({
    set: z.string(),
    size: z.number().int().nonnegative().openapi({ description: "How many queries were evaluated (the set's first `limit`)." }),
    sides: z.array(z.object({ kind: z.enum(["round", "bm25"]), round: z.number().int().nonnegative(), label: z.string(), ranker: z.string() })).length(2),
    summary: z
      .object({ f1: Paired, ndcg10: Paired, ndcg100: Paired })
      .openapi({ description: "Over the queries that have labels and a metric on both sides." }),
    queries: z
      .array(
        z.object({
          query: z.string(),
          labelled: z.boolean(),
          a: QuerySide,
          b: QuerySide,
          delta: z
            .object({ f1: z.number(), ndcg10: z.number(), ndcg100: z.number() })
            .nullable()
            .openapi({ description: "a − b; null without metrics on both sides, or when no item is relevant (left out, as npm run eval does)." }),
        }),
      )
      .openapi({ description: "Sorted by delta of NDCG@10, worst for a first; queries without a delta last." }),
  })
  .openapi("QuerySetResponse");

export const QuerySetsResponse = z
  .object({ sets: z.array(z.object({ name: z.string(), kind: z.enum(["labelled", "frequent", "uploaded"]), queries: z.number().int().nonnegative() })) })
  .openapi("QuerySetsResponse");

export const JudgmentBody = z
  .object({
    query: z.string().min(1, "query must not be empty").max(SERVING_LIMITS.queryMaxChars, `query must be at most ${SERVING_LIMITS.queryMaxChars} characters`),
    itemId: z.string().min(1, "itemId must not be empty").max(WORKBENCH_LIMITS.itemIdMaxChars),
    label: Label,
    rater: z
      .string()
      .min(1)
      .max(WORKBENCH_LIMITS.raterMaxChars)
      .optional()
      .openapi({ description: "Who judged (default: judge, or admin with the admin token)." }),
  })
  .strict()
  .openapi("JudgmentBody");

export const JudgmentResponse = z
  .object({ query: z.string(), itemId: z.string(), label: Label, rater: z.string(), judgedAt: z.string() })
  .openapi("Judgment", { description: "The stored judgment; `query` as normalised." });
