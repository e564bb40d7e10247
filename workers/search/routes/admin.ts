/**
 * The admin API under /admin (bearer token; middleware/admin-auth.ts):
 * list, read (with live statistics), start, ramp, promote, roll back and
 * resume (after a guardrail pause) experiments; which change applies in
 * which state is experiments/lifecycle.ts. Every change is one atomic D1
 * batch with its change record, then the KV mirror is rewritten
 * (workers/experiments/store.ts).
 */
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import { EndBody, ExperimentDetail, ExperimentList, ExperimentOne, IdParams, RampBody, ResumeBody, StartExperimentBody } from "../api/admin-schemas.js";
import type { ApiApp } from "../api/app-type.js";
import { EVERY_ROUTE, json, type ProblemStatus, problems } from "../api/responses.js";
import { Catalog } from "../catalog.js";
import { Problem } from "../errors.js";
import type { Experiment } from "../experiments/config.js";
import { type ChangeAction, changeRefusal, resumedExperiment } from "../experiments/lifecycle.js";
import { buildReport } from "../experiments/report.js";
import { ConflictError, ExperimentStore } from "../experiments/store.js";
import { experimentFrom, InvalidExperiment, rampedExperiment } from "../experiments/validate.js";
import type { ServicesEnv } from "../middleware/services.js";
import { fromD1, storageProblem } from "../storage.js";

const ADMIN: ProblemStatus[] = [...EVERY_ROUTE, 401, 403, 429, 503];
const security = [{ adminToken: [] }];
const body = <T>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });

export const adminRoutes = {
  list: createRoute({
    method: "get",
    path: "/admin/experiments",
    operationId: "listExperiments",
    summary: "All experiments, newest first",
    tags: ["admin"],
    security,
    responses: { 200: json("Experiments.", ExperimentList), ...problems(...ADMIN) },
  }),
  get: createRoute({
    method: "get",
    path: "/admin/experiments/{id}",
    operationId: "getExperiment",
    summary: "One experiment, its change history and its live statistics",
    tags: ["admin"],
    security,
    request: { params: IdParams },
    responses: { 200: json("The experiment.", ExperimentDetail), ...problems(...ADMIN, 404) },
  }),
  start: createRoute({
    method: "post",
    path: "/admin/experiments",
    operationId: "startExperiment",
    summary: "Start an experiment (one runs at a time)",
    tags: ["admin"],
    security,
    request: body(StartExperimentBody),
    responses: { 201: json("Started.", ExperimentOne), ...problems(...ADMIN, 409) },
  }),
  ramp: createRoute({
    method: "patch",
    path: "/admin/experiments/{id}",
    operationId: "rampExperiment",
    summary: "Ramp an A/B experiment's weights (treatments only grow, from control)",
    tags: ["admin"],
    security,
    request: { params: IdParams, ...body(RampBody) },
    responses: { 200: json("Ramped.", ExperimentOne), ...problems(...ADMIN, 404, 409) },
  }),
  promote: createRoute({
    method: "post",
    path: "/admin/experiments/{id}/promote",
    operationId: "promoteExperiment",
    summary: "The winning round serves 100 %; the experiment (running or paused) ends",
    tags: ["admin"],
    security,
    request: { params: IdParams, ...body(EndBody) },
    responses: { 200: json("Promoted.", ExperimentOne), ...problems(...ADMIN, 404, 409) },
  }),
  rollback: createRoute({
    method: "post",
    path: "/admin/experiments/{id}/rollback",
    operationId: "rollbackExperiment",
    summary: "Control serves 100 %, at once; the experiment (running or paused) ends",
    tags: ["admin"],
    security,
    request: { params: IdParams, ...body(EndBody) },
    responses: { 200: json("Rolled back.", ExperimentOne), ...problems(...ADMIN, 404, 409) },
  }),
  resume: createRoute({
    method: "post",
    path: "/admin/experiments/{id}/resume",
    operationId: "resumeExperiment",
    summary: "Resume an experiment the guardrail paused (by default leaving its suspect network prefixes out of the statistics)",
    tags: ["admin"],
    security,
    request: { params: IdParams, ...body(ResumeBody) },
    responses: { 200: json("Running again.", ExperimentOne), ...problems(...ADMIN, 404, 409) },
  }),
} satisfies Record<string, RouteConfig>;

const storeOf = (c: Context<ServicesEnv>) => new ExperimentStore(c.env.CATALOG, c.env.CACHE);

async function existing(store: ExperimentStore, id: string): Promise<Experiment> {
  const e = await fromD1("reading an experiment", () => store.get(id));
  if (!e) throw new Problem("notFound", `No experiment ${JSON.stringify(id)}`, { parameter: "id" });
  return e;
}

/** A 409 unless `action` applies to the experiment in its state (lifecycle.ts). */
function allowed(e: Experiment, action: Exclude<ChangeAction, "start">): void {
  const refusal = changeRefusal(e, action);
  if (refusal) throw new Problem("conflict", refusal);
}

/** Store errors as problems: a conflict is a 409, a bad field a 400 naming it, D1 failing a 503. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ConflictError) throw new Problem("conflict", e.message);
    if (e instanceof InvalidExperiment) throw new Problem("invalidBody", e.message, { parameter: e.field });
    throw storageProblem("changing an experiment", e);
  }
}

/** The live report; a live experiment's running minima of the sequential p-values are saved (also read by the dashboards, routes/experiments-pages.ts). */
export async function report(c: Context<ServicesEnv>, store: ExperimentStore, e: Experiment) {
  const events = c.env.EVENTS;
  if (!events) throw new Problem("unavailable", "No EVENTS binding: statistics need the events database.");
  const previous = await fromD1("reading sequential state", () => store.sequentialState(e.id));
  const built = await fromD1("building the report", () => buildReport(events, e, previous));
  if (e.state === "running" || e.state === "paused") await fromD1("saving sequential state", () => store.saveSequentialState(e.id, built.sequential));
  return built.report;
}

async function end(c: Context<ServicesEnv>, id: string, action: "promote" | "rollback", round: number | undefined, reason: string | undefined) {
  const store = storeOf(c);
  const e = await existing(store, id);
  allowed(e, action);
  let winner = e.control;
  if (action === "promote") {
    const chosen = round ?? (await report(c, store, e)).winner ?? undefined;
    if (chosen === undefined) throw new Problem("conflict", "no winner yet: the report has no verdict; name the round to promote ({round})");
    if (!e.arms.some((a) => a.round === chosen)) throw new Problem("invalidBody", `round ${chosen} is not an arm of ${e.id}`, { parameter: "round" });
    winner = chosen;
  }
  const { suspectPrefixes: _suspects, ...ended } = e; // an ended experiment has nothing to resume
  const after: Experiment = { ...ended, state: action === "promote" ? "promoted" : "rolled_back", winner, updatedAt: new Date().toISOString() };
  await guarded(() => storeOf(c).change(e, after, action, "admin", reason ?? `${action} by admin`));
  return after;
}

export function mountAdmin(app: ApiApp) {
  app.openapi(adminRoutes.list, async (c) => c.json({ experiments: await fromD1("listing experiments", () => storeOf(c).list()) }, 200));

  app.openapi(adminRoutes.get, async (c) => {
    const store = storeOf(c);
    const e = await existing(store, c.req.valid("param").id);
    const changes = await fromD1("reading changes", () => store.changes(e.id));
    return c.json({ experiment: e, changes, report: await report(c, store, e) }, 200);
  });

  app.openapi(adminRoutes.start, async (c) => {
    const req = c.req.valid("json");
    const published = new Set((await new Catalog(c.env.CATALOG, 0).publishedRounds()).map((m) => m.round));
    const e = await guarded(async () => {
      const made = experimentFrom(req, published, new Date(), crypto.randomUUID());
      await storeOf(c).start(made, "admin", `started by admin: ${made.design} ${made.arms.map((a) => `r${a.round}=${a.weight}`).join(" ")}`);
      return made;
    });
    return c.json({ experiment: e }, 201);
  });

  app.openapi(adminRoutes.ramp, async (c) => {
    const store = storeOf(c);
    const e = await existing(store, c.req.valid("param").id);
    allowed(e, "ramp");
    const after = await guarded(async () => {
      const next = rampedExperiment(e, c.req.valid("json").arms, new Date());
      await store.change(e, next, "ramp", "admin", `ramped to ${next.arms.map((a) => `r${a.round}=${a.weight}`).join(" ")}`);
      return next;
    });
    return c.json({ experiment: after }, 200);
  });

  app.openapi(adminRoutes.promote, async (c) => {
    const { round, reason } = c.req.valid("json");
    return c.json({ experiment: await end(c, c.req.valid("param").id, "promote", round, reason) }, 200);
  });

  app.openapi(adminRoutes.rollback, async (c) => {
    const { reason } = c.req.valid("json");
    return c.json({ experiment: await end(c, c.req.valid("param").id, "rollback", undefined, reason) }, 200);
  });

  app.openapi(adminRoutes.resume, async (c) => {
    const store = storeOf(c);
    const e = await existing(store, c.req.valid("param").id);
    allowed(e, "resume");
    const { exclude = true, reason } = c.req.valid("json");
    const after = await guarded(async () => {
      const next = resumedExperiment(e, exclude, new Date());
      const left = exclude ? `, leaving ${(e.suspectPrefixes ?? []).length} suspect network prefixes out of the statistics` : ", counting every network";
      await store.change(e, next, "resume", "admin", `${reason ?? "resumed by admin"}${left}`);
      return next;
    });
    return c.json({ experiment: after }, 200);
  });
}
