/**
 * The search API: routes declared once with @hono/zod-openapi (validation,
 * types and the OpenAPI document from the same schemas), mounted on one app
 * behind a fixed middleware order, errors through one onError.
 *
 *   security headers → CORS → JSON escaping → request guard (414, 431,
 *   malformed UTF-8, repeated parameters) → [/v1/*] rate limit → user key →
 *   services → route;  [/admin/*] admin rate limit → bearer token → route
 */
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import type { ApiApp } from "./api/app-type.js";
import { notFound, onError, Problem, problemResponse } from "./errors.js";
import { adminAuth } from "./middleware/admin-auth.js";
import { escapeJson } from "./middleware/escape-json.js";
import { adminRateLimit, rateLimit } from "./middleware/rate-limit.js";
import { requestGuard, strictPathParams } from "./middleware/request-guard.js";
import { security } from "./middleware/security.js";
import { type ServicesEnv, services } from "./middleware/services.js";
import { userKey } from "./middleware/user-key.js";
import { adminRoutes, mountAdmin } from "./routes/admin.js";
import { compareRoute, mountCompare } from "./routes/compare.js";
import { EXPERIMENT_ROUTES, mountExperimentPages } from "./routes/experiments-pages.js";
import { feedbackRoute, mountFeedback } from "./routes/feedback.js";
import { healthRoute, mountHealth } from "./routes/health.js";
import { itemRoundsRoute, itemRoute, mountItems } from "./routes/items.js";
import { judgmentRoute, mountJudgments } from "./routes/judgments.js";
import { mountOpenApi, openapiRoute } from "./routes/openapi.js";
import { comparePageRoute, itemPageRoute, mountPage, pageRoute, queriesPageRoute } from "./routes/page.js";
import { mountQuerySet, querySetRoute, querySetsRoute } from "./routes/query-set.js";
import { mountReady, readyRoute } from "./routes/ready.js";
import { mountRounds, roundsRoute } from "./routes/rounds.js";
import { mountSearch, searchRoute } from "./routes/search.js";
import { mountSuggest, suggestRoute } from "./routes/suggest.js";

/** Every operation, for the 405 table here and for the contract tests. */
export const ROUTES: readonly RouteConfig[] = [
  searchRoute,
  suggestRoute,
  itemRoute,
  roundsRoute,
  feedbackRoute,
  healthRoute,
  readyRoute,
  openapiRoute,
  pageRoute,
  comparePageRoute,
  itemPageRoute,
  compareRoute,
  itemRoundsRoute,
  queriesPageRoute,
  querySetRoute,
  querySetsRoute,
  judgmentRoute,
  ...Object.values(adminRoutes),
  ...EXPERIMENT_ROUTES,
];
const MOUNTS = [
  mountSearch,
  mountSuggest,
  mountCompare,
  mountItems,
  mountRounds,
  mountFeedback,
  mountHealth,
  mountReady,
  mountOpenApi,
  mountPage,
  mountAdmin,
  mountQuerySet,
  mountJudgments,
  mountExperimentPages,
];

/** OpenAPI's /v1/items/{id} → Hono's /v1/items/:id */
export const honoPath = (openApiPath: string) => openApiPath.replaceAll(/\{([^}]+)\}/g, ":$1");

/** The methods each path answers (HEAD is GET without a body; OPTIONS is CORS). */
export function allowedMethods(): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const r of ROUTES) {
    const methods = byPath.get(honoPath(r.path)) ?? [];
    methods.push(r.method.toUpperCase());
    if (r.method === "get") methods.push("HEAD");
    byPath.set(honoPath(r.path), methods);
  }
  for (const methods of byPath.values()) methods.push("OPTIONS");
  return byPath;
}

export function createApp(): ApiApp {
  const app: ApiApp = new OpenAPIHono<ServicesEnv>({
    // A request that fails its schema is a 400 problem naming the parameter at fault.
    defaultHook: (result) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const parameter = String(issue?.path[0] ?? "request");
      const type = result.target === "header" ? "invalidHeader" : result.target === "json" ? "invalidBody" : "invalidParameter";
      const field = result.target === "json" ? (issue?.path ?? []).join(".") || "body" : parameter;
      const detail = issue?.message && !/^Invalid input/.test(issue.message) ? `${field}: ${issue.message}` : `${field} is invalid`;
      if (result.target === "json") throw new Problem(type, detail, { parameter: field });
      throw new Problem(type, detail, { parameter });
    },
  });
  app.use("*", security);
  app.use("*", cors({ origin: "*", allowMethods: ["GET", "HEAD", "POST", "OPTIONS"], allowHeaders: ["content-type", "x-user-id", "x-cogr-user"] }));
  app.use("*", escapeJson);
  app.use("*", requestGuard);
  app.use("/v1/*", rateLimit);
  app.use("/v1/*", userKey);
  app.use("/", userKey);
  app.use("/v1/*", services);
  // The item page reads the catalogue (is the item there? else 404): limited and served like the API.
  app.use("/items/*", rateLimit);
  app.use("/items/*", services);
  // The experiment pages read the catalogue (is the experiment there? else 404): limited like the API.
  app.use("/experiments/*", rateLimit);
  app.use("/admin/*", adminRateLimit);
  app.use("/admin/*", adminAuth);
  for (const r of ROUTES) if (r.path.includes("{")) app.use(honoPath(r.path), strictPathParams(honoPath(r.path)));
  for (const mount of MOUNTS) mount(app);
  for (const [path, methods] of allowedMethods()) {
    const allow = methods.join(", ");
    app.all(path, (c) =>
      problemResponse(c, "methodNotAllowed", `${c.req.method.slice(0, 16)} is not allowed here; use ${allow}.`, { allow: methods }, { allow }),
    );
  }
  app.notFound(notFound);
  app.onError(onError);
  return app;
}
