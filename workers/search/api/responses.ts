/**
 * The responses a route declares, built from one table so that every route
 * documents the same problem statuses the same way.
 */
import type { z } from "@hono/zod-openapi";
import { ADMIN_TOKEN_LIMITS } from "../../../core/contract.js";
import { Problem } from "./schemas.js";

const PROBLEM_STATUSES = {
  400: "A malformed parameter, header or body: invalid UTF-8 or a lone surrogate, a repeated parameter, a value out of range (`parameter` names it).",
  401: "No bearer token (Authorization: Bearer <ADMIN_TOKEN>).",
  403: "A wrong bearer token.",
  404: "No such item in the serving round.",
  405: "Another method than the path allows (see `Allow`).",
  409: "The experiment is not running, changed meanwhile, another one runs, or there is no winner to promote yet.",
  414: "The request's path and query together exceed 8 KiB.",
  429: "Over a rate limit (/v1: per user key, else IP, and per IP address; /admin: per IP address); retry after `Retry-After` seconds.",
  431: "The request's headers together exceed 8 KiB.",
  500: "The deployment is misconfigured (e.g. a missing shard binding); nothing internal is shown.",
  503: `No round is published yet, storage is not migrated, D1 failed (retry after \`Retry-After\` seconds), or (admin) no ADMIN_TOKEN is configured, or one under ${ADMIN_TOKEN_LIMITS.minChars} characters.`,
} as const;

export type ProblemStatus = keyof typeof PROBLEM_STATUSES;

const RETRY_AFTER = { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" as const, minimum: 1 } } };
const ALLOW = { Allow: { description: "The methods this path allows.", schema: { type: "string" as const } } };

export function problems(...statuses: ProblemStatus[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: PROBLEM_STATUSES[s],
        ...(s === 429 || s === 503 ? { headers: RETRY_AFTER } : s === 405 ? { headers: ALLOW } : {}),
        content: { "application/problem+json": { schema: Problem } },
      },
    ]),
  ) as Record<ProblemStatus, { description: string; content: { "application/problem+json": { schema: typeof Problem } } }>;
}

export function json<T extends z.ZodType>(description: string, schema: T) {
  return { description, content: { "application/json": { schema } } } as const;
}

/** What every route can answer besides its own statuses: the request guard's 400, 414 and 431, and 405 for other methods. */
export const EVERY_ROUTE = [400, 405, 414, 431] as const satisfies readonly ProblemStatus[];
/** The data routes under /v1 add the rate limit, misconfiguration and storage problems. */
export const DATA_ROUTE = [...EVERY_ROUTE, 429, 500, 503] as const satisfies readonly ProblemStatus[];
