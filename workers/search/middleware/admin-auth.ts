/**
 * The admin API's bearer token (ADMIN_TOKEN, a wrangler secret; .dev.vars
 * locally), compared in constant time over SHA-256 digests, so neither the
 * token's length nor its prefix leaks through timing. Missing token: 401;
 * wrong: 403; none configured: every admin route answers 503, never open.
 */
import { createMiddleware } from "hono/factory";
import type { Env } from "../bindings.js";
import { Problem } from "../errors.js";

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  let diff = 0;
  for (let j = 0; j < a.length; j++) diff |= (a[j] as number) ^ (b[j] as number);
  return diff === 0;
}

export const adminAuth = createMiddleware<{ Bindings: Env }>(async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected)
    throw new Problem("adminDisabled", "The admin API is disabled: no ADMIN_TOKEN is configured (wrangler secret put ADMIN_TOKEN; .dev.vars locally).");
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match) {
    throw new Problem("unauthorized", "Send Authorization: Bearer <ADMIN_TOKEN>.", {}, { "www-authenticate": 'Bearer realm="cogr-admin"' });
  }
  if (!(await tokensEqual(match[1] as string, expected))) throw new Problem("forbidden", "That admin token is not valid.");
  await next();
});
