/** GET /v1/rounds — published rounds and their manifests' public fields. */
import { createRoute } from "@hono/zod-openapi";
import { publicManifest } from "../../publish/manifest.js";
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
