/**
 * POST /v1/judgments {query, itemId, label, rater?}: a judge rates a result
 * from the compare page. Judges send `Authorization: Bearer <JUDGE_TOKEN>`
 * (or the ADMIN_TOKEN), compared in constant time (core/contract.ts
 * tokensEqual); with neither configured judging is off (503) and the page
 * stays read-only. The judgment is stored per (normalised query, item,
 * rater); it stands against a file label when it is newer (workbench/store.ts).
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ADMIN_TOKEN_LIMITS, tokensEqual } from "../../../core/contract.js";
import { normalizeKeyword } from "../../../core/normalize.js";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { JudgmentBody, JudgmentResponse } from "../api/workbench-schemas.js";
import type { Env } from "../bindings.js";
import { Problem } from "../errors.js";
import type { ServicesEnv } from "../middleware/services.js";
import { WorkbenchStore } from "../workbench/store.js";

export const judgmentRoute = createRoute({
  method: "post",
  path: "/v1/judgments",
  operationId: "judge",
  summary: "Rate a result for a query: Exact, Partial or Irrelevant",
  description:
    "Needs `Authorization: Bearer <JUDGE_TOKEN>` (or the ADMIN_TOKEN). The item must be in the newest published round. A rater's later judgment replaces its earlier one; " +
    "a judgment newer than the file labels' load wins over them (GET /v1/compare, /v1/query-set, `npm run labels:export`).",
  tags: ["workbench"],
  request: { body: { required: true, content: { "application/json": { schema: JudgmentBody } } } },
  responses: { 201: json("Stored.", JudgmentResponse), ...problems(...DATA_ROUTE, 401, 403, 404) },
});

/** Which token the request carries: "judge" or "admin"; a problem when none is configured, missing or wrong. */
export async function judgeRole(env: Env, header: string | undefined): Promise<"judge" | "admin"> {
  const usable = (t: string | undefined): t is string => t !== undefined && t.length >= ADMIN_TOKEN_LIMITS.minChars;
  const judge = usable(env.JUDGE_TOKEN) ? env.JUDGE_TOKEN : null;
  const admin = usable(env.ADMIN_TOKEN) ? env.ADMIN_TOKEN : null;
  if (!judge && !admin)
    throw new Problem(
      "adminDisabled",
      `Judging is off: set JUDGE_TOKEN (or ADMIN_TOKEN), at least ${ADMIN_TOKEN_LIMITS.minChars} characters (wrangler secret put JUDGE_TOKEN; .dev.vars locally).`,
    );
  const match = /^Bearer\s+(.+)$/i.exec(header ?? "");
  if (!match) throw new Problem("unauthorized", "Send Authorization: Bearer <JUDGE_TOKEN>.", {}, { "www-authenticate": 'Bearer realm="cogr-judge"' });
  const given = match[1] as string;
  // Both comparisons always run, so the time taken does not say which token was close.
  const [isJudge, isAdmin] = await Promise.all([tokensEqual(given, judge ?? ""), tokensEqual(given, admin ?? "")]);
  if (judge && isJudge) return "judge";
  if (admin && isAdmin) return "admin";
  throw new Problem("forbidden", "That judge token is not valid.");
}

async function knownItem(c: Context<ServicesEnv>, itemId: string): Promise<void> {
  const { catalog } = c.var.services;
  const newest = (await catalog.publishedRounds())[0];
  if (!newest) throw new Problem("noRound", "No round is published yet: run `npm run publish -- --round N`.");
  const found = await catalog.ordinalsOf(newest, [itemId]);
  if (!found.has(itemId)) throw new Problem("notFound", `No item ${JSON.stringify(itemId.slice(0, 80))} in round ${newest.round}.`, { parameter: "itemId" });
}

export function mountJudgments(app: ApiApp) {
  app.openapi(judgmentRoute, async (c) => {
    const role = await judgeRole(c.env, c.req.header("authorization"));
    const body = c.req.valid("json");
    const query = normalizeKeyword(body.query);
    if (query === "") throw new Problem("invalidBody", "query: has no words once normalised", { parameter: "query" });
    await knownItem(c, body.itemId);
    const judgment = { query, itemId: body.itemId, label: body.label, rater: body.rater ?? role, judgedAt: new Date().toISOString() };
    await new WorkbenchStore(c.env.CATALOG, c.env.EVENTS).judge(judgment);
    return c.json(judgment, 201);
  });
}
