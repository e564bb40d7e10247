/**
 * GET /v1/compare?q=&a=&b=&limit= — the relevance workbench's data: one
 * query through two sides, each a published round or plain BM25 (over the
 * other side's round's bags), with every result explained and marked when
 * the other side shows it too. With labels loaded (`npm run labels`), each
 * result carries its label and each side the query's P/R/F1: over I_ret(q)
 * for a round, over the top |I_ret(q)| of the other side's round for BM25 (the
 * same depth, since plain BM25 has no set of its own).
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ServingManifest } from "../../../core/contract.js";
import { f1FromCounts } from "../../../core/metrics.js";
import { normalizeKeyword } from "../../../core/normalize.js";
import { KEYWORD_RANKER, rankerName } from "../../../core/ranker.js";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { CompareQuery, CompareResponse } from "../api/schemas.js";
import { Problem } from "../errors.js";
import { queryKeywords } from "../keywords.js";
import type { ServicesEnv } from "../middleware/services.js";
import { rankedOrdinals, runSearch } from "../pipeline.js";

export const compareRoute = createRoute({
  method: "get",
  path: "/v1/compare",
  operationId: "compare",
  summary: "One query through two rounds, or a round and BM25, side by side",
  description:
    "Each side is a published round (`a`, `b`: round numbers; default the newest two) or `bm25`: plain BM25 over the other side's round's bags, no keywords. " +
    "Results are explained (as with explain=1 on /v1/search) and say whether the other side shows them. With relevance labels loaded (`npm run labels`), results carry their label and sides their P/R/F1.",
  tags: ["workbench"],
  request: { query: CompareQuery },
  responses: { 200: json("Both sides.", CompareResponse), ...problems(...DATA_ROUTE, 404) },
});

type Side = { kind: "round"; round: ServingManifest } | { kind: "bm25"; round: ServingManifest };

function pickSides(published: readonly ServingManifest[], a: string | undefined, b: string | undefined): [Side, Side] {
  if (published.length === 0) throw new Problem("noRound", "No round is published yet: run `npm run publish -- --round N`.");
  const byNumber = (v: string, name: string) => {
    const r = published.find((m) => String(m.round) === v);
    if (!r) throw new Problem("notFound", `${name}: round ${v} is not published (published: ${published.map((m) => m.round).join(", ")})`, { parameter: name });
    return r;
  };
  const av = a ?? String((published[0] as ServingManifest).round);
  const bv = b ?? (published[1] ? String(published[1].round) : "bm25");
  if (av === "bm25" && bv === "bm25") throw new Problem("invalidParameter", "a and b cannot both be bm25: BM25 runs over a round's bags", { parameter: "b" });
  const ra = av === "bm25" ? null : byNumber(av, "a");
  const rb = bv === "bm25" ? null : byNumber(bv, "b");
  const base = (ra ?? rb) as ServingManifest;
  return [ra ? { kind: "round", round: ra } : { kind: "bm25", round: base }, rb ? { kind: "round", round: rb } : { kind: "bm25", round: base }];
}

async function runSide(c: Context<ServicesEnv>, side: Side, q: string, limit: number) {
  const { catalog, store, keywordDeps } = c.var.services;
  const generated = side.kind === "round" ? await queryKeywords(keywordDeps, side.round, q) : { keywords: [], source: "raw" as const, corrected: null };
  const answer = await runSearch({ store, catalog }, side.round, q, generated, { limit, offset: 0 }, { explain: true, bm25: side.kind === "bm25" });
  return { side, generated, answer };
}

type SideRun = Awaited<ReturnType<typeof runSide>>;

/** P/R/F1 of a side against the labels' relevant items: its I_ret(q), or (BM25) its first `depth` results. */
async function sideMetrics(c: Context<ServicesEnv>, run: SideRun, q: string, relevant: readonly string[], depth: number) {
  const ordinals = await c.var.services.catalog.ordinalsOf(run.side.round, relevant);
  let tp = 0;
  let retrieved: number;
  if (run.side.kind === "round") {
    retrieved = run.answer.total;
    for (const o of ordinals.values()) if (run.answer.retrieves(o)) tp++;
  } else {
    const top = new Set(await rankedOrdinals(c.var.services.store, run.side.round, q, depth));
    retrieved = top.size;
    for (const o of ordinals.values()) if (top.has(o)) tp++;
  }
  return {
    relevant: relevant.length,
    retrieved,
    hits: tp,
    p: retrieved === 0 ? 0 : tp / retrieved,
    r: relevant.length === 0 ? 0 : tp / relevant.length,
    f1: f1FromCounts(tp, retrieved, relevant.length),
  };
}

export function mountCompare(app: ApiApp) {
  app.openapi(compareRoute, async (c) => {
    const { q, a, b, limit } = c.req.valid("query");
    const [sa, sb] = pickSides(await c.var.services.catalog.publishedRounds(), a, b);
    const [ra, rb] = await Promise.all([runSide(c, sa, q, limit), runSide(c, sb, q, limit)]);
    const labels = await c.var.services.catalog.labelsOf(normalizeKeyword(q));
    const relevant = [...labels].filter(([, l]) => l !== "Irrelevant").map(([id]) => id);
    const describe = async (run: SideRun, other: SideRun) => {
      const shown = new Set(other.answer.results.map((r) => r.id));
      const depth = other.side.kind === "round" ? other.answer.total : run.answer.total;
      return {
        kind: run.side.kind,
        round: run.side.round.round,
        label: run.side.kind === "round" ? `round ${run.side.round.round}` : `BM25 over round ${run.side.round.round}'s bags`,
        ranker: run.side.kind === "round" ? rankerName(run.side.round.ranker ?? KEYWORD_RANKER) : "bm25",
        keywords: run.generated.keywords,
        keywordSource: run.generated.source,
        total: run.side.kind === "round" ? run.answer.total : (run.answer.related ?? 0),
        metrics: labels.size > 0 ? await sideMetrics(c, run, q, relevant, Math.min(depth, 1000)) : null,
        results: run.answer.results.map((r, j) => ({
          rank: j + 1,
          ...r,
          inOther: shown.has(r.id),
          ...(labels.size > 0 ? { label: labels.get(r.id) ?? null } : {}),
        })),
      };
    };
    return c.json({ query: q, labelled: labels.size > 0, sides: [await describe(ra, rb), await describe(rb, ra)] }, 200);
  });
}
