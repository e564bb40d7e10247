/**
 * GET /v1/compare?q=&a=&b=&limit= — the relevance workbench's data: one
 * query through two sides, each a published round or `bm25` (the
 * evaluation's BM25 over the item text, workbench/sides.ts), every round
 * result explained and marked when the other side shows it too. The rows are
 * aligned by item with each one's rank change, and the two rankings' overlap
 * at 10 and 100 is given as Jaccard and rank-biased overlap (core/overlap.ts).
 * With labels (file labels and judgments, workbench/store.ts), results carry
 * their label and sides P/R/F1, NDCG@10/@100 and their unjudged top 10.
 */
import { createRoute } from "@hono/zod-openapi";
import { normalizeKeyword } from "../../../core/normalize.js";
import { jaccardAt, rankChange, rboAt } from "../../../core/overlap.js";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { CompareQuery, CompareResponse } from "../api/workbench-schemas.js";
import { pickSides, rankedIds, runSide, type SideRun, sideLabel, sideMetrics, sideRanker, unjudgedTop10 } from "../workbench/sides.js";
import { WorkbenchStore } from "../workbench/store.js";

export const compareRoute = createRoute({
  method: "get",
  path: "/v1/compare",
  operationId: "compare",
  summary: "One query through two rounds, or a round and the evaluation's BM25, side by side",
  description:
    "Each side is a published round (`a`, `b`: round numbers; default the newest two) or `bm25`: the evaluation's BM25 over the item text with the cutoff tuned on the training queries, " +
    "as `npm run labels` / `npm run query-set` stored it for the query. Round results are explained (as with explain=1 on /v1/search); rows are aligned by item with rank changes, " +
    "and the rankings' overlap at 10 and 100 is given. With labels (file labels, judgments), results carry their label and sides P/R/F1 and NDCG.",
  tags: ["workbench"],
  request: { query: CompareQuery },
  responses: { 200: json("Both sides.", CompareResponse), ...problems(...DATA_ROUTE, 404) },
});

export function mountCompare(app: ApiApp) {
  app.openapi(compareRoute, async (c) => {
    const { q, a, b, limit } = c.req.valid("query");
    const [sa, sb] = pickSides(await c.var.services.catalog.publishedRounds(), a, b);
    const key = normalizeKeyword(q);
    const workbench = new WorkbenchStore(c.env.CATALOG, c.env.EVENTS);
    const [labelsBy, runs] = await Promise.all([workbench.labelsFor([key]), workbench.bm25RunsFor([key])]);
    const labels = labelsBy.get(key) ?? new Map();
    const bm25 = runs.get(key);
    const [ra, rb] = await Promise.all([runSide(c, sa, q, bm25, true), runSide(c, sb, q, bm25, true)]);
    const [ia, ib] = [rankedIds(ra, bm25), rankedIds(rb, bm25)];
    const describe = async (run: SideRun, other: SideRun, ranked: string[]) => {
      const shown = new Set(other.results.slice(0, limit).map((r) => r.id));
      return {
        kind: run.side.kind,
        round: run.side.round.round,
        label: sideLabel(run.side, bm25),
        ranker: sideRanker(run.side),
        available: run.retrieved !== null,
        keywords: run.generated.keywords,
        keywordSource: run.generated.source,
        total: run.retrieved ?? 0,
        metrics: await sideMetrics(c, run, labels, ranked),
        unjudgedTop10: unjudgedTop10(ranked, labels),
        results: run.results.slice(0, limit).map((r, j) => ({
          rank: j + 1,
          ...r,
          inOther: shown.has(r.id),
          ...(labels.size > 0 ? { label: labels.get(r.id) ?? null } : {}),
        })),
      };
    };
    return c.json(
      {
        query: q,
        labelled: labels.size > 0,
        sides: [await describe(ra, rb, ia), await describe(rb, ra, ib)],
        overlap: { jaccard10: jaccardAt(ia, ib, 10), jaccard100: jaccardAt(ia, ib, 100), rbo10: rboAt(ia, ib, 10), rbo100: rboAt(ia, ib, 100) },
        aligned: align(
          ra.results.slice(0, limit).map((r) => r.id),
          rb.results.slice(0, limit).map((r) => r.id),
          ia,
          ib,
        ),
      },
      200,
    );
  });
}

/**
 * Every shown item once: the left side's in its order, then the right side's the left does not show. Ranks
 * are read in each side's top 100, so an item shown on one side only still has its rank on the other.
 */
function align(left: readonly string[], right: readonly string[], leftTop: readonly string[], rightTop: readonly string[]) {
  const rankIn = (list: readonly string[]) => new Map(list.map((id, j) => [id, j + 1]));
  const [ra, rb] = [rankIn(leftTop), rankIn(rightTop)];
  const shownLeft = new Set(left);
  const ids = [...left, ...right.filter((id) => !shownLeft.has(id))];
  return ids.map((id) => {
    const ranks: [number | null, number | null] = [ra.get(id) ?? null, rb.get(id) ?? null];
    return { id, ranks, change: rankChange(ranks[0], ranks[1]) };
  });
}
