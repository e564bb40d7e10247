/**
 * GET /v1/query-sets and GET /v1/query-set?a=&b=&set=&limit= — two sides
 * over a whole query set: the labelled queries, the most frequent ones of the
 * search events, or an uploaded list (`npm run query-set`). Each query gets
 * each side's retrieved set, P/R/F1, NDCG@10/@100 and unjudged top 10, and
 * the delta a − b; the aggregate is paired by query (workbench/paired.ts).
 * Rows are sorted by the NDCG@10 delta, worst for `a` first.
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { QuerySetQuery, QuerySetResponse, QuerySetsResponse, WORKBENCH_LIMITS } from "../api/workbench-schemas.js";
import { Problem } from "../errors.js";
import type { ServicesEnv } from "../middleware/services.js";
import { pairedSummary } from "../workbench/paired.js";
import { pickSides, rankedIds, runSide, type Side, type SideMetrics, sideLabel, sideMetrics, sideRanker, unjudgedTop10 } from "../workbench/sides.js";
import { type Bm25Run, type Labels, WorkbenchStore } from "../workbench/store.js";

/** Queries evaluated at once: each runs both sides' searches. */
const QUERY_SET_LIMITS = { concurrency: 8 } as const;

export const querySetsRoute = createRoute({
  method: "get",
  path: "/v1/query-sets",
  operationId: "listQuerySets",
  summary: "The query sets: labelled, frequent, and the uploaded ones, with their sizes",
  tags: ["workbench"],
  responses: { 200: json("The sets.", QuerySetsResponse), ...problems(...DATA_ROUTE) },
});

export const querySetRoute = createRoute({
  method: "get",
  path: "/v1/query-set",
  operationId: "querySet",
  summary: "Two sides over a query set: per-query metrics, deltas and a paired confidence interval",
  description:
    "`set`: labelled (queries with file labels or judgments; default), frequent (the most frequent queries of the search events) or an uploaded set's name (`npm run query-set`). " +
    "Its first `limit` queries are evaluated. `bm25` is the evaluation's BM25 over the item text (the run stored per query by `npm run labels` / `npm run query-set`).",
  tags: ["workbench"],
  request: { query: QuerySetQuery },
  responses: { 200: json("Per-query metrics and the paired summary.", QuerySetResponse), ...problems(...DATA_ROUTE, 404) },
});

async function evaluateQuery(c: Context<ServicesEnv>, sides: [Side, Side], q: string, labels: Labels, bm25: Bm25Run | undefined) {
  const perSide = await Promise.all(
    sides.map(async (side) => {
      const run = await runSide(c, side, q, bm25, false);
      const ranked = rankedIds(run, bm25);
      return { retrieved: run.retrieved, metrics: await sideMetrics(c, run, labels, ranked), unjudgedTop10: unjudgedTop10(ranked, labels) };
    }),
  );
  const [a, b] = perSide as [(typeof perSide)[number], (typeof perSide)[number]];
  // As `npm run eval` leaves out a query with no relevant item, so does the delta (both sides would score 0).
  const delta = (x: SideMetrics | null, y: SideMetrics | null) =>
    x && y && x.relevant > 0 ? { f1: x.f1 - y.f1, ndcg10: x.ndcg10 - y.ndcg10, ndcg100: x.ndcg100 - y.ndcg100 } : null;
  return { query: q, labelled: labels.size > 0, a, b, delta: delta(a.metrics, b.metrics) };
}

export function mountQuerySet(app: ApiApp) {
  app.openapi(querySetsRoute, async (c) => {
    const sets = await new WorkbenchStore(c.env.CATALOG, c.env.EVENTS).sets(WORKBENCH_LIMITS.querySetMax);
    return c.json({ sets }, 200);
  });
  app.openapi(querySetRoute, async (c) => {
    const { a, b, set = "labelled", limit } = c.req.valid("query");
    const sides = pickSides(await c.var.services.catalog.publishedRounds(), a, b);
    const store = new WorkbenchStore(c.env.CATALOG, c.env.EVENTS);
    const queries = await store.setQueries(set, limit);
    if (queries === null) throw new Problem("notFound", `No query set named ${JSON.stringify(set)} (GET /v1/query-sets lists them).`, { parameter: "set" });
    const [labels, runs] = await Promise.all([store.labelsFor(queries), store.bm25RunsFor(queries)]);
    const rows: Awaited<ReturnType<typeof evaluateQuery>>[] = [];
    for (let j = 0; j < queries.length; j += QUERY_SET_LIMITS.concurrency) {
      const batch = queries.slice(j, j + QUERY_SET_LIMITS.concurrency);
      rows.push(...(await Promise.all(batch.map((q) => evaluateQuery(c, sides, q, labels.get(q) ?? new Map(), runs.get(q))))));
    }
    const paired = (metric: "f1" | "ndcg10" | "ndcg100") =>
      pairedSummary(rows.flatMap((r) => (r.delta && r.a.metrics && r.b.metrics ? [[r.a.metrics[metric], r.b.metrics[metric]] as const] : [])));
    // Worst for a first; queries without a delta after, in the set's order.
    const order = (r: (typeof rows)[number]) => r.delta?.ndcg10 ?? Number.POSITIVE_INFINITY;
    const sorted = rows.map((r, j) => ({ r, j })).sort((x, y) => order(x.r) - order(y.r) || x.j - y.j);
    const bm25 = [...runs.values()][0];
    return c.json(
      {
        set,
        size: queries.length,
        sides: sides.map((s) => ({ kind: s.kind, round: s.round.round, label: sideLabel(s, bm25), ranker: sideRanker(s) })),
        summary: { f1: paired("f1"), ndcg10: paired("ndcg10"), ndcg100: paired("ndcg100") },
        queries: sorted.map(({ r }) => r),
      },
      200,
    );
  });
}
