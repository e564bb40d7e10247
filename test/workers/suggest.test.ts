/**
 * GET /v1/suggest in workerd on real local D1/KV: the keyword buckets a
 * publish writes, answers against the reference (every keyword of the round
 * in one bucket), kinds, typos, per-round answers, 400s, and popular queries
 * from real searches through the cron.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { SUGGEST_QUERIES_KEY, suggestKeywordKey } from "../../core/contract.js";
import { parsePostingLine } from "../../core/round-format.js";
import { POSTING_PREFIX } from "../../core/shard.js";
import { rankSuggestions, SUGGEST_FORMAT, SUGGEST_VERSION, SuggestBuilder, type Suggestion, typedWords } from "../../core/suggest.js";
import { unpublishRound } from "../../publish/publisher.js";
import { POPULAR_QUERY_LIMITS } from "../../workers/search/suggest-queries.js";
import type { WireRound } from "../support/wire-round.js";
import { cron } from "./experiment-traffic.js";
import { clearIsolateCaches, get, publish, target, testRounds } from "./helpers.js";

const rounds = await testRounds();

/** The round's keywords and their df, straight from its postings. */
const keywordDf = (r: WireRound): Array<[string, number]> =>
  r.postings
    .map(parsePostingLine)
    .filter((p) => p.key.startsWith(POSTING_PREFIX.keyword))
    .map((p) => [p.key.slice(POSTING_PREFIX.keyword.length), p.count]);

/** What the route must answer: every keyword of the round in one bucket, ranked by core (the buckets hold them all at this size). */
const reference = (r: WireRound, q: string, limit = 8): Suggestion[] =>
  rankSuggestions(typedWords(q), [{ format: SUGGEST_FORMAT, version: SUGGEST_VERSION, kind: "keyword", entries: keywordDf(r) }], limit);

async function suggest(q: string, extra = "") {
  const res = await get(`/v1/suggest?q=${encodeURIComponent(q)}${extra}`);
  const body = (await res.json()) as { query: string; suggestions: Suggestion[]; parameter?: string; status?: number };
  return { res, body };
}

describe("before any round is published", () => {
  it("answers 503 (no round)", async () => {
    const { res } = await suggest("vel");
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });
});

describe("over a published round", () => {
  beforeAll(async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
  });

  it("publishes the round's keyword buckets to KV, each as core builds it", async () => {
    const builder = new SuggestBuilder("keyword");
    for (const [k, df] of keywordDf(rounds.synthetic0)) builder.add(k, df);
    const want = builder.build();
    expect(want.size).toBeGreaterThan(5);
    const m = rounds.synthetic0.manifest;
    const listed = (await env.CACHE.list({ prefix: `sg:${m.round}:` })).keys.map((k) => k.name).sort();
    expect(listed).toEqual([...want.keys()].map((b) => suggestKeywordKey(m.round, m.contentHash, b)).sort());
    for (const [b, value] of want) expect(await env.CACHE.get(suggestKeywordKey(m.round, m.contentHash, b), "json")).toEqual(value);
  });

  it("answers keyword suggestions by df, as the reference ranks them, the last word a prefix", async () => {
    for (const q of ["vel", "velvet", "ch", "wood ch", "c", "WOOD  Ch!"]) {
      const want = reference(rounds.synthetic0, q);
      expect(want.length, q).toBeGreaterThan(0);
      const { res, body } = await suggest(q);
      expect(res.status).toBe(200);
      expect(body.query).toBe(q.trim());
      expect(body.suggestions).toEqual(want);
      expect(body.suggestions.map((s) => s.kind)).toEqual(want.map(() => "keyword"));
    }
    expect((await suggest("wood ch")).body.suggestions.map((s) => s.text)).toContain("wood chair");
  });

  it("tolerates a typo from five characters, none below", async () => {
    const exact = (await suggest("velvet")).body.suggestions;
    expect(exact.length).toBeGreaterThan(0);
    for (const typo of ["velvte", "vlevet", "velvrt"]) expect((await suggest(typo)).body.suggestions.map((s) => s.text)).toContain("velvet");
    expect((await suggest("vlev")).body.suggestions).toEqual([]);
    expect((await suggest("qqqqqqq")).body.suggestions).toEqual([]);
  });

  it("honours limit, and answers an empty list when nothing typed is a word", async () => {
    expect((await suggest("c", "&limit=2")).body.suggestions).toEqual(reference(rounds.synthetic0, "c", 2));
    expect((await suggest("c", "&limit=20")).body.suggestions).toHaveLength(Math.min(20, reference(rounds.synthetic0, "c", 20).length));
    expect((await suggest("!!!")).body.suggestions).toEqual([]);
  });

  it("answers 400 problems naming the parameter for a bad q or limit", async () => {
    for (const [path, parameter] of [
      ["/v1/suggest", "q"],
      ["/v1/suggest?q=%20%20", "q"],
      [`/v1/suggest?q=${"a".repeat(101)}`, "q"],
      ["/v1/suggest?q=ch&limit=0", "limit"],
      ["/v1/suggest?q=ch&limit=21", "limit"],
      ["/v1/suggest?q=ch&limit=2x", "limit"],
      ["/v1/suggest?q=%ED%A0%80", "q"],
      ["/v1/suggest?q=a&q=b", "q"],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(((await res.json()) as { parameter: string }).parameter, path).toBe(parameter);
    }
  });

  it("answers from the serving round's own buckets, and unpublishing a round takes its buckets", async () => {
    const trained = rounds.trained;
    expect(await publish(trained)).toBe("published");
    clearIsolateCaches();
    const q = "ch";
    expect((await suggest(q)).body.suggestions).toEqual(reference(trained, q));
    await unpublishRound(target(), trained.manifest.round, { evenIfServing: true });
    clearIsolateCaches();
    expect((await env.CACHE.list({ prefix: `sg:${trained.manifest.round}:` })).keys).toEqual([]);
    expect((await suggest(q)).body.suggestions).toEqual(reference(rounds.synthetic0, q));
  });
});

describe("popular queries", () => {
  beforeAll(async () => {
    expect(["published", "unchanged"]).toContain(await publish(rounds.synthetic0));
  });

  async function searchAs(q: string, user: string) {
    const res = await get(`/v1/search?q=${encodeURIComponent(q)}`, {}, { "x-user-id": user });
    expect(res.status).toBe(200);
    return ((await res.json()) as { total: number }).total;
  }

  it("come from searches of enough distinct users that found something, refreshed by the cron, before keywords", async () => {
    const floor = POPULAR_QUERY_LIMITS.minDistinctUsers;
    for (let u = 0; u < floor; u++) expect(await searchAs("Velvet  Chair", `shopper-${u}`)).toBeGreaterThan(0);
    // One client, many searches: under the floor of distinct users.
    for (let j = 0; j < 3 * floor; j++) await searchAs("velvet lamp", "one-client");
    for (let u = 0; u < floor - 1; u++) await searchAs("velvet rug", `few-${u}`);
    // Enough users, but nothing found.
    for (let u = 0; u < floor; u++) expect(await searchAs("velvetqq zzzz", `miss-${u}`)).toBe(0);
    expect(await env.CACHE.get(SUGGEST_QUERIES_KEY)).toBeNull();
    await cron();
    expect(await env.CACHE.get(SUGGEST_QUERIES_KEY)).not.toBeNull();
    const { body } = await suggest("velv");
    expect(body.suggestions[0]).toEqual({ text: "velvet chair", kind: "query" });
    const keywords = reference(rounds.synthetic0, "velv").filter((s) => s.text !== "velvet chair");
    expect(keywords.length).toBeGreaterThan(0);
    expect(body.suggestions.slice(1)).toEqual(keywords.slice(0, body.suggestions.length - 1));
    // One client's query, one under the floor and one that finds nothing are not offered as queries.
    expect(body.suggestions.filter((s) => s.kind === "query")).toEqual([{ text: "velvet chair", kind: "query" }]);
    const stored = JSON.stringify(await env.CACHE.get(SUGGEST_QUERIES_KEY, "json"));
    for (const planted of ["velvet lamp", "velvet rug", "velvetqq zzzz"]) expect(stored).not.toContain(planted);
    // A typo from five characters finds the query too; an earlier word is whole.
    expect((await suggest("velvte ch")).body.suggestions[0]).toEqual({ text: "velvet chair", kind: "query" });
  });

  it("are rebuilt at most hourly: a cron a minute later leaves the value as it was", async () => {
    const before = await env.CACHE.get(SUGGEST_QUERIES_KEY);
    expect(before).not.toBeNull();
    for (let u = 0; u < POPULAR_QUERY_LIMITS.minDistinctUsers; u++) await searchAs("glass table", `later-${u}`);
    await cron();
    expect(await env.CACHE.get(SUGGEST_QUERIES_KEY)).toBe(before);
  });
});
