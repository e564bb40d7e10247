/**
 * Rate limiting with Workers Rate Limiting bindings (wrangler.toml
 * `[[ratelimits]]`, per environment). A /v1 request must pass two limits:
 * per client (its user key, else its IP) and per IP address. The user key is
 * whatever the client states, so the per-key limit alone stops no one who
 * sends a fresh key per request; the per-IP limit does (IPv6 counts per /64,
 * the block one subscriber holds, or rotating addresses inside it would
 * escape it too). /admin has a per-IP limit of its own (see adminRateLimit).
 * Over a limit: 429 problem+json with Retry-After. A deployment without a
 * binding is not limited by it; a limiter that fails lets the request
 * through (the limiter must never take search down).
 */
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import type { Env } from "../bindings.js";
import { intVar } from "../bindings.js";
import { Problem } from "../errors.js";
import { SERVING_LIMITS } from "../limits.js";
import { headerUserKey, USER_COOKIE } from "./user-key.js";

/** The address a limit counts: IPv4 as is; IPv6 by its /64 (an IPv4-mapped address as IPv4); no address: one shared bucket. */
export function ipBucket(ip: string | undefined): string {
  const v = (ip ?? "").trim().toLowerCase();
  if (v === "") return "unknown";
  if (!v.includes(":")) return v;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(v);
  if (mapped) return mapped[1] as string;
  const halves = v.split("::");
  if (halves.length > 2) return v;
  // An embedded IPv4 tail (e.g. 64:ff9b::192.0.2.1) fills the last two groups.
  const groups = (s: string | undefined) => (s ? s.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])) : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const all = halves.length === 2 ? [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill("0"), ...tail] : head;
  if (all.length !== 8 || !all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return v;
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/** The client: its user key as the request states it (header, else the cogr_uid cookie), else its IP. */
export function clientKey(header: (name: string) => string | undefined, cookie: string | undefined): string {
  const user = headerUserKey(header) ?? cookie;
  return user ? `u:${user}` : `ip:${ipBucket(header("cf-connecting-ip"))}`;
}

type LimiterName = "RATE_LIMITER" | "IP_RATE_LIMITER" | "ADMIN_RATE_LIMITER";

/** One limit: its binding, what its bucket is, and whom a 429 blames. */
interface Limit {
  readonly binding: LimiterName;
  readonly key: (header: (name: string) => string | undefined, cookie: string | undefined) => string;
  readonly who: string;
}

const ipKey = (header: (name: string) => string | undefined) => ipBucket(header("cf-connecting-ip"));

/** Whether the limiter lets this request through; a failing limiter does. */
async function allows(limiter: RateLimit, key: string): Promise<boolean> {
  try {
    return (await limiter.limit({ key })).success;
  } catch (e) {
    console.warn("rate limiter failed; letting the request through:", (e as Error).message);
    return true;
  }
}

function rateLimited(limits: readonly Limit[]) {
  return createMiddleware<{ Bindings: Env }>(async (c, next) => {
    const header = (n: string) => c.req.header(n);
    const cookie = getCookie(c, USER_COOKIE);
    const bound = limits.flatMap((l) => {
      const limiter = c.env[l.binding];
      return limiter ? [{ limit: l, limiter }] : [];
    });
    // Asked together: a request over one limit still counts against the other, which only keeps a throttled client throttled.
    const verdicts = await Promise.all(bound.map(({ limit, limiter }) => allows(limiter, limit.key(header, cookie))));
    const over = bound.find((_, j) => !verdicts[j]);
    if (over) {
      const retryAfter = intVar(c.env.RATE_LIMIT_PERIOD_S, SERVING_LIMITS.rateLimitPeriodSDefault) || SERVING_LIMITS.rateLimitPeriodSDefault;
      throw new Problem("rateLimited", `${over.limit.who} is over its request rate limit.`, { retryAfter });
    }
    await next();
  });
}

/** /v1/*: per client (user key, else IP) and per IP address; a request must pass both. */
export const rateLimit = rateLimited([
  { binding: "RATE_LIMITER", key: clientKey, who: "This client" },
  { binding: "IP_RATE_LIMITER", key: ipKey, who: "This IP address" },
]);

/**
 * /admin/*: per IP address, with a binding of its own rather than the
 * search limiter's: the admin API needs a few requests a minute, so its limit
 * can be far tighter (token guessing, the report's aggregate queries), and a
 * busy search client behind the operator's address cannot lock the operator
 * out. It runs before the token check, so unauthenticated requests count.
 */
export const adminRateLimit = rateLimited([{ binding: "ADMIN_RATE_LIMITER", key: ipKey, who: "This IP address" }]);
