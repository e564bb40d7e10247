/**
 * Guardrails, run by the cron trigger once a minute over the running
 * experiment. A treatment arm is rolled back when, by the sequential test
 * (so checking every minute stays valid), it is worse than control beyond
 * the experiment's threshold on the error rate, the zero-result rate or the
 * share of searches slower than control's p95 + latencyMs; or when the
 * users per arm show a sample-ratio mismatch. Every automatic action is
 * recorded with its reason, and logged.
 */
import type { Experiment, Guardrails } from "./config.js";
import { type ArmFigures, armFigures, slowerThan, srmWeights } from "./report.js";
import { armName } from "./routing.js";
import { msprt, sampleRatioMismatch } from "./statistics.js";
import type { ExperimentStore } from "./store.js";

export interface GuardrailFinding {
  readonly arm: string;
  readonly reason: string;
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
  const srm = sampleRatioMismatch(
    arms.map((a) => a.users),
    weights,
  );
  if (srm.mismatch && arms.every((a) => a.searches >= g.minSearches)) {
    out.push({
      arm: "all",
      reason: `sample-ratio mismatch: users per arm ${arms.map((a) => `${a.arm} ${a.users}`).join(", ")} against weights ${weights.join("/")} (chi-square p = ${srm.pValue.toExponential(2)})`,
    });
  }
  for (const a of arms) {
    if (a === control || a.searches < g.minSearches || control.searches < g.minSearches) continue;
    const share = (rate: number, n: number) => ({ successes: Math.round(rate * n), trials: n });
    if (worse(share(control.errorRate, control.searches), share(a.errorRate, a.searches), g.errorRate, g.alpha)) {
      out.push({ arm: a.arm, reason: `error rate ${a.errorRate.toFixed(3)} vs control ${control.errorRate.toFixed(3)}: worse by more than ${g.errorRate}` });
    }
    if (worse(share(control.zeroResultRate, control.searches), share(a.zeroResultRate, a.searches), g.zeroResultRate, g.alpha)) {
      out.push({
        arm: a.arm,
        reason: `zero-result rate ${a.zeroResultRate.toFixed(3)} vs control ${control.zeroResultRate.toFixed(3)}: worse by more than ${g.zeroResultRate}`,
      });
    }
    const cut = control.p95LatencyMs + g.latencyMs;
    const slowT = await slowerThan(db, e.id, a.arm, cut);
    const slowC = await slowerThan(db, e.id, control.arm, cut);
    if (worse({ successes: slowC, trials: control.searches }, { successes: slowT, trials: a.searches }, g.slowShare, g.alpha)) {
      out.push({
        arm: a.arm,
        reason: `${((100 * slowT) / a.searches).toFixed(1)} % of searches slower than ${cut.toFixed(0)} ms (control's p95 + ${g.latencyMs}) vs ${((100 * slowC) / control.searches).toFixed(1)} % for control`,
      });
    }
  }
  return out;
}

/** Rolls the running experiment back when a guardrail trips; returns what it did. */
export async function enforceGuardrails(
  store: ExperimentStore,
  db: D1Database,
): Promise<{ experiment: string; rolledBack: boolean; reasons: string[] } | null> {
  const e = await store.running();
  if (!e) {
    await store.mirror(); // keeps KV in step with D1 even when nothing runs
    return null;
  }
  const found = await findings(db, e);
  if (found.length === 0) {
    await store.mirror();
    return { experiment: e.id, rolledBack: false, reasons: [] };
  }
  const reasons = found.map((f) => `${f.arm}: ${f.reason}`);
  const now = new Date().toISOString();
  await store.change(e, { ...e, state: "rolled_back", updatedAt: now }, "rollback", "guardrail", reasons.join("; "));
  console.warn(`guardrail rolled back experiment ${e.id}: ${reasons.join("; ")}`);
  return { experiment: e.id, rolledBack: true, reasons };
}
