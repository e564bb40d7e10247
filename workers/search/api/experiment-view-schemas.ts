/**
 * The experiment dashboards' JSON (GET /v1/experiments…): what the pages
 * /experiments and /experiments/:id read. Never the salt or network
 * prefixes; a live experiment's arms, figures and history only in the admin
 * view (experiments/disclosure.ts).
 */
import { z } from "@hono/zod-openapi";
import { CHART_LIMITS } from "../experiments/chart-specs.js";
import { ArmSchema, ReportSchema } from "./admin-schemas.js";
import { intParam } from "./schemas.js";

const DISCLOSED =
  "true: an ended experiment (public), or a live one read with the admin token; false: a live (running or paused) experiment read without it, whose arms, figures and history are withheld.";

export const ExperimentSummary = z
  .object({
    id: z.string(),
    design: z.enum(["ab", "interleave"]),
    state: z.enum(["running", "paused", "promoted", "rolled_back", "stopped"]),
    createdAt: z.string(),
    updatedAt: z.string(),
    disclosed: z.boolean().openapi({ description: DISCLOSED }),
    arms: z.array(ArmSchema).readonly().nullable().openapi({ description: "null unless disclosed." }),
    control: z.number().int().nullable().openapi({ description: "The control round; null unless disclosed." }),
    interleaveShareBp: z.number().int().nullable().openapi({ description: "Interleaving's share of traffic (bp); null unless disclosed or for A/B." }),
    winner: z.number().int().nullable().openapi({ description: "A promoted experiment's winning round." }),
  })
  .openapi("ExperimentSummary");

export const ExperimentSummaries = z.object({ experiments: z.array(ExperimentSummary).readonly() }).openapi("ExperimentSummaries");

export const ChangeView = z
  .object({
    at: z.string(),
    actor: z.string().openapi({ description: "admin, or guardrail (the cron)." }),
    action: z.enum(["start", "ramp", "promote", "rollback", "stop", "pause", "resume"]),
    reason: z.string(),
    state: z.string().openapi({ description: "The experiment's state after the change." }),
    arms: z.array(ArmSchema).readonly().openapi({ description: "The weights after the change." }),
  })
  .openapi("ExperimentChangeView");

export const ArmExtras = z
  .object({
    arm: z.string(),
    purchases: z.number().int().openapi({ description: "Purchase events on the arm's searches, as recorded." }),
  })
  .openapi("ArmExtras");

export const ExperimentDashboard = z
  .object({
    experiment: ExperimentSummary,
    changes: z
      .array(ChangeView)
      .readonly()
      .nullable()
      .openapi({ description: "The history, oldest first, guardrail actions with their reasons; null unless disclosed." }),
    report: ReportSchema.nullable().openapi({ description: "The live report (as GET /admin/experiments/{id}); null unless disclosed." }),
    purchases: z.array(ArmExtras).readonly().nullable(),
  })
  .openapi("ExperimentDashboard");

export const EffectLookSchema = z.object({
  at: z.number().int().openapi({ description: "Epoch ms: the statistics as they stood then (searches and feedback recorded up to it)." }),
  arm: z.string(),
  effect: z
    .number()
    .openapi({ description: "A/B: the per-user CTR difference (treatment − control), CUPED-adjusted; interleaving: the mean user preference in [−1, 1]." }),
  confidenceSequence: z
    .array(z.number())
    .length(2)
    .readonly()
    .openapi({ description: "The (1 − α) always-valid confidence sequence of the effect at this look." }),
  secondary: z.number().openapi({ description: "A/B: the per-search CTR difference; interleaving: the treatment's credited win share of decided searches." }),
  users: z.number(),
});

export const ExperimentSeriesSchema = z
  .object({
    disclosed: z.boolean().openapi({ description: DISCLOSED }),
    series: z
      .object({
        experiment: z.string(),
        design: z.enum(["ab", "interleave"]),
        looks: z.array(EffectLookSchema).readonly(),
        daily: z
          .array(z.object({ day: z.string(), arm: z.string(), searches: z.number().int(), clickedSearches: z.number().int(), purchases: z.number().int() }))
          .readonly(),
      })
      .nullable(),
  })
  .openapi("ExperimentSeries");

export const ChartsQuery = z.object({
  width: intParam("width", CHART_LIMITS.minWidthPx, CHART_LIMITS.maxWidthPx, CHART_LIMITS.defaultWidthPx).openapi({
    param: { name: "width", in: "query", description: "The charts' width in CSS pixels (the page asks for its own); the height follows it." },
  }),
});

export const ChartSchema = z
  .object({
    name: z.enum(["effect", "win-share", "daily"]),
    title: z.string(),
    description: z.string(),
    svg: z.string().openapi({
      description:
        'The chart as SVG, rendered by Vega-Lite/Vega in the Worker: role="img" with an aria-label, <title> and <desc>; each mark\'s value as its aria-label and hover <title>; every string escaped; no style attributes.',
    }),
    columns: z.array(z.string()).readonly().openapi({ description: "The values table's header." }),
    rows: z.array(z.array(z.string()).readonly()).readonly().openapi({ description: "The values table: every plotted value, formatted." }),
  })
  .openapi("ExperimentChart");

export const ExperimentChartsSchema = z
  .object({
    disclosed: z.boolean().openapi({ description: DISCLOSED }),
    charts: z
      .array(ChartSchema)
      .readonly()
      .nullable()
      .openapi({ description: "The effect over time, the interleaving win share, daily searches per arm: those the series has; null unless disclosed." }),
    notes: z
      .array(z.string())
      .readonly()
      .nullable()
      .openapi({ description: "Why a plot is missing (no traffic yet; A/B has no interleaving preference); null unless disclosed." }),
  })
  .openapi("ExperimentCharts");
