/** GET /v1/search?q=&limit=&offset= */
import { Hono } from "hono";
import { Problem } from "../errors.js";
import { queryKeywords } from "../keywords.js";
import { SERVING_LIMITS } from "../limits.js";
import type { ServicesEnv } from "../middleware/services.js";
import { runSearch } from "../pipeline.js";
import { currentRound } from "./round-choice.js";

function intParam(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new Problem("invalidParameter", `${name} must be an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? "∞" : max}`, { parameter: name });
  }
  return Number(raw);
}

export const search = new Hono<ServicesEnv>().get("/", async (c) => {
  const started = performance.now();
  const q = (c.req.query("q") ?? "").trim();
  if (q.length < 1 || q.length > SERVING_LIMITS.queryMaxChars) {
    throw new Problem("invalidParameter", `q must be 1 to ${SERVING_LIMITS.queryMaxChars} characters after trimming`, { parameter: "q" });
  }
  const limit = intParam("limit", c.req.query("limit"), SERVING_LIMITS.limitDefault, 1, SERVING_LIMITS.limitMax);
  const offset = intParam("offset", c.req.query("offset"), 0, 0, Number.MAX_SAFE_INTEGER);
  const { catalog, store, keywordDeps } = c.var.services;
  const round = await currentRound(c);
  const generated = await queryKeywords(keywordDeps, round, q);
  const answer = await runSearch({ store, catalog }, round, q, generated, { limit, offset });
  return c.json({
    query: q,
    round: round.round,
    keywords: generated.keywords,
    keywordSource: generated.source,
    total: answer.total,
    results: answer.results,
    tookMs: Math.round((performance.now() - started) * 100) / 100,
  });
});
