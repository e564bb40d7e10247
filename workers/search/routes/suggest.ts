/** GET /v1/suggest?q=&limit= — suggestions as the user types (workers/search/suggest.ts, core/suggest.ts). */
import { createRoute } from "@hono/zod-openapi";
import { typedWords } from "../../../core/suggest.js";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { UserKeyHeaders } from "../api/schemas.js";
import { SuggestQuery, SuggestResponse } from "../api/suggest-schemas.js";
import { suggest } from "../suggest.js";
import { currentRound } from "./round-choice.js";

export const suggestRoute = createRoute({
  method: "get",
  path: "/v1/suggest",
  operationId: "suggest",
  summary: "Query suggestions for what has been typed",
  description:
    "Popular queries (from the search events, refreshed hourly by the cron; a query needs several distinct users) and the serving round's keywords (by how many items hold them) " +
    "whose words line up with the typed words: the last typed word is a prefix, the others whole words, starting at any word of the suggestion. " +
    "Typo-tolerant in words over 4 characters (one typo, two from 9), past a word's first two characters (or its first and third). " +
    "The round is the one this user's search would use.",
  tags: ["search"],
  request: { query: SuggestQuery, headers: UserKeyHeaders },
  responses: { 200: json("Suggestions, best first (possibly none).", SuggestResponse), ...problems(...DATA_ROUTE) },
});

export function mountSuggest(app: ApiApp) {
  app.openapi(suggestRoute, async (c) => {
    const { q, limit } = c.req.valid("query");
    const { round } = await currentRound(c);
    const suggestions = await suggest(c.env.CACHE, round, typedWords(q), limit);
    return c.json({ query: q, suggestions }, 200);
  });
}
