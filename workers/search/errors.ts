/**
 * RFC 9457 problem responses. Every error leaves through `onError`, typed,
 * with no internals: an unexpected error is logged and answered with a bare 500.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

export const PROBLEM_TYPES = {
  invalidParameter: { status: 400, title: "Invalid parameter" },
  notFound: { status: 404, title: "Not found" },
  methodNotAllowed: { status: 405, title: "Method not allowed" },
  noRound: { status: 503, title: "No round published" },
  internal: { status: 500, title: "Internal error" },
} as const;

export type ProblemType = keyof typeof PROBLEM_TYPES;

export class Problem extends Error {
  constructor(
    readonly type: ProblemType,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

export function problemResponse(c: Context, type: ProblemType, detail: string, extra: Record<string, unknown> = {}): Response {
  const { status, title } = PROBLEM_TYPES[type];
  return c.body(
    JSON.stringify({ type: `https://cogr-edge.dev/problems/${type}`, title, status, detail, instance: new URL(c.req.url).pathname, ...extra }),
    status,
    {
      "content-type": "application/problem+json",
    },
  );
}

export function onError(err: Error, c: Context): Response {
  if (err instanceof Problem) return problemResponse(c, err.type, err.detail, err.extra);
  if (err instanceof HTTPException && err.status < 500) return problemResponse(c, "invalidParameter", err.message || "bad request");
  console.error("unhandled error", err);
  return problemResponse(c, "internal", "The server could not answer this request.");
}

export function notFound(c: Context): Response {
  return problemResponse(c, "notFound", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
}
