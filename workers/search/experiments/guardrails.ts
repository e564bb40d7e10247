/**
 * Guardrails, run by the cron trigger once a minute over the running
 * experiment. A treatment arm trips when, by the sequential test (so
 * checking every minute stays valid), it is worse than control beyond the
 * experiment's threshold on the error rate, the zero-result rate or the
 * share of searches slower than control's p95 + latencyMs; the experiment
 * trips when the users per arm show a sample-ratio mismatch. All of it over
 * the counted figures (counting.ts), so one network moves none of them much.
 *
 * Each finding is then checked for concentration: when every finding's
 * events come mostly from a few network prefixes, the experiment is paused
 * (control serves everyone; an admin resumes or ends it), not rolled back,
 * since a few networks are more likely an attack or a bot than a regression.
 * Every automatic action is recorded with its reason, and logged.
 */
import type { Experiment, Guardrails } from "./config.js";
import { concentration, type FindingEvents, slowerThan } from "./counted.js";
import { COUNTING_LIMITS, type Concentration, guardrailAction, mostOverweightArm } from "./counting.js";
import { pausedExperiment } from "./lifecycle.js";
import { type ArmFigures, armFigures, srmWeights } from "./report.js";
import { armName } from "./routing.js";
import { msprt, sampleRatioMismatch } from "./statistics.js";
import type { ExperimentStore } from "./store.js";

export interface GuardrailFinding {
  readonly arm: string;
  readonly reason: string;
  /** The events behind it, for the concentration check. */
  readonly events: FindingEvents;
  /** The arm whose events those are (for SRM, the arm most over its share). */
  readonly eventsArm: string;
  /** Slow searches: the latency cut (ms). */
  readonly cutMs?: number;
}

/** The sequential lower bound of (treatment − control) exceeds the threshold: worse beyond it, with confidence. */
function worse(control: { successes: number; trials: number }, treatment: { successes: number; trials: number }, threshold: number, alpha: number): boolean {
  const seq = msprt(control, treatment, { alpha });
  return seq.confidenceSequence[0] > threshold;
}

export async function findings(db: D1Database, e: Experiment): Promise<GuardrailFinding[]> {
  const g: Guardrails = e.guardrails;
  const arms = await armFigures(db, e);
  const control = arms.find((a) => a.arm === armName(e.control)) as ArmFigures;
  const out: GuardrailFinding[] = [];
  const weights = srmWeights(e);
  const users = arms.map((a) => a.counted.users);
  const srm = sampleRatioMismatch(users, weights);
  const enough = (a: ArmFigures) => a.counted.searches >= g.minSearches;
  if (srm.mismatch && arms.every(enough)) {
    const over = arms[mostOverweightArm(users, weights)] as ArmFigures;
    out.push({
      arm: "all",
      reason: `sample-ratio mismatch: counted users per arm ${arms.map((a) => `${a.arm} ${a.counted.users.toFixed(1)}`).join(", ")} against weights ${weights.join("/")} (chi-square p = ${srm.pValue.toExponential(2)})`,
      events: "users",
      eventsArm: over.arm,
    });
  }
  for (const a of arms) {
    if (a === control || !enough(a) || !enough(control)) continue;
    const share = (rate: number, n: number) => ({ successes: Math.round(rate * n), trials: n });
    const [nC, nT] = [control.counted.searches, a.counted.searches];
    if (worse(share(control.errorRate, nC), share(a.errorRate, nT), g.errorRate, g.alpha)) {
      out.push({
        arm: a.arm,
        reason: `error rate ${a.errorRate.toFixed(3)} vs control ${control.errorRate.toFixed(3)}: worse by more than ${g.errorRate}`,
        events: "errors",
        eventsArm: a.arm,
      });
    }
    if (worse(share(control.zeroResultRate, nC), share(a.zeroResultRate, nT), g.zeroResultRate, g.alpha)) {
      out.push({
        arm: a.arm,
        reason: `zero-result rate ${a.zeroResultRate.toFixed(3)} vs control ${control.zeroResultRate.toFixed(3)}: worse by more than ${g.zeroResultRate}`,
        events: "zeroResults",
        eventsArm: a.arm,
      });
    }
    const cut = control.p95LatencyMs + g.latencyMs;
    const slowT = await slowerThan(db, e, a.arm, cut);
    const slowC = await slowerThan(db, e, control.arm, cut);
    if (worse({ successes: slowC, trials: nC }, { successes: slowT, trials: nT }, g.slowShare, g.alpha)) {
      out.push({
        arm: a.arm,
        reason: `${((100 * slowT) / nT).toFixed(1)} % of searches slower than ${cut.toFixed(0)} ms (control's p95 + ${g.latencyMs}) vs ${((100 * slowC) / nC).toFixed(1)} % for control`,
        events: "slow",
        eventsArm: a.arm,
        cutMs: cut,
      });
    }
  }
  return out;
}

const EVENT_NAMES: Record<FindingEvents, string> = {
  errors: "failed searches",
  zeroResults: "zero-result searches",
  slow: "slow searches",
  users: "user keys",
};

/** A finding's reason with its concentration: "[the top 3 network prefixes hold 98.0 % of r1's 600 zero-result searches]". */
function withConcentration(f: GuardrailFinding, c: Concentration): string {
  const top = `top ${Math.min(c.top.length, COUNTING_LIMITS.concentrationTopPrefixes)} network prefixes`;
  return `${f.arm}: ${f.reason} [the ${top} hold ${(100 * c.share).toFixed(1)} % of ${f.eventsArm}'s ${c.total} ${EVENT_NAMES[f.events]}]`;
}

export interface GuardrailOutcome {
  readonly experiment: string;
  readonly action: "none" | "paused" | "rolled_back";
  readonly reasons: string[];
}

/** Rolls the running experiment back when a guardrail trips, or pauses it when every finding is concentrated on few networks. */
export async function enforceGuardrails(store: ExperimentStore, db: D1Database): Promise<GuardrailOutcome | null> {
  const e = await store.running();
  if (!e) {
    await store.mirror(); // keeps KV in step with D1 even when nothing runs
    return null;
  }
  const found = await findings(db, e);
  if (found.length === 0) {
    await store.mirror();
    return { experiment: e.id, action: "none", reasons: [] };
  }
  const checked = await Promise.all(found.map(async (f) => ({ f, c: await concentration(db, e, f.eventsArm, f.events, f.cutMs) })));
  const reasons = checked.map(({ f, c }) => withConcentration(f, c));
  const now = new Date();
  if (guardrailAction(checked.map(({ c }) => c)) === "pause") {
    const why = `paused, not rolled back: every finding comes mostly from a few network prefixes (more than ${100 * COUNTING_LIMITS.concentrationShareMin} % from the top ${COUNTING_LIMITS.concentrationTopPrefixes}), which looks like a few clients rather than a regression; control serves everyone until an admin resumes (excluding those prefixes) or ends it: ${reasons.join("; ")}`;
    const suspects = checked.flatMap(({ c }) => c.top.map((t) => t.net));
    await store.change(e, pausedExperiment(e, suspects, now), "pause", "guardrail", why);
    console.warn(`guardrail paused experiment ${e.id}: ${reasons.join("; ")}`);
    return { experiment: e.id, action: "paused", reasons };
  }
  await store.change(e, { ...e, state: "rolled_back", updatedAt: now.toISOString() }, "rollback", "guardrail", reasons.join("; "));
  console.warn(`guardrail rolled back experiment ${e.id}: ${reasons.join("; ")}`);
  return { experiment: e.id, action: "rolled_back", reasons };
}
