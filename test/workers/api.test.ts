import { beforeAll, describe, expect, it } from "vitest";
import { get, getJson, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

describe("before any round is published", () => {
  it("answers search with a 503 problem, and health with ok", async () => {
    const res = await get("/v1/search?q=chair");
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(((await res.json()) as { title: string }).title).toBe("No round published");
    expect((await get("/healthz")).status).toBe(200);
  });
});

describe("the API over a published round", () => {
  beforeAll(async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
  });

  it("searches end to end", async () => {
    const { res, body } = await getJson<{
      query: string;
      round: number;
      keywords: string[];
      keywordSource: string;
      total: number;
      results: Array<{ id: string; name: string; class: string; score: number }>;
      tookMs: number;
    }>("/v1/search?q=%20wood%20chair%20&limit=5");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(body.query).toBe("wood chair");
    expect(body.round).toBe(0);
    expect(body.keywordSource).toBe("policy");
    expect(body.keywords.length).toBeGreaterThan(0);
    expect(body.total).toBeGreaterThan(5);
    expect(body.results).toHaveLength(5);
    expect(body.results[0]?.name).toMatch(/chair/);
    const scores = body.results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(typeof body.tookMs).toBe("number");
  });

  it("pages with limit and offset", async () => {
    const all = (await getJson<{ results: Array<{ id: string }>; total: number }>("/v1/search?q=table&limit=100")).body;
    const page = (await getJson<{ results: Array<{ id: string }>; total: number }>("/v1/search?q=table&limit=3&offset=2")).body;
    expect(page.total).toBe(all.total);
    expect(page.results.map((r) => r.id)).toEqual(all.results.slice(2, 5).map((r) => r.id));
    const past = (await getJson<{ results: unknown[] }>(`/v1/search?q=table&offset=${all.total + 5}`)).body;
    expect(past.results).toEqual([]);
  });

  it.each([
    ["/v1/search", "q"],
    ["/v1/search?q=%20%20", "q"],
    [`/v1/search?q=${"a".repeat(257)}`, "q"],
    ["/v1/search?q=chair&limit=0", "limit"],
    ["/v1/search?q=chair&limit=101", "limit"],
    ["/v1/search?q=chair&limit=ten", "limit"],
    ["/v1/search?q=chair&limit=1.5", "limit"],
    ["/v1/search?q=chair&offset=-1", "offset"],
    ["/v1/search?q=chair&offset=x", "offset"],
  ])("rejects %s with a 400 problem naming %s", async (path, parameter) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = (await res.json()) as { status: number; parameter: string; detail: string };
    expect(body.status).toBe(400);
    expect(body.parameter).toBe(parameter);
    expect(body.detail).not.toMatch(/at .*\.ts/);
  });

  it("accepts a 256-character query", async () => {
    expect((await get(`/v1/search?q=${"a".repeat(256)}`)).status).toBe(200);
  });

  it("returns items by id and 404s unknown ones", async () => {
    const { body } = await getJson<{ results: Array<{ id: string; name: string }> }>("/v1/search?q=lamp&limit=1");
    const id = body.results[0]?.id as string;
    const item = await getJson<{ id: string; name: string; keywords: string[]; round: number }>(`/v1/items/${id}`);
    expect(item.res.status).toBe(200);
    expect(item.body.name).toBe(body.results[0]?.name);
    expect(Array.isArray(item.body.keywords)).toBe(true);
    const missing = await get("/v1/items/no-such-item");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
  });

  it("404s unknown routes as problems", async () => {
    const res = await get("/v2/whatever");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });

  it("lists rounds with their public manifest fields", async () => {
    const { body } = await getJson<{ rounds: Array<Record<string, unknown>> }>("/v1/rounds");
    expect(body.rounds).toHaveLength(1);
    expect(body.rounds[0]).toMatchObject({ round: 0, shards: 4, items: 150, version: 2 });
    expect(body.rounds[0]).not.toHaveProperty("contentHash");
  });

  it("serves an OpenAPI document and the search page", async () => {
    const spec = (await getJson<{ openapi: string; paths: Record<string, unknown> }>("/openapi.json")).body;
    expect(spec.openapi).toBe("3.1.0");
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(["/v1/search", "/v1/items/{id}", "/v1/rounds", "/healthz"]));
    const page = await get("/");
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain("/v1/search?");
    expect(html).not.toMatch(/innerHTML/);
  });

  it("answers CORS preflight for GET", async () => {
    const res = await get("/v1/search?q=x", {}, { origin: "https://example.com", "access-control-request-method": "GET" }, "OPTIONS");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("GET");
  });
});
