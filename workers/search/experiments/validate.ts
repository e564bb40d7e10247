/**
 * Turning an admin request into an experiment, or saying which field is
 * wrong: rounds published, weights in basis points summing to 10 000, at
 * most 8 A/B arms, distinct rounds, control among them, each treatment
 * within the monotone layout's cap, interleaving with exactly two rounds.
 */
import { rampProblem, treatmentCapBp } from "./assignment.js";
import { type Arm, DEFAULT_GUARDRAILS, EXPERIMENT_LIMITS, type Experiment, type Guardrails } from "./config.js";

export class InvalidExperiment extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StartRequest {
  readonly id?: string | undefined;
  readonly design: "ab" | "interleave";
  readonly arms?: ReadonlyArray<Arm> | undefined;
  readonly control?: number | undefined;
  readonly treatment?: number | undefined;
  readonly shareBp?: number | undefined;
  readonly salt?: string | undefined;
  readonly guardrails?: Partial<Guardrails> | undefined;
}

function checkArms(arms: readonly Arm[], control: number, field: string): void {
  const total = arms.reduce((s, a) => s + a.weight, 0);
  if (total !== EXPERIMENT_LIMITS.totalWeightBp)
    throw new InvalidExperiment(field, `arm weights must sum to ${EXPERIMENT_LIMITS.totalWeightBp} basis points, not ${total}`);
  const cap = treatmentCapBp(arms.length - 1);
  arms.forEach((a, j) => {
    if (j !== control && a.weight > cap)
      throw new InvalidExperiment(
        `${field}.${j}.weight`,
        `with ${arms.length - 1} treatment arms each may hold at most ${cap} bp (round ${a.round} asks ${a.weight})`,
      );
  });
}

export function experimentFrom(req: StartRequest, published: ReadonlySet<number>, now: Date, salt: string): Experiment {
  const check = (round: number, field: string) => {
    if (!published.has(round)) throw new InvalidExperiment(field, `round ${round} is not published`);
  };
  let arms: Arm[];
  let control: number;
  let shareBp = 0;
  if (req.design === "interleave") {
    if (req.control === undefined) throw new InvalidExperiment("control", "interleaving needs control (a round)");
    if (req.treatment === undefined) throw new InvalidExperiment("treatment", "interleaving needs treatment (a round)");
    if (req.arms !== undefined) throw new InvalidExperiment("arms", "interleaving takes control and treatment, not arms");
    if (req.control === req.treatment) throw new InvalidExperiment("treatment", "control and treatment must be different rounds");
    check(req.control, "control");
    check(req.treatment, "treatment");
    arms = [
      { round: req.control, weight: EXPERIMENT_LIMITS.totalWeightBp },
      { round: req.treatment, weight: 0 },
    ];
    control = req.control;
    shareBp = req.shareBp ?? EXPERIMENT_LIMITS.totalWeightBp;
  } else {
    if (!req.arms || req.arms.length < 2) throw new InvalidExperiment("arms", "an A/B experiment needs at least two arms");
    if (req.arms.length > EXPERIMENT_LIMITS.abArmsMax) throw new InvalidExperiment("arms", `at most ${EXPERIMENT_LIMITS.abArmsMax} arms`);
    if (req.treatment !== undefined || req.shareBp !== undefined)
      throw new InvalidExperiment(req.treatment !== undefined ? "treatment" : "shareBp", "A/B takes arms; treatment and shareBp are for interleaving");
    arms = req.arms.map((a) => ({ round: a.round, weight: a.weight }));
    if (new Set(arms.map((a) => a.round)).size !== arms.length) throw new InvalidExperiment("arms", "each arm must be a different round");
    arms.forEach((a, j) => {
      check(a.round, `arms.${j}.round`);
    });
    control = req.control ?? (arms[0] as Arm).round;
    const ci = arms.findIndex((a) => a.round === control);
    if (ci < 0) throw new InvalidExperiment("control", `control round ${control} is not one of the arms`);
    checkArms(arms, ci, "arms");
  }
  const at = now.toISOString();
  return {
    id: req.id ?? `exp-${at.replaceAll(/[^0-9]/g, "").slice(0, 14)}`,
    design: req.design,
    salt: req.salt ?? salt,
    arms,
    control,
    interleaveShareBp: shareBp,
    guardrails: { ...DEFAULT_GUARDRAILS, ...req.guardrails },
    state: "running",
    createdAt: at,
    updatedAt: at,
  };
}

/** A ramp of a running A/B experiment: new weights, monotone (treatments only grow, from control). */
export function rampedExperiment(e: Experiment, arms: readonly Arm[], now: Date): Experiment {
  if (e.design !== "ab") throw new InvalidExperiment("arms", "only A/B experiments ramp; an interleaving experiment has no weights");
  const next = arms.map((a) => ({ round: a.round, weight: a.weight }));
  const ci = e.arms.findIndex((a) => a.round === e.control);
  const problem = rampProblem(e.arms, next, ci);
  if (problem) throw new InvalidExperiment("arms", problem);
  checkArms(next, ci, "arms");
  return { ...e, arms: next, updatedAt: now.toISOString() };
}
