/**
 * An experiment's states and the changes between them, as pure functions:
 *
 *   start → running ─ramp→ running
 *           running ─pause (the guardrail cron, traffic concentrated on few networks)→ paused
 *           paused  ─resume (admin)→ running
 *   running | paused ─promote→ promoted,  ─rollback→ rolled_back   (ended)
 *
 * A paused experiment serves control to everyone, as a rolled-back one
 * does, so users are as safe as after a rollback; but it has not ended: its
 * assignment (salt, weights) and its events are kept, and a resume brings
 * every user back to the arm they had. It does not ramp: a ramp while
 * nobody sees the treatment would change what a resume brings back unseen.
 */
import type { Experiment, ExperimentState } from "./config.js";
import { COUNTING_LIMITS } from "./counting.js";
import { InvalidExperiment } from "./validate.js";

export type ChangeAction = "start" | "ramp" | "promote" | "rollback" | "stop" | "pause" | "resume";

/** The states each change applies to. */
export const CHANGE_FROM: Readonly<Record<Exclude<ChangeAction, "start">, readonly ExperimentState[]>> = {
  ramp: ["running"],
  pause: ["running"],
  resume: ["paused"],
  promote: ["running", "paused"],
  rollback: ["running", "paused"],
  stop: ["running", "paused"],
};

/** Why `action` does not apply to `e` now, or null when it does. */
export function changeRefusal(e: Experiment, action: Exclude<ChangeAction, "start">): string | null {
  const from = CHANGE_FROM[action];
  if (from.includes(e.state)) return null;
  if (e.state === "paused" && action === "ramp") return `experiment ${e.id} is paused: resume it before ramping`;
  return `experiment ${e.id} is ${e.state}; ${action} applies to a ${from.join(" or ")} experiment`;
}

/** The experiment paused by the guardrail, with the prefixes (hashed) its concentrated findings came from. */
export function pausedExperiment(e: Experiment, suspects: readonly string[], now: Date): Experiment {
  return { ...e, state: "paused", suspectPrefixes: [...new Set(suspects)], updatedAt: now.toISOString() };
}

/**
 * The experiment resumed: running again; with `exclude`, the suspect
 * prefixes join the excluded ones, whose searches its statistics leave out
 * from then on (otherwise the same events would trip the same finding at
 * the next cron run).
 */
export function resumedExperiment(e: Experiment, exclude: boolean, now: Date): Experiment {
  const { suspectPrefixes, ...rest } = e;
  const excluded = [...new Set([...(e.excludedPrefixes ?? []), ...(exclude ? (suspectPrefixes ?? []) : [])])];
  if (excluded.length > COUNTING_LIMITS.excludedPrefixesMax)
    throw new InvalidExperiment(
      "exclude",
      `at most ${COUNTING_LIMITS.excludedPrefixesMax} network prefixes can be excluded (this would make ${excluded.length}): resume with exclude false, or roll back`,
    );
  return { ...rest, state: "running", ...(excluded.length > 0 ? { excludedPrefixes: excluded } : {}), updatedAt: now.toISOString() };
}
