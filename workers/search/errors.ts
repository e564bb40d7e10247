/**
 * RFC 9457 problem responses. Every error leaves through `onError`, typed,
 * with no internals: an unexpected error is logged and answered with a bare 500.
 * 429 and 503 carry `Retry-After` (RFC 9110 §10.2.3), in the header and in the body.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { SERVING_LIMITS } from "./limits.js";
import { escapeMarkup } from "./middleware/escape-json.js";

export const PROBLEM_TYPES = {
  invalidParameter: { status: 400, title: "Invalid parameter" },
  invalidHeader: { status: 400, title: "Invalid header" },
  invalidBody: { status: 400, title: "Invalid body" },
  unauthorized: { status: 401, title: "Unauthorized" },
  forbidden: { status: 403, title: "Forbidden" },
  notFound: { status: 404, title: "Not found" },
  methodNotAllowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  unsupportedMediaType: { status: 415, title: "Unsupported media type" },
  uriTooLong: { status: 414, title: "URI too long" },
  rateLimited: { status: 429, title: "Too many requests" },
  headersTooLarge: { status: 431, title: "Request header fields too large" },
  internal: { status: 500, title: "Internal error" },
  noRound: { status: 503, title: "No round published" },
  notReady: { status: 503, title: "Storage not ready" },
  unavailable: { status: 503, title: "Storage unavailable" },
  adminDisabled: { status: 503, title: "Admin API disabled" },
} as const;

export type ProblemType = keyof typeof PROBLEM_TYPES;

/** Seconds a client should wait before retrying each retryable problem. */
const RETRY_AFTER_S: Partial<Record<ProblemType, number>> = {
  noRound: SERVING_LIMITS.retryAfterNoRoundS,
  notReady: SERVING_LIMITS.retryAfterNoRoundS,
  unavailable: SERVING_LIMITS.retryAfterUnavailableS,
};

export const PROBLEM_BASE_URL = "https://cogr-edge.dev/problems/";

export class Problem extends Error {
  constructor(
    readonly type: ProblemType,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export function problemResponse(
  c: Context,
  type: ProblemType,
  detail: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  const { status, title } = PROBLEM_TYPES[type];
  const retryAfter = (extra.retryAfter as number | undefined) ?? RETRY_AFTER_S[type];
  const body: Record<string, unknown> = {
    type: `${PROBLEM_BASE_URL}${type}`,
    title,
    status,
    detail,
    instance: new URL(c.req.url).pathname.slice(0, 256),
    ...extra,
  };
  if (retryAfter !== undefined) body.retryAfter = retryAfter;
  return c.body(escapeMarkup(JSON.stringify(body)), status, {
    "content-type": "application/problem+json",
    ...(retryAfter !== undefined ? { "retry-after": String(retryAfter) } : {}),
    ...headers,
  });
}

export function onError(err: Error, c: Context): Response {
  if (err instanceof Problem) return problemResponse(c, err.type, err.detail, err.extra, err.headers);
  if (err instanceof HTTPException && err.status < 500) return problemResponse(c, "invalidParameter", err.message || "bad request");
  console.error("unhandled error", err);
  return problemResponse(c, "internal", "The server could not answer this request.");
}

export function notFound(c: Context): Response {
  return problemResponse(c, "notFound", `No route for ${c.req.method.slice(0, 16)} ${new URL(c.req.url).pathname.slice(0, 200)}`);
}
