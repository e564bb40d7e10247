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
import { allowedMethods, honoPath, ROUTES } from "../../workers/search/app.js";
import { cron, keysIn, ownNetwork, unthrottled } from "./experiment-traffic.js";
import { failingD1 } from "./faults.js";
import { get, publish, send, testRounds } from "./helpers.js";

const rounds = await testRounds();
const seen = new Set<string>();

type ResponseSpec = { content?: Record<string, { schema: z.ZodType }> };

/** Checks a response against the document: its route (by path pattern), status, content type, body schema and headers. */
async function conforms(res: Response, path: string, method = "GET") {
  const pathname = new URL(path, "http://x").pathname;
  const matching = ROUTES.filter((r) => new RegExp(`^${r.path.replaceAll(/\{[^}]+\}/g, "[^/]+")}$`).test(pathname));
  // The operation a response belongs to: the one of the request's method, else (405, or a guard's answer) the path's first.
  const route = matching.find((r) => r.method === method.toLowerCase()) ?? matching[0];
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
  // One assertion of what each kind of answer must carry (null where it carries nothing):
  // a problem (every 4xx and 5xx but the item page's HTML 404) repeats its status; a 429 or a transient 503 says
  // when to retry (a disabled admin API is configuration: the one 503 without Retry-After); a 405 says what is allowed.
  const problem = type === "application/problem+json";
  const retryable = res.status === 429 || (res.status === 503 && body.title !== "Admin API disabled");
  expect({
    problem: problem ? body.status : null,
    retryAfter: retryable ? Number(res.headers.get("retry-after")) > 0 : null,
    allow: res.status === 405 ? res.headers.get("allow") : null,
  }).toEqual({
    problem: problem ? res.status : null,
    retryAfter: retryable ? true : null,
    allow: res.status === 405 ? allowedMethods().get(honoPath(route.path))?.join(", ") : null,
  });
  expect(problem || res.status < 400 || ((route.operationId === "itemPage" || route.operationId === "experimentPage") && res.status === 404)).toBe(true);
  seen.add(`${route.operationId} ${res.status}`);
  // 405 belongs to the path: every operation on it documents it.
  if (res.status === 405) for (const r of matching) seen.add(`${r.operationId} 405`);
  return body;
}

type Opts = { method?: string; headers?: Record<string, string>; env?: Record<string, unknown>; body?: unknown };

async function expectStatus(status: number, path: string, opts: Opts = {}) {
  const method = opts.method ?? "GET";
  const res =
    opts.body === undefined
      ? await get(path, opts.env ?? {}, opts.headers ?? {}, method)
      : await send(path, { method, headers: { "content-type": "application/json", ...opts.headers }, body: JSON.stringify(opts.body) }, opts.env ?? {});
  expect(res.status, `${method} ${path}`).toBe(status);
  return conforms(res, path, method);
}

const DATA_PATHS = [
  "/v1/search?q=chair",
  "/v1/suggest?q=ch",
  "/v1/items/1",
  "/v1/rounds",
  "/v1/compare?q=chair",
  "/v1/items/1/rounds",
  "/v1/query-sets",
  "/v1/query-set?set=labelled",
] as const;
/** The experiment dashboards' JSON and pages (experiment c-1 is started in "feedback and the admin API"). */
const EXPERIMENT_DATA_PATHS = ["/v1/experiments", "/v1/experiments/c-1", "/v1/experiments/c-1/series", "/v1/experiments/c-1/charts"] as const;
const EXPERIMENT_PATHS = [...EXPERIMENT_DATA_PATHS, "/experiments", "/experiments/c-1"] as const;
const ALL_PATHS = [...DATA_PATHS, "/healthz", "/readyz", "/openapi.json", "/", "/compare", "/queries", "/items/1", ...EXPERIMENT_PATHS] as const;
/** What reads storage once a round is published, and so is limited and can fail with it: the data routes and the item page. */
const SERVED_PATHS = [...DATA_PATHS, "/items/1"] as const;

describe("before any round is published", () => {
  it("answers 503 with Retry-After on search and items, an empty list of rounds, and readiness 503", async () => {
    expect((await expectStatus(503, "/v1/search?q=chair")).title).toBe("No round published");
    await expectStatus(503, "/v1/items/1");
    await expectStatus(503, "/v1/suggest?q=ch");
    await expectStatus(503, "/v1/compare?q=chair");
    await expectStatus(503, "/v1/items/1/rounds");
    await expectStatus(503, "/v1/query-set");
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
    expect((await expectStatus(200, "/v1/suggest?q=wood%20ch&limit=3")).suggestions).toHaveLength(3);
    expect(await expectStatus(200, "/readyz")).toEqual({ status: "ready", round: 0, checks: { catalog: "ok", shards: "ok", kv: "ok" } });
    const compared = await expectStatus(200, "/v1/compare?q=wood%20chair&limit=3");
    expect(compared.sides.map((s: { kind: string }) => s.kind)).toEqual(["round", "bm25"]);
    expect((await expectStatus(200, `/v1/items/${found.results[0].id}/rounds`)).rounds).toHaveLength(1);
    for (const path of ["/healthz", "/openapi.json", "/", "/compare", "/compare?q=chair", "/queries", `/items/${found.results[0].id}`])
      await expectStatus(200, path);
    expect((await expectStatus(200, "/v1/query-sets")).sets.map((s: { name: string }) => s.name)).toEqual(["labelled", "frequent"]);
    expect((await expectStatus(200, "/v1/query-set?set=frequent&limit=5")).sides).toHaveLength(2);
  });

  it("answers 404 for an unknown item, in any round, and for a compare side that is not published", async () => {
    expect((await expectStatus(404, "/v1/items/no-such-item")).detail).toMatch(/no-such-item/);
    expect((await expectStatus(404, "/v1/items/no-such-item/rounds")).detail).toMatch(/no-such-item/);
    expect((await expectStatus(404, "/v1/compare?q=chair&b=42")).parameter).toBe("b");
    expect((await expectStatus(404, "/v1/query-set?set=nope")).parameter).toBe("set");
    expect(await expectStatus(404, "/items/no-such-item")).toMatch(/^<!doctype html>/i);
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

  it("answers 429 with Retry-After once a client is over its limit, on every data route and the item page", async () => {
    for (const path of SERVED_PATHS) {
      const headers = { "cf-connecting-ip": `198.51.100.${SERVED_PATHS.indexOf(path)}` };
      for (let j = 0; j < env.TEST_RATE_LIMIT; j++) expect((await get(path, {}, headers)).status).not.toBe(429);
      // The limiter's window is fixed: on a loaded machine it can roll over inside the loop. Then fill the new one.
      if ((await get(path, {}, headers)).status !== 429) for (let j = 0; j < env.TEST_RATE_LIMIT; j++) await get(path, {}, headers);
      const body = await expectStatus(429, path, { headers });
      expect(body.retryAfter).toBe(60);
    }
  });

  it("answers 500 without internals when the deployment is misconfigured", async () => {
    for (const path of SERVED_PATHS) {
      const body = await expectStatus(500, path, { env: { SHARD_COUNT: "5" } });
      expect(body.detail).toBe("The server could not answer this request.");
    }
  });

  it("answers 503 when D1 fails inside the request", async () => {
    for (const path of SERVED_PATHS) {
      const body = await expectStatus(503, path, { env: { CATALOG: failingD1() } });
      expect(body.title).toBe("Storage unavailable");
      expect(JSON.stringify(body)).not.toMatch(/simulated|D1_ERROR/);
    }
    expect((await expectStatus(503, "/readyz", { env: { CATALOG: failingD1() } })).checks.catalog).toBe("failed");
  });
});

const token = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
const ADMIN_OPS: ReadonlyArray<{ method: string; path: string; body?: unknown }> = [
  { method: "GET", path: "/admin/experiments" },
  { method: "GET", path: "/admin/experiments/c-1" },
  {
    method: "POST",
    path: "/admin/experiments",
    body: {
      id: "c-x",
      design: "ab",
      arms: [
        { round: 0, weight: 5000 },
        { round: 1, weight: 5000 },
      ],
    },
  },
  {
    method: "PATCH",
    path: "/admin/experiments/c-1",
    body: {
      arms: [
        { round: 0, weight: 5000 },
        { round: 1, weight: 5000 },
      ],
    },
  },
  { method: "POST", path: "/admin/experiments/c-1/promote", body: { round: 1 } },
  { method: "POST", path: "/admin/experiments/c-1/rollback", body: {} },
  { method: "POST", path: "/admin/experiments/c-1/resume", body: {} },
];

describe("feedback and the admin API", () => {
  beforeAll(async () => {
    expect(await publish({ ...rounds.synthetic0, manifest: { ...rounds.synthetic0.manifest, round: 1 } })).not.toBe("unchanged");
  });

  it("feedback: 202, 400, 404, 429, 500 and 503", async () => {
    const found = (await get("/v1/search?q=wood%20chair").then((r) => r.json())) as { requestId: string; results: Array<{ id: string }> };
    const click = { requestId: found.requestId, itemId: found.results[0]?.id, type: "click" };
    await expectStatus(202, "/v1/feedback", { method: "POST", body: click });
    expect((await expectStatus(400, "/v1/feedback", { method: "POST", body: { ...click, type: "like" } })).parameter).toBe("type");
    await expectStatus(404, "/v1/feedback", { method: "POST", body: { ...click, requestId: "none" } });
    await expectStatus(500, "/v1/feedback", { method: "POST", body: click, env: { SHARD_COUNT: "5" } });
    await expectStatus(503, "/v1/feedback", { method: "POST", body: click, env: { EVENTS: failingD1() } });
    const headers = { "cf-connecting-ip": "198.51.100.77" };
    for (let j = 0; j < env.TEST_RATE_LIMIT; j++) await expectStatus(202, "/v1/feedback", { method: "POST", body: click, headers });
    await expectStatus(429, "/v1/feedback", { method: "POST", body: click, headers });
  });

  it("judgments: 201, 400, 401, 403, 404, 429, 500 and 503", async () => {
    const found = (await get("/v1/search?q=wood%20chair").then((r) => r.json())) as { results: Array<{ id: string }> };
    const judgment = { query: "wood chair", itemId: found.results[0]?.id, label: "Exact" };
    const o = { method: "POST", headers: token, body: judgment };
    expect((await expectStatus(201, "/v1/judgments", o)).rater).toBe("admin");
    expect((await expectStatus(400, "/v1/judgments", { ...o, body: { ...judgment, label: "Great" } })).parameter).toBe("label");
    await expectStatus(401, "/v1/judgments", { ...o, headers: {} });
    await expectStatus(403, "/v1/judgments", { ...o, headers: { authorization: "Bearer wrong" } });
    expect((await expectStatus(404, "/v1/judgments", { ...o, body: { ...judgment, itemId: "no-such-item" } })).parameter).toBe("itemId");
    await expectStatus(500, "/v1/judgments", { ...o, env: { SHARD_COUNT: "5" } });
    await expectStatus(503, "/v1/judgments", { ...o, env: { CATALOG: failingD1() } });
    expect((await expectStatus(503, "/v1/judgments", { ...o, env: { ADMIN_TOKEN: "" } })).title).toBe("Admin API disabled");
    const headers = { ...token, "cf-connecting-ip": "198.51.100.78" };
    for (let j = 0; j < env.TEST_RATE_LIMIT; j++) expect((await send("/v1/judgments", { method: "POST", headers, body: "{}" })).status).not.toBe(429);
    await expectStatus(429, "/v1/judgments", { ...o, headers });
  });

  it("admin: the lifecycle's 200s and 201, then 404 and 409", async () => {
    expect(
      (
        await expectStatus(201, "/admin/experiments", {
          method: "POST",
          headers: token,
          body: {
            ...(ADMIN_OPS[2]?.body as object),
            id: "c-1",
            arms: [
              { round: 0, weight: 9000 },
              { round: 1, weight: 1000 },
            ],
          },
        })
      ).experiment.id,
    ).toBe("c-1");
    await expectStatus(409, "/admin/experiments", { method: "POST", headers: token, body: ADMIN_OPS[2]?.body });
    await expectStatus(200, "/admin/experiments", { headers: token });
    const detail = await expectStatus(200, "/admin/experiments/c-1", { headers: token });
    expect(detail.report.verdict).toBe("no detectable difference yet");
    await expectStatus(200, "/admin/experiments/c-1", { method: "PATCH", headers: token, body: ADMIN_OPS[3]?.body });
    await expectStatus(200, "/admin/experiments/c-1/promote", { method: "POST", headers: token, body: { round: 1 } });
    for (const op of ADMIN_OPS.slice(3)) await expectStatus(409, op.path, { method: op.method, headers: token, body: op.body });
    await expectStatus(201, "/admin/experiments", { method: "POST", headers: token, body: { ...(ADMIN_OPS[2]?.body as object), id: "c-2" } });
    await expectStatus(200, "/admin/experiments/c-2/rollback", { method: "POST", headers: token, body: {} });
    for (const op of ADMIN_OPS.slice(1).filter((o) => o.path !== "/admin/experiments")) {
      await expectStatus(404, op.path.replace("c-1", "nope"), { method: op.method, headers: token, body: op.body });
    }
  });

  it("admin: resume after a guardrail pause, 200", async () => {
    const arms = [
      { round: 0, weight: 5000 },
      { round: 1, weight: 5000 },
    ];
    const start = { id: "c-3", design: "ab", arms, salt: "c-3", guardrails: { minSearches: 20 } };
    await expectStatus(201, "/admin/experiments", { method: "POST", headers: token, body: start });
    const honest = [...keysIn("c-3", arms, 0, 0, 40, "c3-c"), ...keysIn("c-3", arms, 0, 1, 40, "c3-t")];
    for (const [u, user] of honest.entries())
      expect((await get("/v1/search?q=wood%20chair", {}, { "x-user-id": user, "cf-connecting-ip": ownNetwork(u) })).status).toBe(200);
    // Zero-result searches into the treatment from one network: the guardrail pauses (experiment-attacks.test.ts has the why).
    for (const user of keysIn("c-3", arms, 0, 1, 60, "c3-z"))
      expect((await get("/v1/search?q=qqqq%20zzzz", unthrottled, { "x-user-id": user, "cf-connecting-ip": "198.51.100.99" })).status).toBe(200);
    await cron();
    expect((await expectStatus(200, "/admin/experiments/c-3", { headers: token })).experiment.state).toBe("paused");
    expect((await expectStatus(200, "/admin/experiments/c-3/resume", { method: "POST", headers: token, body: {} })).experiment.state).toBe("running");
    await expectStatus(200, "/admin/experiments/c-3/rollback", { method: "POST", headers: token, body: {} });
  });

  it("admin: 429 on every operation once an address is over the admin API's own limit", async () => {
    const crowded = { "cf-connecting-ip": "198.51.100.77" };
    // Until the first 429 (a fixed window may roll over once on the way), with a wrong token: the limit runs before the token check.
    for (let j = 0; j <= 2 * env.TEST_ADMIN_RATE_LIMIT; j++) {
      if ((await send("/admin/experiments", { headers: { ...crowded, authorization: "Bearer wrong" } })).status === 429) break;
    }
    for (const op of ADMIN_OPS) await expectStatus(429, op.path, { method: op.method, headers: { ...token, ...crowded }, body: op.body });
  });

  it("admin: 400, 401, 403, 405, 414, 431 and 503 on every operation", async () => {
    for (const op of ADMIN_OPS) {
      const o = { method: op.method, headers: token, body: op.body };
      await expectStatus(400, `${op.path}?x=1&x=2`, o);
      await expectStatus(401, op.path, { ...o, headers: {} });
      await expectStatus(403, op.path, { ...o, headers: { authorization: "Bearer wrong" } });
      await expectStatus(405, op.path, { ...o, method: "DELETE" });
      await expectStatus(414, `${op.path}?pad=${"p".repeat(8200)}`, o);
      await expectStatus(431, op.path, { ...o, headers: { ...token, cookie: "c".repeat(9000) } });
      expect((await expectStatus(503, op.path, { ...o, env: { ADMIN_TOKEN: "" } })).title).toBe("Admin API disabled");
    }
    for (const op of [
      { method: "POST", path: "/v1/feedback", body: {} },
      { method: "POST", path: "/v1/judgments", body: {} },
    ]) {
      await expectStatus(400, `${op.path}?x=%ED%A0%80`, op);
      await expectStatus(405, op.path, { method: "DELETE" });
      await expectStatus(414, `${op.path}?pad=${"p".repeat(8200)}`, op);
      await expectStatus(431, op.path, { ...op, headers: { cookie: "c".repeat(9000) } });
    }
  });
});

describe("the experiment dashboards", () => {
  it("answer 200 for an ended experiment without a token, 404 for an unknown one, 429, 500 and 503", async () => {
    expect((await expectStatus(200, "/v1/experiments")).experiments.length).toBeGreaterThan(0);
    expect((await expectStatus(200, "/v1/experiments/c-1")).experiment).toMatchObject({ id: "c-1", disclosed: true });
    expect((await expectStatus(200, "/v1/experiments/c-1/series")).disclosed).toBe(true);
    expect((await expectStatus(200, "/v1/experiments/c-1/charts?width=480")).disclosed).toBe(true);
    expect((await expectStatus(400, "/v1/experiments/c-1/charts?width=100000")).parameter).toBe("width");
    for (const path of ["/experiments", "/experiments/c-1"]) await expectStatus(200, path);
    for (const path of ["/v1/experiments/nope", "/v1/experiments/nope/series", "/v1/experiments/nope/charts"])
      expect((await expectStatus(404, path)).detail).toMatch(/nope/);
    expect(await expectStatus(404, "/experiments/nope")).toMatch(/^<!doctype html>/i);
    for (const path of EXPERIMENT_DATA_PATHS) await expectStatus(500, path, { env: { SHARD_COUNT: "5" } });
    for (const path of [...EXPERIMENT_DATA_PATHS, "/experiments/c-1"]) {
      expect((await expectStatus(503, path, { env: { CATALOG: failingD1() } })).title).toBe("Storage unavailable");
      const headers = { "cf-connecting-ip": `198.51.100.${30 + EXPERIMENT_PATHS.indexOf(path as (typeof EXPERIMENT_PATHS)[number])}` };
      for (let j = 0; j < env.TEST_RATE_LIMIT; j++) expect((await get(path, {}, headers)).status).not.toBe(429);
      await expectStatus(429, path, { headers });
    }
  });
});

afterAll(() => {
  const documented = ROUTES.flatMap((r) => Object.keys(r.responses).map((s) => `${r.operationId} ${s}`));
  expect([...documented].filter((d) => !seen.has(d))).toEqual([]);
});
