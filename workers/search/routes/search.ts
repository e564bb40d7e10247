/** GET /v1/search?q=&limit=&offset= */
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { SearchQuery, SearchResponse, UserKeyHeader } from "../api/schemas.js";
import { queryKeywords } from "../keywords.js";
import { runSearch } from "../pipeline.js";
import { currentRound } from "./round-choice.js";

export const searchRoute = createRoute({
  method: "get",
  path: "/v1/search",
  operationId: "search",
  summary: "Search the serving round",
  description: "Generates the query's keywords (LLM, else the round's policy, else the raw query), retrieves I_ret(q) and ranks it by BM25.",
  tags: ["search"],
  request: { query: SearchQuery, headers: UserKeyHeader },
  responses: { 200: json("Ranked results.", SearchResponse), ...problems(...DATA_ROUTE) },
});

export function mountSearch(app: ApiApp) {
  app.openapi(searchRoute, async (c) => {
    const started = performance.now();
    const { q, limit, offset } = c.req.valid("query");
    const { catalog, store, keywordDeps } = c.var.services;
    const round = await currentRound(c);
    const generated = await queryKeywords(keywordDeps, round, q);
    const answer = await runSearch({ store, catalog }, round, q, generated, { limit, offset });
    return c.json(
      {
        query: q,
        round: round.round,
        keywords: generated.keywords,
        keywordSource: generated.source,
        total: answer.total,
        results: answer.results,
        tookMs: Math.round((performance.now() - started) * 100) / 100,
      },
      200,
    );
  });
}
