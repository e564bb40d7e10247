/**
 * The admin API's bearer token (ADMIN_TOKEN, a wrangler secret; .dev.vars
 * locally), compared in constant time over SHA-256 digests, so neither the
 * token's length nor its prefix leaks through timing. Missing token: 401;
 * wrong: 403; none configured, or one shorter than ADMIN_TOKEN_LIMITS.minChars
 * (guessable): every admin route answers 503, never open.
 */
import { createMiddleware } from "hono/factory";
import { ADMIN_TOKEN_LIMITS, tokensEqual } from "../../../core/contract.js";
import type { Env } from "../bindings.js";
import { Problem } from "../errors.js";

export const adminAuth = createMiddleware<{ Bindings: Env }>(async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected)
    throw new Problem("adminDisabled", "The admin API is disabled: no ADMIN_TOKEN is configured (wrangler secret put ADMIN_TOKEN; .dev.vars locally).");
  if (expected.length < ADMIN_TOKEN_LIMITS.minChars) {
    throw new Problem(
      "adminDisabled",
      `The admin API is disabled: ADMIN_TOKEN is shorter than ${ADMIN_TOKEN_LIMITS.minChars} characters; set a longer one (e.g. openssl rand -hex 32).`,
    );
  }
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match) {
    throw new Problem("unauthorized", "Send Authorization: Bearer <ADMIN_TOKEN>.", {}, { "www-authenticate": 'Bearer realm="cogr-admin"' });
  }
  if (!(await tokensEqual(match[1] as string, expected))) throw new Problem("forbidden", "That admin token is not valid.");
  await next();
});
