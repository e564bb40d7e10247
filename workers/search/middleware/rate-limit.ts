/**
 * Per-client rate limiting with the Workers Rate Limiting binding
 * (wrangler.toml `[[ratelimits]]`, per environment). The client is its user
 * key, else its IP. Over the limit: 429 problem+json with Retry-After. A
 * deployment without the binding is not limited; a limiter that fails lets
 * the request through (the limiter must never take search down).
 */
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import type { Env } from "../bindings.js";
import { intVar } from "../bindings.js";
import { Problem } from "../errors.js";
import { SERVING_LIMITS } from "../limits.js";
import { headerUserKey, USER_COOKIE } from "./user-key.js";

/** The client: its user key as the request states it (header, else the cogr_uid cookie), else its IP. */
export function clientKey(header: (name: string) => string | undefined, cookie: string | undefined): string {
  const user = headerUserKey(header) ?? cookie;
  return user ? `u:${user}` : `ip:${header("cf-connecting-ip") ?? "unknown"}`;
}

export const rateLimit = createMiddleware<{ Bindings: Env }>(async (c, next) => {
  const limiter = c.env.RATE_LIMITER;
  if (limiter) {
    let allowed = true;
    try {
      allowed = (await limiter.limit({ key: clientKey((n) => c.req.header(n), getCookie(c, USER_COOKIE)) })).success;
    } catch (e) {
      console.warn("rate limiter failed; letting the request through:", (e as Error).message);
    }
    if (!allowed) {
      const retryAfter = intVar(c.env.RATE_LIMIT_PERIOD_S, SERVING_LIMITS.rateLimitPeriodSDefault) || SERVING_LIMITS.rateLimitPeriodSDefault;
      throw new Problem("rateLimited", "This client is over its request rate limit.", { retryAfter });
    }
  }
  await next();
});
