/** The relevance workbench's API in workerd over real local D1/KV: explain=1, /v1/compare (labels too), /v1/items/:id/rounds, the pages. */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { itemKeywordSet } from "../../core/inverted-index.js";
import { f1FromCounts } from "../../core/metrics.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { ndcgAt } from "../../core/overlap.js";
import { loadQueryGenerator } from "../../core/query-generator.js";
import { planQuery } from "../../core/retrieve.js";
import { wireIndex } from "../support/wire-round.js";
import { get, getJson, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();
const blend = { ...rounds.syntheticBlend, manifest: { ...rounds.syntheticBlend.manifest, round: 4 } };

type Explained = { id: string; score: number; related: boolean; explain: { keywords: string[]; words: Array<{ word: string; score: number }> } };
type Side = {
  kind: string;
  round: number;
  label: string;
  available: boolean;
  unjudgedTop10: number;
  ranker: string;
  keywords: string[];
  total: number;
  metrics: { relevant: number; retrieved: number; hits: number; p: number; r: number; f1: number; ndcg10: number; ndcg100: number } | null;
  results: Array<Explained & { rank: number; inOther: boolean; label?: string | null }>;
};
type Compare = { query: string; labelled: boolean; sides: [Side, Side] };

beforeAll(async () => {
  expect(await publish(rounds.synthetic0)).toBe("published");
  expect(await publish(blend)).toBe("published");
});

describe("GET /v1/search?explain=1", () => {
  it("says which keywords hit each result and what each word adds, summing to its score", async () => {
    const { res, body } = await getJson<{ keywords: string[]; query: string; total: number; results: Explained[] }>(
      "/v1/search?q=wood%20chair&limit=100&explain=1",
    );
    expect(res.status).toBe(200);
    const items = new Map(blend.items.map((it) => [it.id, it]));
    const plan = planQuery(body.keywords, body.query);
    expect(body.results.some((r) => r.related)).toBe(body.total < 100);
    for (const r of body.results) {
      const sum = r.explain.words.reduce((s, w) => s + w.score, 0);
      expect(sum).toBe(r.score);
      const own = new Set(itemKeywordSet(items.get(r.id) as { name: string; keywords: readonly string[] }));
      // In I_ret(q): at least one plan keyword the item holds, exactly those; in the tail: none.
      expect(r.explain.keywords).toEqual(plan.keywords.filter((k) => own.has(k)));
      expect(r.explain.keywords.length > 0).toBe(!r.related);
      for (const w of r.explain.words) expect(plan.words).toContain(w.word);
    }
    const plain = (await getJson<{ results: Array<{ explain?: unknown }> }>("/v1/search?q=wood%20chair&limit=5")).body;
    expect(plain.results).toHaveLength(5);
    expect(plain.results.filter((r) => r.explain !== undefined)).toEqual([]);
  });
});

describe("GET /v1/compare", () => {
  it("shows the newest two rounds side by side, each as it serves, with shared results marked", async () => {
    const { res, body } = await getJson<Compare>("/v1/compare?q=chair");
    expect(res.status).toBe(200);
    const [a, b] = body.sides;
    expect([a.round, b.round]).toEqual([4, 0]);
    expect([a.ranker, b.ranker]).toEqual(["blend 4:1", "keywords"]);
    expect(body.labelled).toBe(false);
    expect(a.metrics).toBeNull();
    // The left side is what search serves (round 4 is the newest).
    const served = (await getJson<{ total: number; results: Array<{ id: string; score: number }> }>("/v1/search?q=chair&limit=20")).body;
    expect(a.results.map((r) => [r.id, r.score])).toEqual(served.results.map((r) => [r.id, r.score]));
    expect(a.total).toBe(served.total);
    // The right side is core's over round 0.
    const index = wireIndex(rounds.synthetic0);
    const generate = loadQueryGenerator(rounds.synthetic0.queryGenerator) as (q: string) => string[];
    const page = index.search(planQuery(generate("chair"), "chair"), { limit: 20, related: true });
    expect(b.results.map((r) => r.id)).toEqual(page.hits.map((h) => index.ids[h.item]));
    const ids = (s: Side) => new Set(s.results.map((r) => r.id));
    for (const [s, other] of [
      [a, b],
      [b, a],
    ] as const) {
      expect(s.results.map((r) => r.rank)).toEqual(s.results.map((_, j) => j + 1));
      for (const r of s.results) expect(r.inOther).toBe(ids(other).has(r.id));
    }
  });

  it("compares a round with the evaluation's BM25, read from the run stored for the query", async () => {
    const missing = (await getJson<Compare>("/v1/compare?q=grey%20velvet%20sofa&a=0&b=bm25")).body.sides[1];
    expect([missing.kind, missing.available, missing.results, missing.metrics]).toEqual(["bm25", false, [], null]);
    // A run as `npm run labels` stores it: ids in rank order with their BM25 scores, to max(cutoff, 100), and the cutoff.
    const ranked = rounds.synthetic0.items.slice(0, 12).map((it, j) => [it.id, 20 - j]);
    await env.CATALOG.prepare("INSERT INTO bm25_runs (query, ranked, cutoff, tuned_on, split_round) VALUES (?, ?, ?, ?, ?)")
      .bind("grey velvet sofa", JSON.stringify(ranked), 5, 40, 0)
      .run();
    const { body } = await getJson<Compare>("/v1/compare?q=Grey%20Velvet%20Sofa&a=0&b=bm25&limit=10");
    const bm25 = body.sides[1];
    expect([bm25.kind, bm25.round, bm25.available, bm25.ranker]).toEqual(["bm25", 0, true, "bm25"]);
    expect(bm25.label).toBe("BM25 over the item text, cutoff 5 tuned on 40 training queries");
    expect(bm25.total).toBe(5);
    expect(bm25.results.map((r) => [r.id, r.score])).toEqual(ranked.slice(0, 10));
    expect(bm25.keywords).toEqual([]);
  });

  it("with labels loaded, labels each result and gives each side its P/R/F1", async () => {
    const index = wireIndex(blend);
    const generate = loadQueryGenerator(blend.queryGenerator) as (q: string) => string[];
    const all = index.search(planQuery(generate("chair"), "chair"));
    const retrieved = new Set(all.hits.map((h) => index.ids[h.item]));
    // Label a few retrieved items Exact, one Irrelevant, and two items it does not retrieve Partial.
    const inSet = [...retrieved].slice(0, 4);
    const outside = index.ids.filter((id) => !retrieved.has(id)).slice(0, 2);
    const rows = [...inSet.slice(0, 3).map((id) => [id, "Exact"]), [inSet[3], "Irrelevant"], ...outside.map((id) => [id, "Partial"])];
    const labelOf = new Map(rows.map(([id, l]) => [id, l]));
    await env.CATALOG.batch(
      rows.map(([id, label]) => env.CATALOG.prepare("INSERT INTO labels (query, item_id, label) VALUES (?, ?, ?)").bind(normalizeKeyword("Chair"), id, label)),
    );
    const { body } = await getJson<Compare>("/v1/compare?q=Chair&a=4&b=bm25");
    expect(body.labelled).toBe(true);
    const [round, bm25] = body.sides;
    const relevant = 5;
    const top = index.search(planQuery(generate("chair"), "chair"), { limit: 100, related: true }).hits.map((h) => index.ids[h.item] as string);
    const relevantIds = new Set([...inSet.slice(0, 3), ...outside] as string[]);
    expect(round.metrics).toEqual({
      relevant,
      retrieved: all.total,
      hits: 3,
      p: 3 / all.total,
      r: 3 / relevant,
      f1: f1FromCounts(3, all.total, relevant),
      ndcg10: ndcgAt(top, relevantIds, 10),
      ndcg100: ndcgAt(top, relevantIds, 100),
    });
    expect(round.unjudgedTop10).toBe(top.slice(0, 10).filter((id) => !labelOf.has(id)).length);
    expect(bm25.metrics).toBeNull(); // no BM25 run stored for "chair"
    for (const r of round.results) expect(r.label).toBe(labelOf.get(r.id) ?? null);
  });

  it.each([
    ["/v1/compare?q=chair&a=bm25&b=bm25", 400, "b"],
    ["/v1/compare?q=chair&a=x", 400, "a"],
    ["/v1/compare?q=chair&a=99", 404, "a"],
    ["/v1/compare?q=%20", 400, "q"],
    ["/v1/compare?q=chair&limit=101", 400, "limit"],
    ["/v1/search?q=chair&explain=2", 400, "explain"],
  ])("%s → %i problem naming %s", async (url, status, parameter) => {
    const res = await get(url);
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(((await res.json()) as { parameter?: string }).parameter).toBe(parameter);
  });
});

describe("GET /v1/items/:id/rounds and the pages", () => {
  it("gives an item's keywords in every published round, newest first", async () => {
    const id = blend.items[3]?.id as string;
    const { res, body } = await getJson<{ id: string; name: string; rounds: Array<{ round: number; keywords: string[] }> }>(`/v1/items/${id}/rounds`);
    expect(res.status).toBe(200);
    expect(body.id).toBe(id);
    expect(body.rounds.map((r) => r.round)).toEqual([4, 0]);
    expect(body.rounds[1]?.keywords).toEqual(rounds.synthetic0.items[3]?.keywords);
    const missing = await get("/v1/items/no-such-item/rounds");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
  });

  it("answers an item no published round holds with the item page and a 404 status, one it holds with 200", async () => {
    for (const [path, status] of [
      ["/items/999999", 404],
      [`/items/${encodeURIComponent("<i>nope</i>")}`, 404],
      [`/items/${blend.items[3]?.id}`, 200],
    ] as const) {
      const res = await get(path);
      expect([path, res.status, res.headers.get("content-type")]).toEqual([path, status, "text/html; charset=UTF-8"]);
      expect(await res.text()).toMatch(/<title>[^<]*item/i);
    }
  });

  it("limits the item page (it reads the catalogue) like the API: one client meets a 429", async () => {
    // Limits count in fixed windows: 2 × limit + 1 requests from one address span at most two of them, so one overflows.
    const headers = { "cf-connecting-ip": "203.0.113.77", "x-cogr-user": "page-reader" };
    const statuses: number[] = [];
    for (let j = 0; j <= 2 * env.TEST_RATE_LIMIT && !statuses.includes(429); j++) statuses.push((await get("/items/12", {}, headers)).status);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses.at(-1)).toBe(429);
  });

  it.each(["/", "/compare?q=chair", "/queries", "/items/12"])("serves %s as a page whose script carries the CSP nonce", async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce).toBeTruthy();
    const html = await res.text();
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).not.toMatch(/innerHTML|insertAdjacentHTML|document\.write/);
  });
});
