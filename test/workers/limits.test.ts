/**
 * Limits a client cannot talk its way out of: the per-IP limit behind the
 * per-user-key one (rotating user keys from one address is throttled; IPv6
 * per /64), the admin API's own per-IP limit and its token floor, the depth
 * of a page (offset + limit), and the expiry of cached query keywords.
 *
 * The limiters count in fixed windows (TEST_RATE_LIMIT.periodS); a window may
 * roll over once during a loop, so each loop allows two windows' worth of
 * requests and asserts that a 429 came, and that at least a window's worth
 * passed before it.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN_LIMITS } from "../../core/contract.js";
import { SERVING_LIMITS } from "../../workers/search/limits.js";
import { ipBucket } from "../../workers/search/middleware/rate-limit.js";
import { get, publish, send, testRounds } from "./helpers.js";

const rounds = await testRounds();

/** Sends `request(j)` until a 429 or `max` requests; the statuses before it, and the 429 with its body. */
async function untilLimited(max: number, request: (j: number) => Promise<Response>) {
  const before: number[] = [];
  for (let j = 0; j < max; j++) {
    const res = await request(j);
    if (res.status === 429) return { before, status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
    before.push(res.status);
    await res.arrayBuffer();
  }
  return { before, status: null, headers: null, body: null };
}

/** A 429 as the API documents it: problem+json with Retry-After = the limiters' period. */
function expectRateLimited(limited: Awaited<ReturnType<typeof untilLimited>>, who: RegExp) {
  expect(limited.status).toBe(429);
  expect(limited.headers?.get("content-type")).toBe("application/problem+json");
  expect(limited.headers?.get("retry-after")).toBe(env.RATE_LIMIT_PERIOD_S);
  expect(limited.body).toMatchObject({ status: 429, title: "Too many requests", retryAfter: Number(env.RATE_LIMIT_PERIOD_S) });
  expect(String(limited.body?.detail)).toMatch(who);
}

beforeAll(async () => {
  expect(await publish(rounds.synthetic0)).toBe("published");
});

describe("the per-IP limit", () => {
  it("throttles one IP that sends a fresh user key with every search", async () => {
    const limit = env.TEST_IP_RATE_LIMIT;
    const search = (j: number) => get("/v1/search?q=chair", {}, { "cf-connecting-ip": "198.18.7.1", "x-user-id": `rotating-${j}` });
    const limited = await untilLimited(2 * limit + 1, search);
    expectRateLimited(limited, /IP address/);
    expect(limited.before.length).toBeGreaterThanOrEqual(limit);
    expect(new Set(limited.before)).toEqual(new Set([200]));
    // Another address is not held back by it.
    expect((await get("/v1/search?q=chair", {}, { "cf-connecting-ip": "198.18.7.2", "x-user-id": "rotating-other" })).status).toBe(200);
  });

  it("counts an IPv6 client per /64, so rotating addresses inside it does not escape", async () => {
    const limit = env.TEST_IP_RATE_LIMIT;
    const rounds = (j: number) => get("/v1/rounds", {}, { "cf-connecting-ip": `2001:db8:7:1::${(j + 1).toString(16)}`, "x-user-id": `v6-${j}` });
    const limited = await untilLimited(2 * limit + 1, rounds);
    expectRateLimited(limited, /IP address/);
    expect(limited.before.length).toBeGreaterThanOrEqual(limit);
    expect((await get("/v1/rounds", {}, { "cf-connecting-ip": "2001:db8:7:2::1" })).status).toBe(200);
  });

  it("buckets addresses: IPv4 whole, IPv6 by /64 however it is written, IPv4-mapped as IPv4", () => {
    expect(ipBucket("192.0.2.7")).toBe("192.0.2.7");
    expect(ipBucket("2001:DB8:0:1:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:0:1::/64");
    expect(ipBucket("2001:db8:0:1::9")).toBe("2001:db8:0:1::/64");
    expect(ipBucket("2001:0db8:0000:0001::")).toBe("2001:db8:0:1::/64");
    expect(ipBucket("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(ipBucket("64:ff9b::192.0.2.7")).toBe("64:ff9b:0:0::/64");
    expect(ipBucket(undefined)).toBe("unknown");
    expect(ipBucket("not an address")).toBe("not an address");
  });

  it("still limits one user key that hops between addresses", async () => {
    const limit = env.TEST_RATE_LIMIT;
    const limited = await untilLimited(2 * limit + 1, () => get("/v1/rounds", {}, { "x-user-id": "hopping-user" }));
    expectRateLimited(limited, /client/);
    expect(limited.before.length).toBeGreaterThanOrEqual(limit);
  });
});

describe("the admin API's limits", () => {
  const adminGet = (ip: string, token: string, overrides: Record<string, unknown> = {}) =>
    send("/admin/experiments", { headers: { authorization: `Bearer ${token}`, "cf-connecting-ip": ip } }, overrides);

  it("limits each IP on /admin with a budget of its own, wrong tokens included", async () => {
    const limit = env.TEST_ADMIN_RATE_LIMIT;
    const limited = await untilLimited(2 * limit + 1, () => adminGet("198.18.9.1", "a-guess-that-is-wrong"));
    expectRateLimited(limited, /IP address/);
    expect(limited.before.length).toBeGreaterThanOrEqual(limit);
    expect(new Set(limited.before)).toEqual(new Set([403]));
    // The right token from that address waits too; another address gets in.
    expect((await adminGet("198.18.9.1", env.ADMIN_TOKEN ?? "")).status).toBe(429);
    expect((await adminGet("198.18.9.2", env.ADMIN_TOKEN ?? "")).status).toBe(200);
  });

  it("answers 503 problem+json while ADMIN_TOKEN is shorter than the floor, even to that very token", async () => {
    const short = "s".repeat(ADMIN_TOKEN_LIMITS.minChars - 1);
    const res = await adminGet("198.18.9.3", short, { ADMIN_TOKEN: short });
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = (await res.json()) as { title: string; detail: string };
    expect(body.title).toBe("Admin API disabled");
    expect(body.detail).toContain(`shorter than ${ADMIN_TOKEN_LIMITS.minChars} characters`);
    const enough = "s".repeat(ADMIN_TOKEN_LIMITS.minChars);
    expect((await adminGet("198.18.9.4", enough, { ADMIN_TOKEN: enough })).status).toBe(200);
  });
});

describe("the depth of a page", () => {
  const depth = SERVING_LIMITS.pageDepthMax;

  it("answers offset + limit up to the bound, and 400 naming offset past it", async () => {
    expect((await get(`/v1/search?q=chair&offset=${depth - 10}&limit=10`)).status).toBe(200);
    expect((await get(`/v1/search?q=chair&offset=${depth - 1}&limit=1`)).status).toBe(200);
    for (const query of [
      `offset=${depth - 9}&limit=10`,
      `offset=${depth - 5}`,
      `offset=${depth}&limit=1`,
      "offset=9007199254740991",
      "offset=999999999999999",
    ]) {
      const res = await get(`/v1/search?q=chair&${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const body = (await res.json()) as { parameter: string; detail: string };
      expect(body.parameter, query).toBe("offset");
      expect(body.detail, query).toMatch(new RegExp(`offset \\+ limit must be at most ${depth}|offset must be an integer from 0 to ${depth - 1}`));
    }
  });

  it("says so in the OpenAPI document", async () => {
    const doc = (await (await get("/openapi.json")).json()) as {
      paths: Record<string, { get: { parameters: Array<{ name: string; description?: string; schema: { maximum?: number } }> } }>;
    };
    const offset = doc.paths["/v1/search"]?.get.parameters.find((p) => p.name === "offset");
    expect(offset?.schema.maximum).toBe(depth - 1);
    expect(offset?.description).toContain(`offset + limit must be at most ${depth}`);
  });
});

describe("cached query keywords", () => {
  const kwKeys = async () => new Map((await env.CACHE.list({ prefix: "kw:" })).keys.map((k) => [k.name, k.expiration]));

  /** Searches a query no test asked before and returns the expiry (epoch seconds) of the one kw: entry it wrote. */
  async function expiryOfNewEntry(query: string, overrides: Record<string, unknown> = {}) {
    const before = await kwKeys();
    expect((await get(`/v1/search?q=${encodeURIComponent(query)}`, overrides)).status).toBe(200);
    const added = [...(await kwKeys())].filter(([name]) => !before.has(name));
    expect(added).toHaveLength(1);
    return { expiration: added[0]?.[1] ?? 0, nowS: Date.now() / 1000 };
  }

  it("expire after a week by default", async () => {
    const { expiration, nowS } = await expiryOfNewEntry("kw ttl default oak chair");
    const week = SERVING_LIMITS.keywordCacheTtlSDefault;
    expect(week).toBe(7 * 24 * 3600);
    expect(expiration).toBeGreaterThan(nowS + week - 120);
    expect(expiration).toBeLessThanOrEqual(nowS + week + 1);
  });

  it("expire after KEYWORD_CACHE_TTL_S when it is set (at least KV's 60 s)", async () => {
    const hour = await expiryOfNewEntry("kw ttl hour pine table", { KEYWORD_CACHE_TTL_S: "3600" });
    expect(hour.expiration).toBeGreaterThan(hour.nowS + 3600 - 120);
    expect(hour.expiration).toBeLessThanOrEqual(hour.nowS + 3600 + 1);
    const floor = await expiryOfNewEntry("kw ttl floor walnut desk", { KEYWORD_CACHE_TTL_S: "5" });
    expect(floor.expiration).toBeGreaterThan(floor.nowS + 60 - 30);
    expect(floor.expiration).toBeLessThanOrEqual(floor.nowS + 60 + 1);
  });
});
