/**
 * The dashboard's plots as Vega-Lite specs (pure: no Vega here; the
 * rendering is chart-render.ts): from an experiment's series (series.ts),
 *   - the effect over time with its always-valid (1 − α) confidence
 *     sequence, a band that narrows as users arrive (statistics.ts's
 *     mixture sequential test: valid at every look), and a rule at 0;
 *   - for interleaving, the treatment's credited win share of decided
 *     searches, with a rule at 0.5;
 *   - daily searches per arm, as grouped bars;
 * each with its title, a description, axis titles, the value of every mark
 * as its description (an aria-label, and a hover title once rendered), and
 * its values as a table's columns and rows (the page shows them under the
 * chart). Strings (arms, days) go in as data: Vega escapes them when it
 * writes the SVG.
 */
import type { TopLevelSpec } from "vega-lite";
import type { Series } from "./looks.js";

export type ChartName = "effect" | "win-share" | "daily";

export interface ChartSpec {
  readonly name: ChartName;
  readonly title: string;
  readonly description: string;
  readonly spec: TopLevelSpec;
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
}

export interface ChartPlan {
  readonly charts: readonly ChartSpec[];
  /** Why a plot is missing (no traffic yet; an A/B experiment has no interleaving preference). */
  readonly notes: readonly string[];
}

/** The charts' size (px): the page asks for its own width; the height follows it within bounds. */
export const CHART_LIMITS = { minWidthPx: 280, maxWidthPx: 1200, defaultWidthPx: 640, minHeightPx: 200, maxHeightPx: 300 } as const;

/** The old renderer's palette: an arm keeps its colour across the three charts. */
const PALETTE = ["#1a3d8f", "#c2410c", "#0a7a3c", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#4b5563"];

/** A look's time, UTC (MM-DD HH:MM; with seconds when the looks span under an hour, else they all read alike). */
function clockFor(ats: readonly number[]): (ms: number) => string {
  const end = Math.max(...ats) - Math.min(...ats) < 3_600_000 ? 19 : 16;
  return (ms) => new Date(ms).toISOString().slice(5, end).replace("T", " ");
}
const num = (x: number) => Math.round(x).toLocaleString("en");
const fixed = (x: number, digits = 3) => x.toFixed(digits).replace("-", "\u2212");

function frame(widthPx: number, description: string) {
  const height = Math.round(Math.min(CHART_LIMITS.maxHeightPx, Math.max(CHART_LIMITS.minHeightPx, widthPx * 0.42)));
  const small = widthPx < 480;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    description,
    width: widthPx,
    height,
    autosize: { type: "fit", contains: "padding" },
    background: "#fcfcfd",
    padding: small ? 6 : 10,
    config: {
      font: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
      axis: { labelFontSize: 12, titleFontSize: 12, titleFontWeight: "normal", labelColor: "#444", titleColor: "#333", gridColor: "#e6e6ea" },
      legend: { labelFontSize: 12, orient: "bottom", title: null, symbolType: "square" },
      view: { stroke: null },
    },
  } as const;
}

/** The look axis: UTC times, a few labels (fewer on a narrow chart), seconds when the experiment spans under an hour. */
function lookAxis(ats: readonly number[], widthPx: number) {
  const spanMs = Math.max(...ats) - Math.min(...ats);
  return {
    field: "at",
    type: "temporal",
    scale: { type: "utc" },
    axis: { title: "look (UTC)", format: spanMs < 3_600_000 ? "%H:%M:%S" : "%m-%d %H:%M", tickCount: widthPx < 480 ? 3 : 6, labelOverlap: true },
  } as const;
}

const referenceRule = (y: number) =>
  ({
    data: { values: [{ y }] },
    mark: { type: "rule", color: "#333", strokeDash: [4, 3], aria: false },
    encoding: { y: { field: "y", type: "quantitative" } },
  }) as const;

/** A chart over the looks: its marks' layers over one dataset, and the dashed reference line at y = `reference`. */
function overLooks(widthPx: number, description: string, values: readonly object[], reference: number, marks: readonly object[]): TopLevelSpec {
  return { ...frame(widthPx, description), layer: [{ data: { values }, layer: marks }, referenceRule(reference)] } as unknown as TopLevelSpec;
}

function effectChart(series: Series, widthPx: number): ChartSpec {
  const il = series.design === "interleave";
  const looks = series.looks.filter((l) => l.users > 0);
  // Shown in pt for A/B (a CTR difference), as is for interleaving (a preference in [−1, 1]); the effect cannot leave
  // [−1, 1], so an early, wide sequence is drawn cut there (the table has it uncut).
  const scale = il ? 1 : 100;
  const cut = (v: number) => Math.max(-scale, Math.min(scale, v));
  const name = (arm: string) => (il ? "interleaved" : `${arm} \u2212 control`);
  const clock = clockFor(looks.map((l) => l.at));
  const values = looks.map((l) => {
    const [lo, hi] = l.confidenceSequence.map((v) => scale * v);
    return {
      at: l.at,
      series: name(l.arm),
      effect: scale * l.effect,
      lo: cut(lo as number),
      hi: cut(hi as number),
      tip: `${clock(l.at)} UTC, ${name(l.arm)}: ${fixed(scale * l.effect)} in [${fixed(lo as number)}, ${fixed(hi as number)}], ${num(l.users)} users`,
    };
  });
  const title = il
    ? "Mean user preference for the treatment, with its always-valid confidence sequence"
    : "Effect on per-user CTR (CUPED, treatment \u2212 control), with its always-valid confidence sequence";
  const description =
    "The estimate at each look and the (1 \u2212 \u03b1) confidence sequence around it; it narrows as users arrive, and the verdict is reached when it leaves 0.";
  const x = lookAxis(
    values.map((v) => v.at),
    widthPx,
  );
  const y = { type: "quantitative", title: il ? "preference (\u22121 to 1)" : "CTR difference (pt)", scale: { zero: false, nice: true } } as const;
  const color = { field: "series", type: "nominal", scale: { range: PALETTE } } as const;
  return {
    name: "effect",
    title,
    description,
    spec: overLooks(widthPx, `${title}. ${description}`, values, 0, [
      { mark: { type: "area", opacity: 0.15, aria: false }, encoding: { x, y: { ...y, field: "lo" }, y2: { field: "hi" }, color } },
      { mark: { type: "rule", opacity: 0.5, aria: false }, encoding: { x, y: { ...y, field: "lo" }, y2: { field: "hi" }, color } },
      { mark: { type: "line", strokeWidth: 2, aria: false }, encoding: { x, y: { ...y, field: "effect" }, color } },
      { mark: { type: "point", filled: true, size: 50, opacity: 1 }, encoding: { x, y: { ...y, field: "effect" }, color, description: { field: "tip" } } },
    ]),
    columns: ["Look (UTC)", "Arm", "Effect", "Low", "High", "Users"],
    rows: looks.map((l) => [
      clock(l.at),
      l.arm,
      fixed(scale * l.effect),
      fixed(scale * l.confidenceSequence[0]),
      fixed(scale * l.confidenceSequence[1]),
      num(l.users),
    ]),
  };
}

function winShareChart(series: Series, widthPx: number): ChartSpec {
  const looks = series.looks.filter((l) => l.users > 0);
  const clock = clockFor(looks.map((l) => l.at));
  const values = looks.map((l) => ({ at: l.at, share: l.secondary, tip: `${clock(l.at)} UTC: win share ${fixed(l.secondary)}` }));
  const title = "Interleaving: the treatment's share of decided searches (credited clicks)";
  const description = "Above 0.5 the treatment's own results are clicked more often than control's.";
  const x = lookAxis(
    values.map((v) => v.at),
    widthPx,
  );
  // At least 0.4–0.6, centred on the 0.5 of no preference, so that a share of 0.52 does not fill the plot.
  const shares = values.map((v) => v.share);
  const reach = Math.max(0.1, ...shares.map((v) => Math.abs(v - 0.5)));
  const domain = [Math.max(0, 0.5 - reach), Math.min(1, 0.5 + reach)];
  const y = { field: "share", type: "quantitative", title: "treatment win share", scale: { domain, nice: true } } as const;
  return {
    name: "win-share",
    title,
    description,
    spec: overLooks(widthPx, `${title}. ${description}`, values, 0.5, [
      { mark: { type: "line", strokeWidth: 2, color: PALETTE[0], aria: false }, encoding: { x, y } },
      { mark: { type: "point", filled: true, size: 50, opacity: 1, color: PALETTE[0] }, encoding: { x, y, description: { field: "tip" } } },
    ]),
    columns: ["Look (UTC)", "Win share"],
    rows: looks.map((l) => [clock(l.at), fixed(l.secondary)]),
  };
}

function dailyChart(series: Series, widthPx: number): ChartSpec {
  const title = "Daily searches per arm";
  const description = "Searches recorded per UTC day in each arm.";
  const values = series.daily.map((r) => ({ day: r.day, arm: r.arm, searches: r.searches, tip: `${r.day}, ${r.arm}: ${num(r.searches)} searches` }));
  return {
    name: "daily",
    title,
    description,
    spec: {
      ...frame(widthPx, `${title}. ${description}`),
      data: { values },
      mark: { type: "bar" },
      encoding: {
        x: { field: "day", type: "ordinal", title: "day (UTC)", axis: { labelAngle: 0, labelOverlap: true } },
        xOffset: { field: "arm", type: "nominal" },
        y: { field: "searches", type: "quantitative", title: "searches" },
        color: { field: "arm", type: "nominal", scale: { range: PALETTE } },
        description: { field: "tip" },
      },
    } as TopLevelSpec,
    columns: ["Day", "Arm", "Searches", "Clicked", "Purchases"],
    rows: series.daily.map((r) => [r.day, r.arm, num(r.searches), num(r.clickedSearches), num(r.purchases)]),
  };
}

/** The plots an experiment's series has, `widthPx` wide (clamped to CHART_LIMITS), and a note for each it lacks. */
export function chartPlan(series: Series, widthPx: number = CHART_LIMITS.defaultWidthPx): ChartPlan {
  const w = Math.round(Math.min(CHART_LIMITS.maxWidthPx, Math.max(CHART_LIMITS.minWidthPx, widthPx)));
  const charts: ChartSpec[] = [];
  const notes: string[] = [];
  const decided = series.looks.some((l) => l.users > 0);
  if (!decided) notes.push("No decided traffic yet: the plots over time appear with the first searches (and, for interleaving, the first credited clicks).");
  else {
    charts.push(effectChart(series, w));
    if (series.design === "interleave") charts.push(winShareChart(series, w));
    else notes.push("Interleaving preference: this is an A/B experiment (each user sees one arm), so there is none to plot.");
  }
  if (series.daily.length > 0) charts.push(dailyChart(series, w));
  return { charts, notes };
}
