/**
 * The API's schemas, declared once (zod + @hono/zod-openapi): request
 * validation, response types and the OpenAPI 3.1 document all come from here.
 */
import { z } from "@hono/zod-openapi";
import { REWARD_LIMITS } from "../../../core/reward.js";
import { PROBLEM_BASE_URL, PROBLEM_TYPES } from "../errors.js";
import { SERVING_LIMITS } from "../limits.js";
import { FacetCounts, FilterFields } from "./facet-schemas.js";

/** A non-negative decimal integer as a query string carries it: digits only, no sign, exponent or fraction. */
function intParam(name: string, min: number, max: number, fallback: number) {
  const range = `${name} must be an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? "∞" : max}`;
  return z
    .string()
    .regex(/^[0-9]{1,15}$/, range)
    .transform(Number)
    .pipe(z.number().int().min(min, range).max(max, range))
    .optional()
    .transform((v) => v ?? fallback)
    .openapi({ type: "integer", minimum: min, ...(max < Number.MAX_SAFE_INTEGER ? { maximum: max } : {}), default: fallback });
}

/** A 0/1 switch in the query string; absent is 0. */
function flagParam(name: string, description: string) {
  return z
    .enum(["0", "1"], { error: `${name} must be 0 or 1` })
    .optional()
    .transform((v) => v === "1")
    .openapi({ param: { name, in: "query", description }, type: "string", enum: ["0", "1"], default: "0" });
}

const PAGE_DEPTH = `offset + limit must be at most ${SERVING_LIMITS.pageDepthMax}`;

const SearchFields = z.object({
  q: z
    .string({ error: `q must be 1 to ${SERVING_LIMITS.queryMaxChars} characters after trimming` })
    .transform((s) => s.trim())
    .pipe(
      z
        .string()
        .min(1, `q must be 1 to ${SERVING_LIMITS.queryMaxChars} characters after trimming`)
        .max(SERVING_LIMITS.queryMaxChars, `q must be 1 to ${SERVING_LIMITS.queryMaxChars} characters after trimming`),
    )
    .openapi({
      param: { name: "q", in: "query", required: true, description: "The query; trimmed, then 1–256 characters." },
      type: "string",
      minLength: 1,
      maxLength: SERVING_LIMITS.queryMaxChars,
      example: "armchair",
    }),
  limit: intParam("limit", 1, SERVING_LIMITS.limitMax, SERVING_LIMITS.limitDefault).openapi({
    param: { name: "limit", in: "query", description: "Results per page." },
  }),
  offset: intParam("offset", 0, SERVING_LIMITS.pageDepthMax - 1, 0).openapi({
    param: { name: "offset", in: "query", description: `Results to skip; ${PAGE_DEPTH} (deep paging is not a search use): past that, a 400 naming offset.` },
  }),
  explain: flagParam("explain", "1: each result says why it matched (the keywords that hit, each word's BM25 contribution)."),
  verbatim: flagParam("verbatim", '1: read q as typed, without spelling correction (what the page\'s "search instead for" link asks).'),
  ...FilterFields,
});

/** Every result up to offset + limit is ranked and read (interleaved: explained too), so the depth is bounded, not only each part. */
export const SearchQuery = SearchFields.superRefine((v, ctx) => {
  if (v.offset + v.limit > SERVING_LIMITS.pageDepthMax) ctx.addIssue({ code: "custom", path: ["offset"], message: PAGE_DEPTH });
});

const userKeyHeader = (name: string, description: string) =>
  z
    .string()
    .max(SERVING_LIMITS.userKeyMaxChars)
    .optional()
    .openapi({ param: { name, in: "header", description }, example: "user-42" });

export const UserKeyHeaders = z.object({
  "x-user-id": userKeyHeader(
    "x-user-id",
    `Stable user key (at most ${SERVING_LIMITS.userKeyMaxChars} characters): assigns the experiment arm and is the rate-limit key. Without it, the cogr_uid cookie (set on the first visit) is the key.`,
  ),
  "x-cogr-user": userKeyHeader("x-cogr-user", "The older name of x-user-id, used when x-user-id is absent."),
});

export const ItemParams = z.object({
  id: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: "id", in: "path", required: true, description: "The item's id (WANDS product_id)." }, example: "1234" }),
});

const KeywordSource = z.enum(["llm", "policy", "raw"]).openapi({ description: "Which generator produced `keywords`." });

export const Explanation = z
  .object({
    keywords: z
      .array(z.string())
      .openapi({ description: "The query keywords (S_q ∪ {q}) the item's keywords or name hold: why it is in I_ret(q); empty in the related tail." }),
    words: z
      .array(z.object({ word: z.string(), score: z.number() }))
      .openapi({ description: "Each query word the item's bag holds, with its BM25 contribution; they sum to the score." }),
  })
  .openapi("Explanation");

/** Which arm answered is withheld from ordinary clients while an experiment runs (routes/search.ts). */
const ADMIN_VIEW =
  "Present outside an experiment; while one runs, only with `Authorization: Bearer <ADMIN_TOKEN>` (the admin view), so that a client cannot tell its arm.";

export const SearchResult = z
  .object({
    id: z.string(),
    name: z.string(),
    class: z.string(),
    score: z
      .number()
      .openapi({ description: "The round's ranker: BM25 over the item's keyword bag, its text, or a BM25F blend of the two (GET /v1/rounds names it)." }),
    related: z.boolean().openapi({ description: "false: in I_ret(q); true: the related tail past it (shares a word of the keywords, no keyword)." }),
    team: z.enum(["control", "treatment"]).optional().openapi({
      description: "Interleaved searches, admin view only: the round that contributed this result (feedback credits it from the recorded search).",
    }),
    explain: Explanation.optional().openapi({ description: "With explain=1." }),
  })
  .openapi("SearchResult");

export const SearchResponse = z
  .object({
    requestId: z.string().openapi({ description: "This search's id (also X-Request-Id); feedback refers to it." }),
    query: z.string().openapi({ description: "The trimmed query." }),
    round: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .openapi({ description: `The round that answered (interleaved: the control round). ${ADMIN_VIEW}` }),
    rounds: z
      .array(z.number().int().nonnegative())
      .min(1)
      .max(2)
      .optional()
      .openapi({ description: `Every round that contributed (interleaved: control, treatment). ${ADMIN_VIEW}` }),
    experiment: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: `The running experiment (also X-CoGR-Experiment), or null. ${ADMIN_VIEW}` }),
    arm: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: `This user's arm: r<round>, or interleaved (also X-CoGR-Arm); null without an experiment. ${ADMIN_VIEW}` }),
    keywords: z.array(z.string()).max(REWARD_LIMITS.kMax).openapi({ description: "S_q, the generated query keywords." }),
    keywordSource: KeywordSource,
    corrected: z.string().nullable().openapi({
      description:
        "The query as the round's generator read it after spelling correction (words unknown to the round's vocabulary, one edit from a known word), or null when no word changed or `verbatim=1`.",
      example: "armchair",
    }),
    total: z.number().int().nonnegative().openapi({ description: "|I_ret(q)| after the filters, exact (interleaved: the larger of the two rounds')." }),
    related: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .openapi({
        description:
          "How many items the related tail holds after I_ret(q); results past `total` come from it (interleaved: the larger of the two). " +
          "null when this page ends inside I_ret(q): the tail is counted only when a page reaches it.",
      }),
    totals: z
      .object({ control: z.number().int().nonnegative(), treatment: z.number().int().nonnegative() })
      .optional()
      .openapi({ description: "Interleaved, admin view only: each round's |I_ret(q)|." }),
    results: z.array(SearchResult),
    facets: FacetCounts.optional(),
    tookMs: z.number().nonnegative(),
  })
  .openapi("SearchResponse");

export const Item = z
  .object({
    round: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .openapi({ description: `The round whose index this is (this user's arm under an experiment). ${ADMIN_VIEW}` }),
    id: z.string(),
    name: z.string(),
    class: z.string(),
    category: z.string(),
    keywords: z.array(z.string()).openapi({ description: "S_i in the serving round." }),
  })
  .openapi("Item");

export const Round = z
  .object({
    round: z.number().int().nonnegative(),
    version: z.number().int(),
    createdAt: z.string(),
    publishedAt: z.string(),
    items: z.number().int().nonnegative(),
    keywords: z.number().int().nonnegative(),
    shards: z.number().int().positive(),
    queryGenerator: z.object({ kind: z.string(), model: z.string().optional(), policy: z.boolean() }),
    ranker: z.string().openapi({
      description:
        'How results inside I_ret(q) are ordered: "keywords" (BM25 over the keyword bag, the paper\'s), "text" (BM25 over the item text) or "blend K:T" (BM25F, keyword bag ×K, text ×T).',
    }),
    metrics: z.record(z.string(), z.unknown()),
    checksums: z.record(z.string(), z.string()),
  })
  .openapi("Round");

export const RoundsResponse = z.object({ rounds: z.array(Round).openapi({ description: "Newest first." }) }).openapi("RoundsResponse");

export const LlmHealth = z
  .object({
    state: z.enum(["unconfigured", "ok", "degraded", "open"]),
    consecutiveFailures: z.number().int().nonnegative().optional(),
    lastError: z.string().nullable().optional(),
  })
  .openapi("LlmHealth", {
    description:
      "This isolate's view of LLM_BASE_URL: unconfigured; ok; degraded (recent failures, or probing after a cool-down); open (the circuit breaker skips the LLM and searches answer from the round's fallback). Never fails the liveness check.",
  });

export const Health = z.object({ status: z.literal("ok"), llm: LlmHealth }).openapi("Health");

const CheckState = z.enum(["ok", "failed", "missing"]);
export const ReadyChecks = z.object({ catalog: CheckState, shards: CheckState, kv: CheckState }).openapi("ReadyChecks", {
  description:
    "catalog: the rounds table answers; shards: every shard answers a search's query (its postings and blocks tables); kv: the serving round's query generator is in KV. The answer is kept per isolate for a few seconds.",
});

export const Ready = z.object({ status: z.literal("ready"), round: z.number().int().nonnegative(), checks: ReadyChecks }).openapi("Ready");

export const Problem = z
  .object({
    type: z.string().startsWith(PROBLEM_BASE_URL).openapi({ format: "uri" }),
    title: z.enum(Object.values(PROBLEM_TYPES).map((p) => p.title) as [string, ...string[]]),
    status: z.number().int().min(400).max(599),
    detail: z.string(),
    instance: z.string().openapi({ description: "The request's path." }),
    parameter: z.string().optional().openapi({ description: "400: the query, path or header parameter at fault." }),
    allow: z.array(z.string()).optional().openapi({ description: "405: the methods the path allows (also the `Allow` header)." }),
    retryAfter: z.number().int().positive().optional().openapi({ description: "429 and 503: seconds to wait (also the `Retry-After` header)." }),
    checks: ReadyChecks.optional().openapi({ description: "GET /readyz's 503: which store failed." }),
  })
  .openapi("Problem", { description: "RFC 9457 problem details." });

export const PageHtml = z.string().openapi({ description: "An HTML page." });

export const CompareQuery = z.object({
  q: SearchQuery.shape.q,
  a: sideParam("a", "The left side: a published round's number, or bm25. Default: the newest round."),
  b: sideParam("b", "The right side: a published round's number, or bm25. Default: the second newest round, else bm25."),
  limit: intParam("limit", 1, SERVING_LIMITS.limitMax, 20).openapi({ param: { name: "limit", in: "query", description: "Results per side." } }),
});

function sideParam(name: string, description: string) {
  return z
    .string()
    .regex(/^(bm25|[0-9]{1,9})$/, `${name} must be a round number or bm25`)
    .optional()
    .openapi({ param: { name, in: "query", description }, example: "bm25" });
}

const Label = z.enum(["Exact", "Partial", "Irrelevant"]);

export const CompareSide = z
  .object({
    kind: z.enum(["round", "bm25"]),
    round: z.number().int().nonnegative().openapi({ description: "The round whose index answered (bm25: whose bags BM25 ran over)." }),
    label: z.string(),
    ranker: z.string().openapi({ description: "The round's ranker (GET /v1/rounds), or bm25." }),
    keywords: z.array(z.string()),
    keywordSource: KeywordSource,
    total: z.number().int().nonnegative().openapi({ description: "A round: |I_ret(q)|. bm25: every item sharing a word of the query." }),
    metrics: z
      .object({
        relevant: z.number().int().nonnegative(),
        retrieved: z.number().int().nonnegative(),
        hits: z.number().int().nonnegative(),
        p: z.number(),
        r: z.number(),
        f1: z.number(),
      })
      .nullable()
      .openapi({
        description: "With labels loaded: P/R/F1 over I_ret(q) (bm25: over its top results, as many as the other side's |I_ret(q)|). null without labels.",
      }),
    results: z.array(
      SearchResult.extend({
        rank: z.number().int().positive(),
        inOther: z.boolean().openapi({ description: "The other side's results hold this item too." }),
        label: Label.nullable().optional().openapi({ description: "With labels loaded: the item's label for this query, null when unlabelled." }),
      }),
    ),
  })
  .openapi("CompareSide");

export const CompareResponse = z
  .object({
    query: z.string(),
    labelled: z.boolean().openapi({ description: "Whether relevance labels are loaded for this query." }),
    sides: z.array(CompareSide).length(2),
  })
  .openapi("CompareResponse");

export const ItemRounds = z
  .object({
    id: z.string(),
    name: z.string(),
    class: z.string(),
    category: z.string(),
    rounds: z
      .array(z.object({ round: z.number().int().nonnegative(), keywords: z.array(z.string()) }))
      .openapi({ description: "S_i in each published round holding the item, newest first." }),
  })
  .openapi("ItemRounds");
