/** GET /openapi.json — the API, described by hand (four small routes). */
import { Hono } from "hono";
import { SERVING_LIMITS } from "../limits.js";

const problem = { $ref: "#/components/responses/Problem" };

export const OPENAPI = {
  openapi: "3.1.0",
  info: { title: "cogr-edge search API", version: "1.0.0", description: "Search over a learned keyword index (CoGR), served from the edge." },
  paths: {
    "/v1/search": {
      get: {
        summary: "Search the serving round",
        parameters: [
          {
            name: "q",
            in: "query",
            required: true,
            schema: { type: "string", minLength: 1, maxLength: SERVING_LIMITS.queryMaxChars },
            description: "Query; trimmed.",
          },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: SERVING_LIMITS.limitMax, default: SERVING_LIMITS.limitDefault } },
          { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
          { name: "x-cogr-user", in: "header", schema: { type: "string" }, description: "Stable user key for rollout bucketing." },
        ],
        responses: {
          200: { description: "Ranked results", content: { "application/json": { schema: { $ref: "#/components/schemas/SearchResponse" } } } },
          400: problem,
          503: problem,
        },
      },
    },
    "/v1/items/{id}": {
      get: {
        summary: "One item as the serving round indexes it",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          200: { description: "The item", content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } },
          404: problem,
          503: problem,
        },
      },
    },
    "/v1/rounds": { get: { summary: "Published rounds", responses: { 200: { description: "Rounds and their manifests' public fields" } } } },
    "/healthz": { get: { summary: "Liveness", responses: { 200: { description: "ok" } } } },
    "/": { get: { summary: "Search page (HTML)", responses: { 200: { description: "HTML" } } } },
  },
  components: {
    schemas: {
      SearchResponse: {
        type: "object",
        required: ["query", "round", "keywords", "keywordSource", "total", "results", "tookMs"],
        properties: {
          query: { type: "string" },
          round: { type: "integer" },
          keywords: { type: "array", items: { type: "string" }, maxItems: 30 },
          keywordSource: { type: "string", enum: ["llm", "policy", "raw"] },
          total: { type: "integer", description: "|I_ret(q)|" },
          results: {
            type: "array",
            items: { type: "object", properties: { id: { type: "string" }, name: { type: "string" }, class: { type: "string" }, score: { type: "number" } } },
          },
          tookMs: { type: "number" },
        },
      },
      Item: {
        type: "object",
        properties: {
          round: { type: "integer" },
          id: { type: "string" },
          name: { type: "string" },
          class: { type: "string" },
          category: { type: "string" },
          keywords: { type: "array", items: { type: "string" } },
        },
      },
      Problem: {
        type: "object",
        properties: {
          type: { type: "string" },
          title: { type: "string" },
          status: { type: "integer" },
          detail: { type: "string" },
          instance: { type: "string" },
        },
      },
    },
    responses: { Problem: { description: "RFC 9457 problem", content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } } },
  },
} as const;

export const openapi = new Hono().get("/", (c) => c.json(OPENAPI));
