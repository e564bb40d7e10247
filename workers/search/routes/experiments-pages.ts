/**
 * The experiment dashboards: GET /experiments and /experiments/:id (static
 * pages that read the JSON below), and GET /v1/experiments,
 * /v1/experiments/:id, /v1/experiments/:id/series and
 * /v1/experiments/:id/charts (the series drawn as SVG by Vega-Lite, in
 * experiments/chart-render.ts, loaded only here and only then). Who sees what is
 * experiments/disclosure.ts: an ended experiment is public; a live one's
 * arms, figures and history need the admin token (a wrong or missing token
 * reads the withheld view, never an error, as the search API's admin view).
 * The pages' admin buttons call the admin API (/admin/experiments/…) with
 * the token the user typed.
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { IdParams } from "../api/admin-schemas.js";
import type { ApiApp } from "../api/app-type.js";
import { ChartsQuery, ExperimentChartsSchema, ExperimentDashboard, ExperimentSeriesSchema, ExperimentSummaries } from "../api/experiment-view-schemas.js";
import { DATA_ROUTE, EVERY_ROUTE, json, problems } from "../api/responses.js";
import { PageHtml } from "../api/schemas.js";
import { Problem } from "../errors.js";
import { chartPlan } from "../experiments/chart-specs.js";
import type { Experiment } from "../experiments/config.js";
import { isDisclosed, summaryOf } from "../experiments/disclosure.js";
import { experimentSeries, purchasesPerArm, type Series } from "../experiments/series.js";
import { ENDED_STATES, ExperimentStore } from "../experiments/store.js";
import { isAdminView } from "../middleware/admin-view.js";
import type { ServicesEnv } from "../middleware/services.js";
import { EXPERIMENT_PAGE } from "../pages/experiment.js";
import { EXPERIMENTS_PAGE } from "../pages/experiments.js";
import { withNonce } from "../pages/shell.js";
import { fromD1 } from "../storage.js";
import { report } from "./admin.js";

const notFound = { 404: { ...problems(404)[404], description: "No such experiment." } };
const html = (description: string) => ({ description, content: { "text/html": { schema: PageHtml } } });

export const experimentsPageRoute = createRoute({
  method: "get",
  path: "/experiments",
  operationId: "experimentsPage",
  summary: "The experiments page (HTML): the running experiment and past ones",
  tags: ["pages"],
  responses: { 200: html("The experiments page; it reads /v1/experiments."), ...problems(...EVERY_ROUTE) },
});

export const experimentPageRoute = createRoute({
  method: "get",
  path: "/experiments/{id}",
  operationId: "experimentPage",
  summary: "One experiment's dashboard (HTML): arms, SRM, guardrail history, plots, admin actions",
  tags: ["pages"],
  request: { params: IdParams },
  responses: {
    // A page reads no index (no 500 for a misconfigured shard count): only the catalogue, limited like the API.
    ...problems(...EVERY_ROUTE, 429, 503),
    200: html("The dashboard; it reads /v1/experiments/{id} and /v1/experiments/{id}/charts."),
    404: html("No such experiment: the page with a 404 status."),
  },
});

/** Public, the admin token optional: with it a live experiment is disclosed (experiments/disclosure.ts). */
const optionalToken: Array<Record<string, string[]>> = [{}, { adminToken: [] }];
const ADMIN_NOTE = "A live (running or paused) experiment's arms, figures and history need `Authorization: Bearer <ADMIN_TOKEN>`; an ended one is public.";

export const experimentsListRoute = createRoute({
  method: "get",
  path: "/v1/experiments",
  operationId: "listExperimentDashboards",
  summary: "Every experiment, newest first, as the dashboards show it",
  description: ADMIN_NOTE,
  tags: ["experiments"],
  security: optionalToken,
  responses: { 200: json("The experiments.", ExperimentSummaries), ...problems(...DATA_ROUTE) },
});

export const experimentDashboardRoute = createRoute({
  method: "get",
  path: "/v1/experiments/{id}",
  operationId: "getExperimentDashboard",
  summary: "One experiment's dashboard: arms, report (SRM, CTR, verdict), purchases, change history",
  description: ADMIN_NOTE,
  tags: ["experiments"],
  security: optionalToken,
  request: { params: IdParams },
  responses: { 200: json("The dashboard's figures.", ExperimentDashboard), ...problems(...DATA_ROUTE), ...notFound },
});

export const experimentSeriesRoute = createRoute({
  method: "get",
  path: "/v1/experiments/{id}/series",
  operationId: "getExperimentSeries",
  summary: "One experiment over time: the effect's always-valid confidence sequence at a few looks, and daily searches per arm",
  description: ADMIN_NOTE,
  tags: ["experiments"],
  security: optionalToken,
  request: { params: IdParams },
  responses: { 200: json("The series.", ExperimentSeriesSchema), ...problems(...DATA_ROUTE), ...notFound },
});

export const experimentChartsRoute = createRoute({
  method: "get",
  path: "/v1/experiments/{id}/charts",
  operationId: "getExperimentCharts",
  summary: "One experiment's plots over time as SVG (Vega-Lite): the effect's confidence sequence, the interleaving win share, daily searches per arm",
  description: `${ADMIN_NOTE} Each chart comes with its values as a table (columns and rows).`,
  tags: ["experiments"],
  security: optionalToken,
  request: { params: IdParams, query: ChartsQuery },
  responses: { 200: json("The charts.", ExperimentChartsSchema), ...problems(...DATA_ROUTE), ...notFound },
});

export const EXPERIMENT_ROUTES = [
  experimentsPageRoute,
  experimentPageRoute,
  experimentsListRoute,
  experimentDashboardRoute,
  experimentSeriesRoute,
  experimentChartsRoute,
] as const;

const storeOf = (c: Context<ServicesEnv>) => new ExperimentStore(c.env.CATALOG, c.env.CACHE);
const adminView = (c: Context<ServicesEnv>) => isAdminView(c.env.ADMIN_TOKEN, c.req.header("authorization"));

async function existing(c: Context<ServicesEnv>, id: string): Promise<Experiment> {
  const e = await fromD1("reading an experiment", () => storeOf(c).get(id));
  if (!e) throw new Problem("notFound", `No experiment ${JSON.stringify(id)}`, { parameter: "id" });
  return e;
}

/**
 * An ended experiment's dashboard and series are public and hardly change
 * (only feedback arriving late on its searches), yet each costs the report's
 * queries over all its events (the series up to 12 times): they are cached
 * in KV per (experiment, last change) for an hour, so anyone reloading a
 * past experiment's page costs D1 nothing. KV is a cache: a failed read or
 * write is a miss.
 */
export const DASHBOARD_CACHE = { keyPrefix: "dash:v1:", ttlS: 3600 } as const;

async function endedCached<T>(c: Context<ServicesEnv>, e: Experiment, kind: "dashboard" | "series", compute: () => Promise<T>): Promise<T> {
  if (!ENDED_STATES.has(e.state)) return compute();
  const key = `${DASHBOARD_CACHE.keyPrefix}${kind}:${e.id}:${e.updatedAt}`;
  const hit = await c.env.CACHE.get<T>(key, "json").catch(() => null);
  if (hit !== null) return hit;
  const value = await compute();
  c.var.waitUntil(c.env.CACHE.put(key, JSON.stringify(value), { expirationTtl: DASHBOARD_CACHE.ttlS }).catch(() => undefined));
  return value;
}

/** The series the /series and /charts routes read (cached once ended). */
const seriesOf = (c: Context<ServicesEnv>, e: Experiment): Promise<Series> => {
  const db = events(c);
  return endedCached(c, e, "series", () => fromD1("reading the series", () => experimentSeries(db, e)));
};

function events(c: Context<ServicesEnv>): D1Database {
  const db = c.env.EVENTS;
  if (!db) throw new Problem("unavailable", "No EVENTS binding: the dashboards need the events database.");
  return db;
}

export function mountExperimentPages(app: ApiApp) {
  app.openapi(experimentsPageRoute, (c) => c.html(withNonce(EXPERIMENTS_PAGE, c.get("secureHeadersNonce")), 200));

  app.openapi(experimentPageRoute, async (c) => {
    const found = await fromD1("reading an experiment", () => storeOf(c).get(c.req.valid("param").id));
    return c.html(withNonce(EXPERIMENT_PAGE, c.get("secureHeadersNonce")), found ? 200 : 404);
  });

  app.openapi(experimentsListRoute, async (c) => {
    const admin = await adminView(c);
    const all = await fromD1("listing experiments", () => storeOf(c).list());
    return c.json({ experiments: all.map((e) => summaryOf(e, admin)) }, 200);
  });

  app.openapi(experimentDashboardRoute, async (c) => {
    const admin = await adminView(c);
    const e = await existing(c, c.req.valid("param").id);
    if (!isDisclosed(e, admin)) return c.json({ experiment: summaryOf(e, admin), changes: null, report: null, purchases: null }, 200);
    const store = storeOf(c);
    const db = events(c);
    const body = await endedCached(c, e, "dashboard", async () => {
      const [changes, built, purchases] = await Promise.all([
        fromD1("reading changes", () => store.changes(e.id)),
        report(c, store, e),
        fromD1("counting purchases", () => purchasesPerArm(db, e)),
      ]);
      return {
        experiment: summaryOf(e, admin),
        changes: changes.map((ch) => ({
          at: ch.at,
          actor: ch.actor,
          action: ch.action,
          reason: ch.reason,
          state: ch.after.state,
          arms: ch.after.arms.map((a) => ({ round: a.round, weight: a.weight })),
        })),
        report: built,
        purchases,
      };
    });
    return c.json(body, 200);
  });

  app.openapi(experimentSeriesRoute, async (c) => {
    const admin = await adminView(c);
    const e = await existing(c, c.req.valid("param").id);
    if (!isDisclosed(e, admin)) return c.json({ disclosed: false, series: null }, 200);
    return c.json({ disclosed: true, series: await seriesOf(c, e) }, 200);
  });

  app.openapi(experimentChartsRoute, async (c) => {
    const admin = await adminView(c);
    const e = await existing(c, c.req.valid("param").id);
    if (!isDisclosed(e, admin)) return c.json({ disclosed: false, charts: null, notes: null }, 200);
    const plan = chartPlan(await seriesOf(c, e), c.req.valid("query").width);
    // Vega (about 800 KB of script) is evaluated by the first chart request an isolate serves, never at its start.
    const { renderCharts } = await import("../experiments/chart-render.js");
    return c.json({ disclosed: true, charts: await renderCharts(plan.charts), notes: plan.notes }, 200);
  });
}
