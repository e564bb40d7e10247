/** The admin API's schemas (experiments), declared once like the public ones. */
import { z } from "@hono/zod-openapi";
import { EXPERIMENT_LIMITS } from "../experiments/config.js";
import { COUNTING_LIMITS } from "../experiments/counting.js";

const round = z.number().int().nonnegative();
const bp = z.number().int().min(0).max(EXPERIMENT_LIMITS.totalWeightBp);

export const ArmSchema = z.object({ round, weight: bp.openapi({ description: "Basis points of traffic (of 10 000)." }) }).openapi("Arm");

export const GuardrailsSchema = z
  .object({
    errorRate: z.number().min(0).max(1),
    zeroResultRate: z.number().min(0).max(1),
    latencyMs: z.number().min(0),
    slowShare: z.number().min(0).max(1),
    alpha: z.number().gt(0).lt(1),
    minSearches: z.number().int().min(0),
  })
  .openapi("Guardrails");

export const ExperimentSchema = z
  .object({
    id: z.string(),
    design: z.enum(["ab", "interleave"]),
    salt: z.string(),
    arms: z.array(ArmSchema).readonly(),
    control: round,
    interleaveShareBp: bp,
    guardrails: GuardrailsSchema,
    state: z.enum(["running", "paused", "promoted", "rolled_back", "stopped"]).openapi({
      description: "paused: the guardrail found a trip concentrated on few networks; control serves everyone until a resume, promote or rollback.",
    }),
    winner: round.optional(),
    excludedPrefixes: z
      .array(z.string())
      .readonly()
      .optional()
      .openapi({ description: "Hashed network prefixes whose searches the statistics leave out (a resume's exclude)." }),
    suspectPrefixes: z
      .array(z.string())
      .readonly()
      .optional()
      .openapi({ description: "While paused: the hashed network prefixes the concentrated findings came from." }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Experiment");

export const StartExperimentBody = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/)
      .max(EXPERIMENT_LIMITS.idMaxChars)
      .optional(),
    design: z.enum(["ab", "interleave"]),
    arms: z.array(ArmSchema).min(2).max(EXPERIMENT_LIMITS.abArmsMax).optional().openapi({ description: "A/B: the arms, weights summing to 10 000." }),
    control: round.optional().openapi({ description: "The control round (A/B: default the first arm)." }),
    treatment: round.optional().openapi({ description: "Interleaving: the treatment round." }),
    shareBp: bp.optional().openapi({ description: "Interleaving: the share of traffic that sees the interleaved list (default 10 000)." }),
    salt: z.string().min(1).max(EXPERIMENT_LIMITS.saltMaxChars).optional(),
    guardrails: GuardrailsSchema.partial().optional(),
  })
  .openapi("StartExperiment");

export const ResumeBody = z
  .object({
    exclude: z
      .boolean()
      .optional()
      .openapi({ description: "Leave the pause's suspect prefixes out of the statistics from now on (default true); false keeps counting them." }),
    reason: z.string().max(500).optional(),
  })
  .openapi("ResumeExperiment");

export const RampBody = z.object({ arms: z.array(ArmSchema).min(2).max(EXPERIMENT_LIMITS.abArmsMax) }).openapi("Ramp");
export const EndBody = z
  .object({
    round: round.optional().openapi({ description: "Promote: the winning round (default: the report's winner)." }),
    reason: z.string().max(500).optional(),
  })
  .openapi("EndExperiment");

const Sequential = z.object({ difference: z.number(), pValue: z.number(), confidenceSequence: z.array(z.number()).length(2).readonly() });

export const ReportSchema = z
  .object({
    experiment: z.string(),
    design: z.enum(["ab", "interleave"]),
    arms: z
      .array(
        z.object({
          arm: z.string(),
          round: round.nullable(),
          searches: z.number().int(),
          users: z.number().int().openapi({ description: "Distinct user keys, as recorded (a client chooses its keys; SRM uses counted.users)." }),
          clickedSearches: z.number().int(),
          counted: z.object({ searches: z.number(), users: z.number(), clickedSearches: z.number() }).openapi({
            description: `What the tests count: searches weighted per network prefix (one prefix weighs at most ${COUNTING_LIMITS.searchesPerPrefixMax}), users capped per prefix (at most ${COUNTING_LIMITS.keysPerPrefixMax}).`,
          }),
          ctr: z.number(),
          zeroResultRate: z.number(),
          errorRate: z.number(),
          fallbackRate: z.number(),
          p50LatencyMs: z.number(),
          p95LatencyMs: z.number(),
        }),
      )
      .readonly(),
    comparisons: z
      .array(
        z.object({
          arm: z.string(),
          ctr: z.object({
            z: z.object({ difference: z.number(), ci95: z.array(z.number()).length(2).readonly(), z: z.number(), pValue: z.number() }),
            sequential: Sequential,
            alwaysValidP: z.number(),
            mde: z.number().nullable(),
          }),
          cuped: z
            .object({
              users: z.object({ control: z.number(), treatment: z.number() }),
              theta: z.number(),
              rawDifference: z.number(),
              varianceReduction: z.number(),
              sequential: Sequential,
              alwaysValidP: z.number(),
            })
            .openapi({
              description:
                "Per user (key-capped per prefix): the difference of users' CTRs, CUPED-adjusted by the leave-one-out CTR of the queries they typed, under the mSPRT (τ = 0.02). The verdict reads this.",
            }),
          verdict: z.string(),
        }),
      )
      .readonly(),
    interleaving: z
      .object({
        wins: z.number().openapi({ description: "As counted: each search weighted per network prefix." }),
        losses: z.number(),
        ties: z.number(),
        signTestP: z.number(),
        credited: z
          .object({ wins: z.number(), losses: z.number() })
          .openapi({ description: "Searches decided by credited clicks only: clicks on items only one of the two rounds ranked." }),
        users: z.object({ decided: z.number(), meanPreference: z.number() }).openapi({
          description:
            "Users with a decided search (key-capped per prefix) and their mean preference (won − lost) / (won + lost); the verdict's mSPRT (τ = 0.2) tests it against 0.",
        }),
        sequential: Sequential,
        alwaysValidP: z.number(),
        verdict: z.string(),
      })
      .nullable(),
    srm: z.object({ chiSquare: z.number(), pValue: z.number(), mismatch: z.boolean() }),
    verdict: z.enum(["treatment better", "treatment worse", "no detectable difference yet"]),
    winner: round.nullable(),
  })
  .openapi("ExperimentReport");

export const ChangeSchema = z
  .object({
    seq: z.number().int(),
    experimentId: z.string(),
    at: z.string(),
    actor: z.string(),
    action: z.enum(["start", "ramp", "promote", "rollback", "stop", "pause", "resume"]),
    reason: z.string(),
    before: ExperimentSchema.nullable(),
    after: ExperimentSchema,
  })
  .openapi("ExperimentChange");

export const ExperimentList = z.object({ experiments: z.array(ExperimentSchema).readonly() }).openapi("ExperimentList");
export const ExperimentDetail = z
  .object({ experiment: ExperimentSchema, changes: z.array(ChangeSchema).readonly(), report: ReportSchema })
  .openapi("ExperimentDetail");
export const ExperimentOne = z.object({ experiment: ExperimentSchema }).openapi("ExperimentOne");
export const IdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(EXPERIMENT_LIMITS.idMaxChars)
    .openapi({ param: { name: "id", in: "path", required: true } }),
});
