/**
 * The dashboard's chart specs (experiments/chart-specs.ts), pure, and their
 * rendering (chart-render.ts) in Node: which plots a series has, the band
 * cut at the effect's bounds while the table keeps the sequence uncut, one
 * colour (series) per treatment, the width clamped, and markup in a string
 * escaped in the SVG.
 */
import { describe, expect, it } from "vitest";
import { renderCharts } from "../../workers/search/experiments/chart-render.js";
import { CHART_LIMITS, chartPlan } from "../../workers/search/experiments/chart-specs.js";
import type { EffectLook, Series } from "../../workers/search/experiments/looks.js";

const T0 = Date.UTC(2026, 10, 2, 9);
const look = (j: number, arm: string, half: number): EffectLook => ({
  at: T0 + j * 3 * 3_600_000,
  arm,
  effect: 0.01 * j,
  confidenceSequence: [0.01 * j - half, 0.01 * j + half],
  secondary: 0.5 + 0.01 * j,
  users: 10 * (j + 1),
});
const ab: Series = {
  experiment: "e1",
  design: "ab",
  looks: [0, 1, 2].flatMap((j) => [look(j, "r3", 2 / (j + 1)), look(j, "r4", 0.1)]),
  daily: [
    { day: "2026-11-02", arm: "r0", searches: 30, clickedSearches: 10, purchases: 1 },
    { day: "2026-11-02", arm: "r3", searches: 20, clickedSearches: 8, purchases: 0 },
  ],
};
// biome-ignore lint/suspicious/noExplicitAny: the test reads Vega-Lite's layered spec loosely
const dataOf = (spec: any): Array<Record<string, number | string>> => spec.layer[0].data.values;

describe("chartPlan", () => {
  it("plans the effect and daily charts for A/B, with a note for the missing interleaving plot", () => {
    const plan = chartPlan(ab, 500);
    expect(plan.charts.map((c) => c.name)).toEqual(["effect", "daily"]);
    expect(plan.notes).toEqual([expect.stringMatching(/A\/B experiment/)]);
    const effect = plan.charts[0];
    expect(new Set(dataOf(effect?.spec).map((v) => v.series))).toEqual(new Set(["r3 \u2212 control", "r4 \u2212 control"]));
    // The first look's sequence, ±200 pt, is drawn cut at ±100 pt; the table keeps it.
    expect(dataOf(effect?.spec)[0]).toMatchObject({ effect: 0, lo: -100, hi: 100 });
    expect(effect?.rows[0]).toEqual(["11-02 09:00", "r3", "0.000", "\u2212200.000", "200.000", "10"]);
    expect(effect?.spec).toMatchObject({ width: 500 });
  });

  it("adds the win share for interleaving, and has only a note before any decided traffic", () => {
    const il: Series = { ...ab, design: "interleave", looks: [0, 1].map((j) => look(j, "interleaved", 0.5)) };
    expect(chartPlan(il).charts.map((c) => c.name)).toEqual(["effect", "win-share", "daily"]);
    expect(chartPlan(il).charts[1]?.rows).toEqual([
      ["11-02 09:00", "0.500"],
      ["11-02 12:00", "0.510"],
    ]);
    const none = chartPlan({ ...il, looks: il.looks.map((l) => ({ ...l, users: 0 })), daily: [] });
    expect(none).toEqual({ charts: [], notes: [expect.stringMatching(/^No decided traffic yet/)] });
  });

  it("clamps the width to its limits", () => {
    expect(chartPlan(ab, 10).charts[0]?.spec).toMatchObject({ width: CHART_LIMITS.minWidthPx });
    expect(chartPlan(ab, 99_999).charts[0]?.spec).toMatchObject({ width: CHART_LIMITS.maxWidthPx });
  });
});

describe("renderCharts", () => {
  it("draws one point per look and one bar per day and arm, and escapes markup in an arm", async () => {
    const evil = `r9"><svg onload=alert(1)>`;
    const series: Series = { ...ab, daily: [...ab.daily, { day: "2026-11-02", arm: evil, searches: 5, clickedSearches: 0, purchases: 0 }] };
    const [effect, daily] = await renderCharts(chartPlan(series, 400).charts);
    expect(effect?.svg.match(/aria-roledescription="point"/g)).toHaveLength(6);
    expect(daily?.svg.match(/aria-roledescription="bar"/g)).toHaveLength(3);
    expect(daily?.svg).toContain("<title>2026-11-02, r9&quot;&gt;&lt;svg onload=alert(1)&gt;: 5 searches</title>");
    expect(daily?.svg.match(/<svg/g)).toHaveLength(1);
    expect(daily?.svg).not.toMatch(/onload=alert\(1\)>/);
  });
});
