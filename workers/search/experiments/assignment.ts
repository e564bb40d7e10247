/**
 * A request's arm: bucket = hash(salt, user key) in 0..9999, then a layout
 * of buckets to arms that is monotone under ramps.
 *
 * Layout: with K treatment arms, bucket b is read as (slot = b mod K,
 * rank = ⌊b / K⌋); treatment arm j owns the buckets of slot j with rank <
 * w_j, control owns the rest. Raising w_j only adds ranks to slot j, taken
 * from control, so a ramp moves users from control into the raised arm and
 * nobody else changes arm. The price: each treatment arm holds at most
 * 10 000 / K bp (5 000 with two treatments, all of it with one).
 */
import { fmix32, fnv1a32 } from "../../../core/shard.js";
import { type Arm, EXPERIMENT_LIMITS } from "./config.js";

export function bucketOf(salt: string, userKey: string): number {
  return fmix32(fnv1a32(`${salt}\u0000${userKey}`)) % EXPERIMENT_LIMITS.totalWeightBp;
}

/** The largest weight one treatment arm may have with `treatments` treatment arms. */
export const treatmentCapBp = (treatments: number) => Math.floor(EXPERIMENT_LIMITS.totalWeightBp / Math.max(1, treatments));

/** The arm (index into `arms`) that owns a bucket; `control` is the control arm's index. */
export function armOfBucket(arms: readonly Arm[], control: number, bucket: number): number {
  const treatments = arms.map((_, j) => j).filter((j) => j !== control);
  if (treatments.length === 0) return control;
  const slot = bucket % treatments.length;
  const rank = Math.floor(bucket / treatments.length);
  const j = treatments[slot] as number;
  return rank < (arms[j] as Arm).weight ? j : control;
}

/** Why a ramp from `before` to `after` is not monotone, or null when it is. */
export function rampProblem(before: readonly Arm[], after: readonly Arm[], control: number): string | null {
  if (before.length !== after.length) return "a ramp keeps the arms; it changes only their weights";
  for (let j = 0; j < before.length; j++) {
    if ((before[j] as Arm).round !== (after[j] as Arm).round) return `arm ${j} is round ${(before[j] as Arm).round}; a ramp changes only weights`;
    if (j !== control && (after[j] as Arm).weight < (before[j] as Arm).weight)
      return `arm ${j} (round ${(after[j] as Arm).round}) would shrink: a ramp only raises treatment arms, from control`;
  }
  return null;
}
