/**
 * The API as its OpenAPI document states it: every documented status of
 * every route is produced by a real request here, and each response's body
 * is validated against that route's schema for that status (the same zod
 * schemas the document is generated from). The last test checks that no
 * documented (route, status) went unexercised.
 */
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../workers/search/app.js";
import { failingD1 } from "./faults.js";
import { get, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();
const seen = new Set<string>();

type ResponseSpec = { content?: Record<string, { schema: z.ZodType }> };

/** Checks a response against the document: its route (by path pattern), status, content type, body schema and headers. */
async function conforms(res: Response, path: string) {
  const pathname = new URL(path, "http://x").pathname;
  const route = ROUTES.find((r) => new RegExp(`^${r.path.replaceAll(/\{[^}]+\}/g, "[^/]+")}$`).test(pathname));
  expect(route, `a documented route for ${pathname}`).toBeDefined();
  if (!route) return;
  const spec = (route.responses as Record<string, ResponseSpec>)[String(res.status)];
  expect(spec, `${route.operationId} documents ${res.status}`).toBeDefined();
  const [type, media] = Object.entries(spec?.content ?? {})[0] ?? [];
  expect(res.headers.get("content-type") ?? "").toMatch(new RegExp(`^${(type ?? "").replace("+", "\\+")}`));
  const text = await res.text();
  const body = type?.includes("json") ? JSON.parse(text) : text;
  const parsed = media?.schema.safeParse(body);
  expect(parsed?.success, `${route.operationId} ${res.status}: ${JSON.stringify(parsed?.error?.issues ?? [])}`).toBe(true);
  if (res.status >= 400) expect(body.status).toBe(res.status);
  if (res.status === 429 || res.status === 503) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  if (res.status === 405) expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  seen.add(`${route.operationId} ${res.status}`);
  return body;
}

async function expectStatus(status: number, path: string, opts: { method?: string; headers?: Record<string, string>; env?: Record<string, unknown> } = {}) {
  const res = await get(path, opts.env ?? {}, opts.headers ?? {}, opts.method ?? "GET");
  expect(res.status, `${opts.method ?? "GET"} ${path}`).toBe(status);
  return conforms(res, path);
}

const DATA_PATHS = ["/v1/search?q=chair", "/v1/items/1", "/v1/rounds"] as const;
const ALL_PATHS = [...DATA_PATHS, "/healthz", "/readyz", "/openapi.json", "/"] as const;

describe("before any round is published", () => {
  it("answers 503 with Retry-After on search and items, an empty list of rounds, and readiness 503", async () => {
    expect((await expectStatus(503, "/v1/search?q=chair")).title).toBe("No round published");
    await expectStatus(503, "/v1/items/1");
    expect((await expectStatus(200, "/v1/rounds")).rounds).toEqual([]);
    const ready = await expectStatus(503, "/readyz");
    expect(ready.checks).toEqual({ catalog: "missing", shards: "ok", kv: "missing" });
    expect((await expectStatus(200, "/healthz")).status).toBe("ok");
  });
});

describe("over a published round", () => {
  beforeAll(async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
  });

  it("answers 200 on every route", async () => {
    const found = await expectStatus(200, "/v1/search?q=wood%20chair&limit=3");
    expect(found.results).toHaveLength(3);
    await expectStatus(200, `/v1/items/${found.results[0].id}`);
    expect((await expectStatus(200, "/v1/rounds")).rounds).toHaveLength(1);
    expect(await expectStatus(200, "/readyz")).toEqual({ status: "ready", round: 0, checks: { catalog: "ok", shards: "ok", kv: "ok" } });
    for (const path of ["/healthz", "/openapi.json", "/"]) await expectStatus(200, path);
  });

  it("answers 404 for an unknown item", async () => {
    expect((await expectStatus(404, "/v1/items/no-such-item")).detail).toMatch(/no-such-item/);
  });

  it("answers 400 for a malformed parameter or header on every route", async () => {
    for (const path of ALL_PATHS) {
      const sep = path.includes("?") ? "&" : "?";
      expect((await expectStatus(400, `${path}${sep}x=%ED%A0%80`)).parameter).toBe("x");
      expect((await expectStatus(400, `${path}${sep}x=1&x=2`)).parameter).toBe("x");
      expect((await expectStatus(400, path, { headers: { "x-cogr-user": "u".repeat(129) } })).parameter).toBe("x-cogr-user");
    }
  });

  it("answers 405 with Allow for another method on every route", async () => {
    for (const path of ALL_PATHS) for (const method of ["POST", "PUT", "DELETE", "PATCH"]) await expectStatus(405, path, { method });
  });

  it("answers 431 when the headers exceed their budget, on every route", async () => {
    for (const path of ALL_PATHS) await expectStatus(431, path, { headers: { cookie: `big=${"c".repeat(9000)}` } });
  });

  it("answers 414 when the path and query exceed their budget, on every route", async () => {
    for (const path of ALL_PATHS) await expectStatus(414, `${path}${path.includes("?") ? "&" : "?"}pad=${"p".repeat(8200)}`);
  });

  it("answers 429 with Retry-After once a client is over its limit, on every data route", async () => {
    for (const path of DATA_PATHS) {
      const headers = { "cf-connecting-ip": `198.51.100.${DATA_PATHS.indexOf(path)}` };
      for (let j = 0; j < env.TEST_RATE_LIMIT; j++) expect((await get(path, {}, headers)).status).not.toBe(429);
      const body = await expectStatus(429, path, { headers });
      expect(body.retryAfter).toBe(60);
    }
  });

  it("answers 500 without internals when the deployment is misconfigured", async () => {
    for (const path of DATA_PATHS) {
      const body = await expectStatus(500, path, { env: { SHARD_COUNT: "5" } });
      expect(body.detail).toBe("The server could not answer this request.");
    }
  });

  it("answers 503 when D1 fails inside the request", async () => {
    for (const path of DATA_PATHS) {
      const body = await expectStatus(503, path, { env: { CATALOG: failingD1() } });
      expect(body.title).toBe("Storage unavailable");
      expect(JSON.stringify(body)).not.toMatch(/simulated|D1_ERROR/);
    }
    expect((await expectStatus(503, "/readyz", { env: { CATALOG: failingD1() } })).checks.catalog).toBe("failed");
  });
});

afterAll(() => {
  const documented = ROUTES.flatMap((r) => Object.keys(r.responses).map((s) => `${r.operationId} ${s}`));
  expect([...documented].filter((d) => !seen.has(d))).toEqual([]);
});
