/** GET /v1/suggest's schemas, declared once like the search API's (validation, types and the OpenAPI document). */
import { z } from "@hono/zod-openapi";
import { SUGGEST_LIMITS } from "../../../core/suggest.js";
import { intParam } from "./schemas.js";

const Q_RANGE = `q must be 1 to ${SUGGEST_LIMITS.typedMaxChars} characters after trimming`;

export const SuggestQuery = z.object({
  q: z
    .string({ error: Q_RANGE })
    .transform((s) => s.trim())
    .pipe(z.string().min(1, Q_RANGE).max(SUGGEST_LIMITS.typedMaxChars, Q_RANGE))
    .openapi({
      param: {
        name: "q",
        in: "query",
        required: true,
        description: `What the user has typed so far; trimmed, then 1–${SUGGEST_LIMITS.typedMaxChars} characters. Its last word is a prefix, the others whole words; words over ${SUGGEST_LIMITS.typoFreeChars} characters may carry a typo (two from ${SUGGEST_LIMITS.twoTyposFromChars}).`,
      },
      type: "string",
      minLength: 1,
      maxLength: SUGGEST_LIMITS.typedMaxChars,
      example: "arm",
    }),
  limit: intParam("limit", 1, SUGGEST_LIMITS.limitMax, SUGGEST_LIMITS.limitDefault).openapi({
    param: { name: "limit", in: "query", description: "Suggestions at most." },
  }),
});

export const SuggestionSchema = z
  .object({
    text: z.string().openapi({ description: "The suggested query, normalised (lower case, punctuation as spaces).", example: "armchair" }),
    kind: z.enum(["query", "keyword"]).openapi({
      description:
        "`query`: a query many users searched (and found something for); `keyword`: a keyword of the serving round's items, by how many items hold it.",
    }),
  })
  .openapi("Suggestion");

export const SuggestResponse = z
  .object({
    query: z.string().openapi({ description: "q as received (trimmed)." }),
    suggestions: z
      .array(SuggestionSchema)
      .openapi({ description: "Best first: fewest typos, then matches from the first word, popular queries before keywords, then by popularity." }),
  })
  .openapi("SuggestResponse");
