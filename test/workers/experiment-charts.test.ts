/**
 * The dashboards' charts in workerd on real local D1/KV: GET
 * /v1/experiments/:id/charts renders the series with Vega-Lite/Vega (under
 * workerd's ban on code generation from strings) to SVG whose marks are the
 * series' values, withheld like the series without the admin token, with
 * every string escaped (an arm carrying markup stays text), and problems
 * for an unknown id and a bad width.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "./admin.js";
import { get, publish, send, testRounds } from "./helpers.js";

const rounds = await testRounds();
const adminView = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
const EVIL_ARM = `r9"><img src=x onerror=alert(1)><script>alert(2)</script>`;

type Chart = { name: string; title: string; description: string; svg: string; columns: string[]; rows: string[][] };
type Charts = { disclosed: boolean; charts: Chart[] | null; notes: string[] | null };
type Look = { at: number; arm: string; effect: number; confidenceSequence: [number, number]; secondary: number; users: number };
type Daily = { day: string; arm: string; searches: number };

const read = async (path: string, headers: Record<string, string> = {}) => {
  const res = await get(path, {}, headers);
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    body: (await res.json()) as Charts & { series: { looks: Look[]; daily: Daily[] } },
  };
};
const search = (q: string, user: string) => get(`/v1/search?q=${encodeURIComponent(q)}&limit=10`, {}, { "x-user-id": user, "cf-connecting-ip": "10.9.8.7" });
const marks = (svg: string, role: string) => [...svg.matchAll(new RegExp(`aria-roledescription="${role}"[^>]*>`, "g"))].length;
const hoverTitles = (svg: string, role: string) => [
  ...svg.matchAll(new RegExp(`<path aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="${role}"[^>]*><title>([^<]*)</title></path>`, "g")),
];
const byName = (charts: Chart[] | null, name: string) => {
  const c = charts?.find((x) => x.name === name);
  expect(c, `a ${name} chart`).toBeDefined();
  return c as Chart;
};

beforeAll(async () => {
  const s0 = rounds.synthetic0;
  await publish(s0);
  // Round 3 ranks differently (interleaving needs results only one side ranks): every other keyword posting dropped.
  let k = 0;
  await publish({ ...s0, manifest: { ...s0.manifest, round: 3 }, postings: s0.postings.filter((l) => !l.startsWith('["k:') || k++ % 2 === 0) });
  const started = await admin("POST", "/admin/experiments", {
    id: "charts-ab",
    design: "ab",
    arms: [
      { round: 0, weight: 5000 },
      { round: 3, weight: 5000 },
    ],
  });
  expect(started.res.status).toBe(201);
  for (let u = 0; u < 16; u++) {
    const s = (await (await search("wood chair", `chart-user-${u}`)).json()) as { requestId: string; results: Array<{ id: string }> };
    const first = s.results[0];
    if (u % 3 === 0 && first) {
      const res = await send("/v1/feedback", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ requestId: s.requestId, itemId: first.id, type: "click" }),
      });
      expect(res.status).toBe(202);
    }
  }
});

describe("GET /v1/experiments/:id/charts", () => {
  it("withholds a live experiment's charts without the admin token, or with a wrong one", async () => {
    for (const headers of [{}, { authorization: "Bearer not-the-token-but-long-enough-to-look-right" }] as Array<Record<string, string>>) {
      const r = await read("/v1/experiments/charts-ab/charts", headers);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ disclosed: false, charts: null, notes: null });
    }
  });

  it("renders the effect's confidence sequence and daily searches as SVG whose marks carry the series' values", async () => {
    const series = (await read("/v1/experiments/charts-ab/series", adminView)).body.series;
    const looks = series.looks.filter((l) => l.users > 0);
    expect(looks.length).toBeGreaterThan(0);
    const { status, body } = await read("/v1/experiments/charts-ab/charts?width=520", adminView);
    expect(status).toBe(200);
    expect(body.disclosed).toBe(true);
    expect(body.charts?.map((c) => c.name)).toEqual(["effect", "daily"]);
    expect(body.notes).toEqual([expect.stringMatching(/A\/B experiment .* none to plot/)]);
    for (const c of body.charts ?? []) {
      expect(c.svg).toMatch(new RegExp(`^<svg role="img" aria-label="${c.title.replace(/[()]/g, "\\$&")}"[^>]*width="520"`));
      expect(c.svg).toContain(`<title>${c.title}</title><desc>${c.description}</desc>`);
      expect(c.svg).not.toMatch(/\sstyle="/);
      expect(c.svg.endsWith("</svg>")).toBe(true);
    }
    const effect = byName(body.charts, "effect");
    // One point per look, each with its value (in pt) as aria-label and hover title; the same values in the table.
    expect(marks(effect.svg, "point")).toBe(looks.length);
    const points = hoverTitles(effect.svg, "point");
    expect(points).toHaveLength(looks.length);
    expect(effect.rows).toHaveLength(looks.length);
    for (const [j, l] of looks.entries()) {
      const value = (100 * l.effect).toFixed(3).replace("-", "\u2212");
      expect(points[j]?.[1]).toContain(`r3 \u2212 control: ${value} in [`);
      expect(points[j]?.[2]).toBe(points[j]?.[1]);
      expect(effect.rows[j]?.[2]).toBe(value);
    }
    expect(effect.svg).toContain("CTR difference (pt)");
    const daily = byName(body.charts, "daily");
    expect(marks(daily.svg, "bar")).toBe(series.daily.length);
    const bars = hoverTitles(daily.svg, "bar").map((m) => m[1]);
    expect(bars.sort()).toEqual(series.daily.map((d) => `${d.day}, ${d.arm}: ${d.searches} searches`).sort());
    expect(series.daily.reduce((s, d) => s + d.searches, 0)).toBe(16);
  });

  it("escapes an arm carrying markup wherever it reaches the SVG, and gives it as text in the table", async () => {
    const at = Date.now();
    await (env.EVENTS as D1Database)
      .prepare(
        `INSERT INTO searches (request_id, at, round, experiment_id, arm, user_key, query, latency_ms, total, zero_result, error, keyword_source, fallback, shown)
         VALUES ('evil-1', ?, 9, 'charts-ab', ?, 'evil-user', 'chair', 1, 0, 1, 0, 'policy', 0, '[]')`,
      )
      .bind(at, EVIL_ARM)
      .run();
    const { body } = await read("/v1/experiments/charts-ab/charts", adminView);
    const daily = byName(body.charts, "daily");
    expect(daily.rows.map((r) => r[1])).toContain(EVIL_ARM);
    const escaped = `r9&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;`;
    expect(daily.svg).toContain(`aria-label="${new Date(at).toISOString().slice(0, 10)}, ${escaped}: 1 searches"`);
    // The legend's label is text (Vega may shorten it), escaped.
    expect(daily.svg).toMatch(/<text[^>]*>r9"&gt;&lt;img/);
    for (const c of body.charts ?? []) expect(c.svg).not.toMatch(/<(img|script)|onerror="/i);
  });

  it("draws the interleaving win share for an interleaving experiment", async () => {
    expect((await admin("POST", "/admin/experiments/charts-ab/rollback", {})).res.status).toBe(200);
    expect((await admin("POST", "/admin/experiments", { id: "charts-il", design: "interleave", control: 0, treatment: 3 })).res.status).toBe(201);
    const empty = await read("/v1/experiments/charts-il/charts", adminView);
    expect(empty.body).toEqual({ disclosed: true, charts: [], notes: [expect.stringMatching(/^No decided traffic yet/)] });
    for (let u = 0; u < 4; u++) {
      const s = (await (await search("wood chair", `il-chart-${u}`)).json()) as { requestId: string };
      const row = await (env.EVENTS as D1Database).prepare("SELECT shown FROM searches WHERE request_id = ?").bind(s.requestId).first<{ shown: string }>();
      const sole = (JSON.parse(row?.shown ?? "[]") as Array<[string, number, string, 1?]>).find((x) => x[3] === 1);
      expect(sole).toBeDefined();
      const res = await send("/v1/feedback", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ requestId: s.requestId, itemId: (sole as [string, number, string])[0], type: "click" }),
      });
      expect(res.status).toBe(202);
    }
    const { body } = await read("/v1/experiments/charts-il/charts", adminView);
    expect(body.charts?.map((c) => c.name)).toEqual(["effect", "win-share", "daily"]);
    expect(body.notes).toEqual([]);
    const share = byName(body.charts, "win-share");
    expect(marks(share.svg, "point")).toBe(share.rows.length);
    expect(share.rows.length).toBeGreaterThan(0);
    expect(share.svg).toContain("treatment win share");
    expect(byName(body.charts, "effect").svg).toContain("preference (\u22121 to 1)");
  });

  it("answers problems for an unknown experiment, a bad id and a bad width", async () => {
    const unknown = await get("/v1/experiments/no-such/charts", {}, adminView);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    for (const width of ["10", "5000", "wide", "-400", "1e3"]) {
      const res = await get(`/v1/experiments/charts-ab/charts?width=${width}`);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { parameter: string }).parameter).toBe("width");
    }
    expect((await get(`/v1/experiments/${"x".repeat(65)}/charts`)).status).toBe(400);
  });
});
