/**
 * GET /openapi.json — the OpenAPI 3.1 document, generated from the same zod
 * schemas that validate requests (api/schemas.ts); `servers` is the origin
 * the document was fetched from.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../api/app-type.js";
import { EVERY_ROUTE, json, problems } from "../api/responses.js";

export const openapiRoute = createRoute({
  method: "get",
  path: "/openapi.json",
  operationId: "openapi",
  summary: "This document",
  tags: ["operations"],
  responses: { 200: json("The OpenAPI 3.1 document.", z.record(z.string(), z.unknown()).openapi("OpenApiDocument")), ...problems(...EVERY_ROUTE) },
});

export const API_INFO = {
  title: "cogr-edge search API",
  version: "1.1.0",
  description:
    "Search over a learned keyword index (CoGR), served from the edge. Errors are RFC 9457 problems (application/problem+json). " +
    "Unknown paths answer 404; a known path with another method 405 with Allow. Only /admin needs credentials (a bearer token).",
  license: { name: "MIT", identifier: "MIT" },
} as const;

export function openApiDocument(app: ApiApp, origin: string) {
  if (!app.openAPIRegistry.definitions.some((d) => d.type === "component" && d.name === "adminToken")) {
    app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", { type: "http", scheme: "bearer", description: "ADMIN_TOKEN (a wrangler secret)." });
  }
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: API_INFO,
    servers: [{ url: origin, description: "This deployment" }],
    // Public by default (an explicit empty requirement); the admin routes state theirs.
    security: [],
    tags: [
      { name: "search", description: "The search API over the serving round." },
      { name: "operations", description: "Liveness, readiness and this document." },
      { name: "pages", description: "HTML pages." },
      { name: "admin", description: "Experiments: start, watch, ramp, promote, roll back (bearer token)." },
      { name: "experiments", description: "The experiment dashboards' figures: an ended experiment's for anyone, a live one's with the admin token." },
    ],
  });
}

export function mountOpenApi(app: ApiApp) {
  app.openapi(openapiRoute, (c) => c.json(openApiDocument(app, new URL(c.req.url).origin) as unknown as Record<string, unknown>, 200));
}
