/**
 * The workbench's query sets, judgments and aligned compare in workerd over real local D1/KV:
 * rows aligned by item with rank changes and the rankings' overlap, judgments stored and merged
 * with file labels (newer wins), and two sides over a query set with a paired summary.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { jaccardAt, rboAt } from "../../core/overlap.js";
import { get, getJson, publish, send, testRounds } from "./helpers.js";

const rounds = await testRounds();
const blend = { ...rounds.syntheticBlend, manifest: { ...rounds.syntheticBlend.manifest, round: 4 } };
const JUDGE_TOKEN = "judge-token-0123456789abcdef-0123456789";
const judgeEnv = { JUDGE_TOKEN };

type Metrics = { relevant: number; retrieved: number; hits: number; p: number; r: number; f1: number; ndcg10: number; ndcg100: number };
type Side = {
  kind: string;
  round: number;
  total: number;
  metrics: Metrics | null;
  unjudgedTop10: number;
  results: Array<{ id: string; rank: number; label?: string | null }>;
};
type Compare = {
  labelled: boolean;
  sides: [Side, Side];
  overlap: { jaccard10: number; jaccard100: number; rbo10: number; rbo100: number };
  aligned: Array<{ id: string; ranks: [number | null, number | null]; change: { kind: string; by?: number } }>;
};
type QuerySide = { retrieved: number | null; metrics: Metrics | null; unjudgedTop10: number };
type Paired = {
  queries: number;
  meanA: number;
  meanB: number;
  meanDelta: number;
  ci95: [number, number];
  wins: number;
  losses: number;
  ties: number;
  signTestP: number;
};
type QuerySet = {
  set: string;
  size: number;
  summary: { f1: Paired; ndcg10: Paired; ndcg100: Paired };
  queries: Array<{ query: string; labelled: boolean; a: QuerySide; b: QuerySide; delta: { f1: number; ndcg10: number; ndcg100: number } | null }>;
};

const judge = (body: unknown, token = JUDGE_TOKEN) =>
  send(
    "/v1/judgments",
    { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(body) },
    judgeEnv,
  );

beforeAll(async () => {
  expect(await publish(rounds.synthetic0)).toBe("published");
  expect(await publish(blend)).toBe("published");
});

describe("GET /v1/compare, aligned", () => {
  it("aligns the rows by item, with each one's rank on both sides and its change, and gives the overlap at 10 and 100", async () => {
    const { body } = await getJson<Compare>("/v1/compare?q=wood%20chair&a=4&b=0&limit=100");
    const [a, b] = body.sides.map((s) => s.results.map((r) => r.id)) as [string[], string[]];
    expect(a.length).toBeGreaterThan(10);
    expect(body.overlap).toEqual({ jaccard10: jaccardAt(a, b, 10), jaccard100: jaccardAt(a, b, 100), rbo10: rboAt(a, b, 10), rbo100: rboAt(a, b, 100) });
    // Every shown item once: the left's in order, then the right's the left lacks.
    expect(body.aligned.map((r) => r.id)).toEqual([...a, ...b.filter((id) => !a.includes(id))]);
    for (const row of body.aligned) {
      const ra = a.indexOf(row.id) + 1 || null;
      const rb = b.indexOf(row.id) + 1 || null;
      expect(row.ranks).toEqual([ra, rb]);
      const expected =
        rb === null
          ? { kind: "new" }
          : ra === null
            ? { kind: "gone" }
            : rb === ra
              ? { kind: "same", by: 0 }
              : { kind: rb > ra ? "up" : "down", by: Math.abs(rb - ra) };
      expect(row.change).toEqual(expected);
    }
    expect(new Set(body.aligned.map((r) => r.change.kind)).size).toBeGreaterThan(1);
  });

  it("finds a side identical to itself: overlap 1, every row the same rank", async () => {
    const { body } = await getJson<Compare>("/v1/compare?q=wood%20chair&a=4&b=4");
    expect([body.overlap.jaccard10, body.overlap.jaccard100]).toEqual([1, 1]);
    // RBO_ext of identical lists is 1 up to the float sum of its geometric series.
    expect(body.overlap.rbo10).toBeCloseTo(1, 12);
    expect(body.overlap.rbo100).toBeCloseTo(1, 12);
    expect(body.aligned.length).toBeGreaterThan(0);
    expect(body.aligned.filter((r) => r.change.kind !== "same")).toEqual([]);
  });
});

describe("POST /v1/judgments", () => {
  it("stores a judgment with its rater, which /v1/compare then shows; a later one by the same rater replaces it", async () => {
    const { body: before } = await getJson<Compare>("/v1/compare?q=oak%20table&a=4&b=0");
    const item = before.sides[0].results[0]?.id as string;
    expect(before.labelled).toBe(false);
    const res = await judge({ query: "  Oak TABLE ", itemId: item, label: "Partial", rater: "ana" });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ query: "oak table", itemId: item, label: "Partial", rater: "ana" });
    expect((await judge({ query: "oak table", itemId: item, label: "Exact", rater: "ana" })).status).toBe(201);
    const { body } = await getJson<Compare>("/v1/compare?q=oak%20table&a=4&b=0");
    expect(body.labelled).toBe(true);
    expect(body.sides[0].results[0]?.label).toBe("Exact");
    expect(body.sides[0].metrics?.relevant).toBe(1);
    expect(body.sides[0].unjudgedTop10).toBe(Math.min(10, body.sides[0].results.length) - 1);
    const rows = await env.CATALOG.prepare("SELECT rater, label FROM judgments WHERE query = 'oak table'").all();
    expect(rows.results).toEqual([{ rater: "ana", label: "Exact" }]);
  });

  it("lets a file label win over an older judgment, and a newer judgment win over the file label", async () => {
    const { body } = await getJson<Compare>("/v1/compare?q=metal%20desk&a=4&b=0");
    const [x, y] = body.sides[0].results.map((r) => r.id) as [string, string];
    const file = env.CATALOG.prepare("INSERT INTO labels (query, item_id, label, loaded_at) VALUES (?, ?, ?, ?)");
    const past = "2020-01-01T00:00:00.000Z";
    const future = "2999-01-01T00:00:00.000Z";
    await env.CATALOG.batch([file.bind("metal desk", x, "Irrelevant", past), file.bind("metal desk", y, "Irrelevant", future)]);
    expect((await judge({ query: "metal desk", itemId: x, label: "Exact" })).status).toBe(201);
    expect((await judge({ query: "metal desk", itemId: y, label: "Exact" })).status).toBe(201);
    const after = (await getJson<Compare>("/v1/compare?q=metal%20desk&a=4&b=0")).body.sides[0].results;
    expect(after.filter((r) => r.id === x || r.id === y).map((r) => [r.id, r.label])).toEqual([
      [x, "Exact"],
      [y, "Irrelevant"],
    ]);
  });

  it("needs the judge or the admin token, compared exactly; without one configured judging is off", async () => {
    const item = blend.items[0]?.id as string;
    const body = { query: "chair", itemId: item, label: "Exact" };
    expect((await judge(body, env.ADMIN_TOKEN as string)).status).toBe(201);
    expect((await judge(body, `${JUDGE_TOKEN}x`)).status).toBe(403);
    const none = await send("/v1/judgments", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, judgeEnv);
    expect(none.status).toBe(401);
    const off = await send(
      "/v1/judgments",
      { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${JUDGE_TOKEN}` }, body: JSON.stringify(body) },
      { ADMIN_TOKEN: "", JUDGE_TOKEN: "" },
    );
    expect(off.status).toBe(503);
  });

  it.each([
    [{ itemId: "1", label: "Exact" }, 400, "query"],
    [{ query: "chair", itemId: "1", label: "Great" }, 400, "label"],
    [{ query: "chair", label: "Exact" }, 400, "itemId"],
    [{ query: "chair", itemId: "1", label: "Exact", extra: 1 }, 400, "body"],
    [{ query: "   ", itemId: "1", label: "Exact" }, 400, "query"],
    [{ query: "chair", itemId: "<b>no-such</b>", label: "Exact" }, 404, "itemId"],
  ])("%j → %i problem naming %s", async (body, status, parameter) => {
    const res = await judge(body);
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(((await res.json()) as { parameter?: string }).parameter).toBe(parameter);
  });
});

describe("GET /v1/query-set", () => {
  it("gives each labelled query both sides' metrics, as /v1/compare does, sorted by NDCG@10 delta, worst first, with a paired summary", async () => {
    const { res, body } = await getJson<QuerySet>("/v1/query-set?set=labelled&a=4&b=0");
    expect(res.status).toBe(200);
    expect(body.set).toBe("labelled");
    // The earlier tests judged or labelled these.
    expect(body.queries.map((q) => q.query).sort()).toEqual(["chair", "metal desk", "oak table"]);
    for (const row of body.queries) {
      const c = (await getJson<Compare>(`/v1/compare?q=${encodeURIComponent(row.query)}&a=4&b=0`)).body;
      expect([row.a.metrics, row.b.metrics]).toEqual([c.sides[0].metrics, c.sides[1].metrics]);
      expect([row.a.retrieved, row.b.retrieved]).toEqual([c.sides[0].total, c.sides[1].total]);
      expect([row.a.unjudgedTop10, row.b.unjudgedTop10]).toEqual([c.sides[0].unjudgedTop10, c.sides[1].unjudgedTop10]);
      expect(row.delta?.ndcg10).toBe((row.a.metrics?.ndcg10 ?? Number.NaN) - (row.b.metrics?.ndcg10 ?? Number.NaN));
    }
    const deltas = body.queries.map((q) => q.delta?.ndcg10 ?? Number.NaN);
    expect(deltas).toEqual([...deltas].sort((x, y) => x - y));
    const s = body.summary.ndcg10;
    expect(s.queries).toBe(3);
    expect(s.meanDelta).toBeCloseTo(deltas.reduce((t, d) => t + d, 0) / 3, 12);
    expect(s.wins + s.losses + s.ties).toBe(3);
    expect(s.ci95[0]).toBeLessThanOrEqual(s.meanDelta);
    expect(s.ci95[1]).toBeGreaterThanOrEqual(s.meanDelta);
  });

  it("reads an uploaded set in its order, and the most frequent queries of the search events", async () => {
    const put = env.CATALOG.prepare("INSERT INTO query_sets (name, position, query) VALUES (?, ?, ?)");
    await env.CATALOG.batch([put.bind("mine", 0, "sofa"), put.bind("mine", 1, "wood chair")]);
    const mine = (await getJson<QuerySet>("/v1/query-set?set=mine&a=4&b=bm25")).body;
    expect(mine.size).toBe(2);
    expect(mine.queries.map((q) => [q.query, q.labelled, q.b.retrieved, q.delta])).toEqual([
      ["sofa", false, null, null],
      ["wood chair", false, null, null],
    ]);
    for (const q of ["lamp", "lamp", "lamp", "sofa", "sofa", "desk"]) expect((await get(`/v1/search?q=${q}`)).status).toBe(200);
    const frequent = (await getJson<QuerySet>("/v1/query-set?set=frequent&limit=2")).body;
    expect(frequent.queries.map((q) => q.query).sort()).toEqual(["lamp", "sofa"]);
    const sets = (await getJson<{ sets: Array<{ name: string; kind: string; queries: number }> }>("/v1/query-sets")).body.sets;
    expect(sets).toEqual([
      { name: "labelled", kind: "labelled", queries: 3 },
      { name: "frequent", kind: "frequent", queries: 3 },
      { name: "mine", kind: "uploaded", queries: 2 },
    ]);
  });

  it("answers an unknown set with 404 and a bad one with 400, naming set", async () => {
    for (const [url, status] of [
      ["/v1/query-set?set=nope", 404],
      ["/v1/query-set?set=a%20b", 400],
      ["/v1/query-set?limit=501", 400],
    ] as const) {
      const res = await get(url);
      expect(res.status).toBe(status);
      expect(((await res.json()) as { parameter?: string }).parameter).toBe(url.includes("limit") ? "limit" : "set");
    }
  });
});

describe("item details", () => {
  it("gives an item's description and features on /v1/items/:id/rounds once loaded, null before", async () => {
    const id = blend.items[5]?.id as string;
    expect((await getJson<{ details: unknown }>(`/v1/items/${id}/rounds`)).body.details).toBeNull();
    await env.CATALOG.prepare("INSERT INTO item_details (id, description, features) VALUES (?, ?, ?)")
      .bind(id, "a <b>sturdy</b> chair", JSON.stringify([["color", "red"]]))
      .run();
    expect((await getJson<{ details: unknown }>(`/v1/items/${id}/rounds`)).body.details).toEqual({
      description: "a <b>sturdy</b> chair",
      features: [["color", "red"]],
    });
  });
});
