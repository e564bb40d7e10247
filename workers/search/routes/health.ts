/** GET /healthz — liveness: answers without touching storage; reports the LLM circuit's state without failing. */
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../api/app-type.js";
import { EVERY_ROUTE, json, problems } from "../api/responses.js";
import { Health } from "../api/schemas.js";
import { llmHealth } from "../llm-breaker.js";

export const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "liveness",
  summary: "Liveness: the worker runs (storage is not touched)",
  tags: ["operations"],
  responses: { 200: json("The worker is alive.", Health), ...problems(...EVERY_ROUTE) },
});

export function mountHealth(app: ApiApp) {
  app.openapi(healthRoute, (c) => {
    // `npm start` passes a per-run token, so its start-up wait knows the answer is from its own server.
    if (c.env.DEV_INSTANCE) c.header("x-dev-instance", c.env.DEV_INSTANCE);
    return c.json({ status: "ok" as const, llm: llmHealth(c.env.LLM_BASE_URL || undefined) }, 200);
  });
}
