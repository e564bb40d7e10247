/** GET /v1/rounds — published rounds and their manifests' public fields. */
import { createRoute } from "@hono/zod-openapi";
import type { ServingManifest } from "../../../core/contract.js";
import { KEYWORD_RANKER, rankerName } from "../../../core/ranker.js";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { RoundsResponse } from "../api/schemas.js";

export const roundsRoute = createRoute({
  method: "get",
  path: "/v1/rounds",
  operationId: "listRounds",
  summary: "Published rounds",
  tags: ["search"],
  responses: { 200: json("Published rounds, newest first (empty before the first publish).", RoundsResponse), ...problems(...DATA_ROUTE) },
});

export function mountRounds(app: ApiApp) {
  app.openapi(roundsRoute, async (c) => {
    const published = await c.var.services.catalog.publishedRounds();
    return c.json({ rounds: published.map(publicManifest) }, 200);
  });
}

/** The fields GET /v1/rounds may show. */
function publicManifest(m: ServingManifest) {
  return {
    round: m.round,
    version: m.version,
    createdAt: m.createdAt,
    publishedAt: m.publishedAt,
    items: m.counts.items,
    keywords: m.counts.keywords,
    shards: m.shardCount,
    queryGenerator: m.queryGenerator,
    ranker: rankerName(m.ranker ?? KEYWORD_RANKER),
    metrics: m.metrics,
    checksums: m.checksums,
  };
}
