/**
 * The experiment dashboards in workerd on real local D1/KV: what an
 * ordinary client and an admin may read (GET /v1/experiments…), the
 * figures against the live report, the series over time (its last look is
 * the report's), daily searches and purchases per arm, the guardrail's
 * history with its reason, and the pages' statuses and CSP.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { fnv1a32 } from "../../core/shard.js";
import { admin } from "./admin.js";
import { cron } from "./experiment-traffic.js";
import { failingD1 } from "./faults.js";
import { get, publish, send, testRounds } from "./helpers.js";

const rounds = await testRounds();
const adminView = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
const ipOf = (user: string) => {
  const h = fnv1a32(user);
  return `10.${(h >>> 16) & 255}.${(h >>> 8) & 255}.7`;
};
type Search = { requestId: string; results: Array<{ id: string }> };
const search = async (q: string, user: string) =>
  (await (await get(`/v1/search?q=${encodeURIComponent(q)}&limit=10`, {}, { "x-user-id": user, "cf-connecting-ip": ipOf(user) })).json()) as Search;
const feedback = (requestId: string, itemId: string, type: string) =>
  send("/v1/feedback", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ requestId, itemId, type }) });
// biome-ignore lint/suspicious/noExplicitAny: the tests read bodies loosely; the contract test checks their schemas
const read = async (path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; text: string }> => {
  const res = await get(path, {}, headers);
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : null, text };
};

beforeAll(async () => {
  const s0 = rounds.synthetic0;
  await publish(s0);
  // Round 3 ranks differently: every other keyword posting of round 0 dropped. Round 2 is broken: no keyword postings.
  let k = 0;
  await publish({ ...s0, manifest: { ...s0.manifest, round: 3 }, postings: s0.postings.filter((l) => !l.startsWith('["k:') || k++ % 2 === 0) });
  await publish({
    ...s0,
    manifest: { ...s0.manifest, round: 2 },
    header: { ...s0.header, keywords: 0 },
    postings: s0.postings.filter((l) => !l.startsWith('["k:')),
  });
});

describe("an A/B experiment's dashboard", () => {
  const users = Array.from({ length: 24 }, (_, j) => `dash-user-${j}`);
  let purchases = 0;

  beforeAll(async () => {
    const started = await admin("POST", "/admin/experiments", {
      id: "dash-ab",
      design: "ab",
      salt: "secret-salt-never-shown",
      arms: [
        { round: 0, weight: 5000 },
        { round: 3, weight: 5000 },
      ],
    });
    expect(started.res.status).toBe(201);
    for (const [j, u] of users.entries()) {
      for (const q of ["wood chair", "table"]) {
        const s = await search(q, u);
        const first = s.results[0];
        if (j % 2 === 0 && first) expect((await feedback(s.requestId, first.id, "click")).status).toBe(202);
        if (j % 6 === 0 && first && q === "table") {
          expect((await feedback(s.requestId, first.id, "purchase")).status).toBe(202);
          purchases++;
        }
      }
    }
  });

  it("withholds a live experiment's arms, figures and history from an ordinary client (a wrong token included), and never shows the salt", async () => {
    for (const headers of [{}, { authorization: "Bearer not-the-token-but-long-enough-to-look-right" }] as Array<Record<string, string>>) {
      const list = await read("/v1/experiments", headers);
      expect(list.status).toBe(200);
      expect(list.body.experiments).toHaveLength(1);
      expect(list.body.experiments[0]).toMatchObject({ id: "dash-ab", design: "ab", state: "running", disclosed: false, arms: null, control: null });
      const one = await read("/v1/experiments/dash-ab", headers);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ changes: null, report: null, purchases: null, experiment: { disclosed: false } });
      expect((await read("/v1/experiments/dash-ab/series", headers)).body).toEqual({ disclosed: false, series: null });
      for (const r of [list, one]) expect(r.text).not.toContain("secret-salt");
    }
  });

  it("shows an admin the arms with users, searches, CTR and purchases, SRM and the history, matching the admin report", async () => {
    const one = await read("/v1/experiments/dash-ab", adminView);
    expect(one.status).toBe(200);
    expect(one.text).not.toContain("secret-salt");
    expect(one.body.experiment).toMatchObject({
      disclosed: true,
      control: 0,
      arms: [
        { round: 0, weight: 5000 },
        { round: 3, weight: 5000 },
      ],
    });
    const live = (await admin("GET", "/admin/experiments/dash-ab")).body.report;
    expect(one.body.report.arms).toEqual(live.arms);
    expect(one.body.report.srm).toEqual(live.srm);
    const arms = one.body.report.arms as Array<{ arm: string; users: number; searches: number }>;
    expect(arms.map((a) => a.arm)).toEqual(["r0", "r3"]);
    expect(arms.reduce((s, a) => s + a.users, 0)).toBe(users.length);
    expect(arms.reduce((s, a) => s + a.searches, 0)).toBe(2 * users.length);
    const bought = one.body.purchases as Array<{ arm: string; purchases: number }>;
    expect(purchases).toBeGreaterThan(0);
    expect(bought.reduce((s, p) => s + p.purchases, 0)).toBe(purchases);
    expect(one.body.changes).toHaveLength(1);
    expect(one.body.changes[0]).toMatchObject({ actor: "admin", action: "start", state: "running" });
  });

  it("gives a series whose last look is the report's effect and confidence sequence, and daily searches per arm that add up", async () => {
    const { body } = await read("/v1/experiments/dash-ab/series", adminView);
    const report = (await admin("GET", "/admin/experiments/dash-ab")).body.report;
    const looks = body.series.looks as Array<{ at: number; arm: string; effect: number; confidenceSequence: [number, number]; users: number }>;
    expect(looks.length).toBeGreaterThanOrEqual(1);
    expect(looks.length).toBeLessThanOrEqual(12);
    expect(new Set(looks.map((l) => l.arm))).toEqual(new Set(["r3"]));
    expect(looks.map((l) => l.at)).toEqual([...looks.map((l) => l.at)].sort((a, b) => a - b));
    const last = looks.at(-1);
    expect(last?.effect).toBeCloseTo(report.comparisons[0].cuped.sequential.difference, 12);
    expect(last?.confidenceSequence[0]).toBeCloseTo(report.comparisons[0].cuped.sequential.confidenceSequence[0], 12);
    expect(last?.confidenceSequence[1]).toBeCloseTo(report.comparisons[0].cuped.sequential.confidenceSequence[1], 12);
    const daily = body.series.daily as Array<{ arm: string; searches: number; purchases: number }>;
    for (const a of report.arms as Array<{ arm: string; searches: number }>)
      expect(daily.filter((d) => d.arm === a.arm).reduce((s, d) => s + d.searches, 0)).toBe(a.searches);
    expect(daily.reduce((s, d) => s + d.purchases, 0)).toBe(purchases);
  });

  it("is public once ended, with the rollback's reason in the history, and still without the salt", async () => {
    const reason = '<img src=x onerror="alert(1)"> enough';
    expect((await admin("POST", "/admin/experiments/dash-ab/rollback", { reason })).res.status).toBe(200);
    const one = await read("/v1/experiments/dash-ab");
    expect(one.body.experiment).toMatchObject({ state: "rolled_back", disclosed: true, control: 0 });
    expect(one.body.changes.map((c: { action: string }) => c.action)).toEqual(["start", "rollback"]);
    expect(one.body.changes[1]).toMatchObject({ actor: "admin", reason });
    expect(one.text).not.toContain("secret-salt");
    const series = await read("/v1/experiments/dash-ab/series");
    expect(series.body.disclosed).toBe(true);
    // Cached in KV per (experiment, last change): once there, a reload needs no events database.
    const key = (kind: string) => `dash:v1:${kind}:dash-ab:${one.body.experiment.updatedAt}`;
    for (let j = 0; j < 50 && (await env.CACHE.get(key("series"))) === null; j++) await new Promise((r) => setTimeout(r, 20));
    expect(await env.CACHE.get(key("dashboard"))).not.toBeNull();
    const offline = { EVENTS: failingD1() };
    expect((await get("/v1/experiments/dash-ab", offline)).status).toBe(200);
    const again = await get("/v1/experiments/dash-ab/series", offline);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(series.text);
  });
});

describe("a guardrail rollback on the dashboard", () => {
  it("shows the guardrail's action with its reason", async () => {
    const started = await admin("POST", "/admin/experiments", {
      id: "dash-broken",
      design: "ab",
      arms: [
        { round: 0, weight: 5000 },
        { round: 2, weight: 5000 },
      ],
      guardrails: { minSearches: 10, latencyMs: 60_000 },
    });
    expect(started.res.status).toBe(201);
    for (let u = 0; u < 40; u++) await search("wood chair", `broken-${u}`);
    await cron();
    const one = await read("/v1/experiments/dash-broken");
    expect(one.body.experiment.state).toBe("rolled_back");
    const last = one.body.changes.at(-1);
    expect(last).toMatchObject({ actor: "guardrail", action: "rollback" });
    expect(last.reason).toMatch(/zero-result rate/);
  });
});

describe("an interleaving experiment's series", () => {
  it("has one arm, interleaved, whose last look is the report's mean preference", async () => {
    expect((await admin("POST", "/admin/experiments", { id: "dash-il", design: "interleave", control: 0, treatment: 3 })).res.status).toBe(201);
    for (let u = 0; u < 6; u++) {
      const s = await search("wood chair", `il-dash-${u}`);
      const row = await (env.EVENTS as D1Database).prepare("SELECT shown FROM searches WHERE request_id = ?").bind(s.requestId).first<{ shown: string }>();
      const sole = (JSON.parse(row?.shown ?? "[]") as Array<[string, number, string, 1?]>).find((x) => x[3] === 1);
      expect(sole).toBeDefined();
      expect((await feedback(s.requestId, (sole as [string, number, string])[0], "click")).status).toBe(202);
    }
    const report = (await admin("GET", "/admin/experiments/dash-il")).body.report;
    const { body } = await read("/v1/experiments/dash-il/series", adminView);
    const last = body.series.looks.at(-1);
    expect(last).toMatchObject({ arm: "interleaved" });
    expect(last.users).toBeCloseTo(report.interleaving.users.decided, 9);
    expect(last.effect).toBeCloseTo(report.interleaving.users.meanPreference, 12);
    const decided = report.interleaving.credited.wins + report.interleaving.credited.losses;
    expect(decided).toBe(6);
    expect(last.secondary).toBeCloseTo(report.interleaving.credited.wins / decided, 12);
    expect((await admin("POST", "/admin/experiments/dash-il/rollback", {})).res.status).toBe(200);
  });
});

describe("the pages and bad input", () => {
  it("serves /experiments and /experiments/:id with the page CSP, a 404 page for an unknown id, and problems for bad ids", async () => {
    for (const path of ["/experiments", "/experiments/dash-ab"]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("content-security-policy")).toMatch(/script-src 'nonce-[^']+'/);
      expect(await res.text()).toContain('<nav><a href="/">Search</a>');
    }
    expect((await get("/experiments/no-such")).status).toBe(404);
    for (const path of ["/v1/experiments/no-such", "/v1/experiments/no-such/series"]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    }
    const long = await get(`/v1/experiments/${"x".repeat(65)}`);
    expect(long.status).toBe(400);
    expect(((await long.json()) as { parameter: string }).parameter).toBe("id");
    expect((await get("/v1/experiments", {}, {}, "DELETE")).status).toBe(405);
  });
});
