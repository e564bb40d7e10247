/**
 * GET /v1/search?q=&limit=&offset= — over the round this user's arm serves,
 * or over two rounds merged by team-draft interleaving. Every search is an
 * event (after the response); its requestId is what feedback refers to, and
 * the event holds the arm and each result's team, so feedback credits them
 * without the client knowing either. While an experiment runs, the arm, the
 * round(s) and the teams are the admin view (middleware/admin-view.ts): a
 * client that knew its arm could steer the experiment (farm clicks into an
 * arm, send zero-result queries to the treatment only).
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ServingManifest } from "../../../core/contract.js";
import { normalizeKeyword } from "../../../core/normalize.js";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { SearchQuery, SearchResponse, UserKeyHeaders } from "../api/schemas.js";
import { recordSearch, type SearchEvent } from "../experiments/events.js";
import { soleContributions, teamDraft } from "../experiments/interleave.js";
import { hashedNetwork } from "../experiments/network.js";
import type { Routed } from "../experiments/routing.js";
import { hashUserKey } from "../experiments/user-hash.js";
import { queryKeywords } from "../keywords.js";
import { isAdminView } from "../middleware/admin-view.js";
import type { ServicesEnv } from "../middleware/services.js";
import { type Narrowing, narrowingOf } from "../narrowing.js";
import { runSearch, type SearchResult } from "../pipeline.js";
import { routeRequest } from "./round-choice.js";

export const searchRoute = createRoute({
  method: "get",
  path: "/v1/search",
  operationId: "search",
  summary: "Search the serving round",
  description:
    "Generates the query's keywords (LLM, else the round's policy, else the raw query), retrieves I_ret(q) and ranks it by the round's ranker (BM25 over the keyword bag, the item text, or a blend). " +
    "Pages past |I_ret(q)| continue with the related tail: items sharing a word of the keywords but no keyword, ranked the same way, each marked `related`. " +
    "Under an experiment, the user's arm decides the round (A/B), or two rounds' results are merged by team-draft interleaving. " +
    "Responses carry X-Request-Id. Which arm, round(s) and team answered is the admin view: with `Authorization: Bearer <ADMIN_TOKEN>` the response carries X-CoGR-Round, X-CoGR-Experiment and X-CoGR-Arm, and the body round, rounds, experiment, arm, totals and each result's team; " +
    "without it, while an experiment runs, the body leaves those fields out (outside an experiment it has round, rounds, and experiment and arm null).",
  tags: ["search"],
  request: { query: SearchQuery, headers: UserKeyHeaders },
  responses: { 200: json("Ranked results.", SearchResponse), ...problems(...DATA_ROUTE) },
});

type Page = { limit: number; offset: number; explain: boolean; verbatim: boolean; narrowing: Narrowing };

async function searchRound(c: Context<ServicesEnv>, round: ServingManifest, q: string, page: Page) {
  const { catalog, store, keywordDeps, blockTerms } = c.var.services;
  const generated = await queryKeywords(keywordDeps, round, q, page.verbatim);
  const answer = await runSearch(
    { store, catalog, kv: c.env.CACHE, blockTerms },
    round,
    q,
    generated,
    { limit: page.limit, offset: page.offset },
    { explain: page.explain, narrowing: page.narrowing },
  );
  return { generated, answer, fallback: generated.source !== (round.queryGenerator.kind === "llm" ? "llm" : "policy") };
}

async function answer(c: Context<ServicesEnv>, routed: Routed, q: string, page: Page) {
  if (routed.kind === "single") {
    const { generated, answer, fallback } = await searchRound(c, routed.round, q, page);
    return {
      rounds: [routed.round.round],
      keywords: generated.keywords,
      keywordSource: generated.source,
      corrected: generated.corrected,
      fallback,
      total: answer.total,
      related: answer.related,
      totals: null,
      results: answer.results as Array<SearchResult & { team?: "control" | "treatment" }>,
      facets: answer.facets,
      credited: null,
    };
  }
  // Both rounds' first offset + limit results, merged; the page is a slice of the merged list.
  const depth = { limit: page.offset + page.limit, offset: 0, explain: page.explain, verbatim: page.verbatim, narrowing: page.narrowing };
  const [control, treatment] = await Promise.all([searchRound(c, routed.control, q, depth), searchRound(c, routed.treatment, q, depth)]);
  const merged = teamDraft(control.answer.results, treatment.answer.results, depth.limit, routed.seedFor(q), (r) => r.id);
  const sole = soleContributions(control.answer.results, treatment.answer.results, (r) => r.id);
  const shown = merged.slice(page.offset);
  return {
    rounds: [routed.control.round, routed.treatment.round],
    keywords: control.generated.keywords,
    keywordSource: control.generated.source,
    corrected: control.generated.corrected,
    fallback: control.fallback || treatment.fallback,
    // The merged list holds at least the larger I_ret; each round's own |I_ret| is in totals.
    total: Math.max(control.answer.total, treatment.answer.total),
    related: control.answer.related === null || treatment.answer.related === null ? null : Math.max(control.answer.related, treatment.answer.related),
    totals: { control: control.answer.total, treatment: treatment.answer.total },
    results: shown.map((d) => ({ ...d.item, team: d.team })),
    // Filters narrow both rounds; the facet counts are the control round's (its I_ret(q) under the filters).
    facets: control.answer.facets,
    // Per result: only one round ranked it (interleave.ts, soleContributions): the clicks the preference credits.
    credited: shown.map((d) => sole(d.item)),
  };
}

export function mountSearch(app: ApiApp) {
  app.openapi(searchRoute, async (c) => {
    const started = performance.now();
    const valid = c.req.valid("query");
    const { q, limit, offset, explain, verbatim } = valid;
    const narrowing = narrowingOf(c.req.url, valid);
    const requestId = crypto.randomUUID();
    c.header("x-request-id", requestId);
    const routed = await routeRequest(c);
    const base = routed.kind === "single" ? routed.round.round : routed.control.round;
    const net = routed.salt === null ? null : await hashedNetwork(routed.salt, c.req.header("cf-connecting-ip"));
    const userKey = await hashUserKey(c.var.userKey, c.env.USER_KEY_PEPPER);
    const event = (over: Partial<SearchEvent>): SearchEvent => ({
      requestId,
      at: Date.now(),
      experimentId: routed.experiment,
      arm: routed.arm,
      round: base,
      otherRound: routed.kind === "interleave" ? routed.treatment.round : null,
      userKey,
      query: normalizeKeyword(q),
      net,
      latencyMs: performance.now() - started,
      total: 0,
      zeroResult: true,
      error: false,
      keywordSource: "raw",
      fallback: false,
      shown: [],
      ...over,
    });
    let found: Awaited<ReturnType<typeof answer>>;
    try {
      found = await answer(c, routed, q, { limit, offset, explain, verbatim, narrowing });
    } catch (e) {
      recordSearch(c.env, event({ error: true }), c.var.waitUntil);
      throw e;
    }
    const tookMs = Math.round((performance.now() - started) * 100) / 100;
    recordSearch(
      c.env,
      event({
        latencyMs: tookMs,
        total: found.total,
        zeroResult: found.total === 0,
        keywordSource: found.keywordSource,
        fallback: found.fallback,
        shown: found.results.map((r, j) =>
          r.team ? (found.credited?.[j] ? [r.id, offset + j + 1, r.team, 1] : [r.id, offset + j + 1, r.team]) : [r.id, offset + j + 1],
        ),
      }),
      c.var.waitUntil,
    );
    const admin = await isAdminView(c.env.ADMIN_TOKEN, c.req.header("authorization"));
    // Outside an experiment there is no arm to hide: the round is public (GET /v1/rounds lists it).
    const disclose = admin || routed.experiment === null;
    if (admin) {
      c.header("x-cogr-round", found.rounds.join(","));
      if (routed.experiment) c.header("x-cogr-experiment", routed.experiment);
      if (routed.arm) c.header("x-cogr-arm", routed.arm);
    }
    return c.json(
      {
        requestId,
        query: q,
        ...(disclose ? { round: base, rounds: found.rounds, experiment: routed.experiment, arm: routed.arm } : {}),
        keywords: found.keywords,
        keywordSource: found.keywordSource,
        corrected: found.corrected,
        total: found.total,
        related: found.related,
        ...(disclose && found.totals ? { totals: found.totals } : {}),
        results: disclose ? found.results : found.results.map(withoutTeam),
        ...(found.facets ? { facets: found.facets } : {}),
        tookMs,
      },
      200,
    );
  });
}

/** A result as an ordinary client sees it: the team would tell it which results (and so which round) are the treatment's. */
function withoutTeam(r: SearchResult & { team?: unknown }): SearchResult {
  const { team: _team, ...rest } = r;
  return rest;
}
