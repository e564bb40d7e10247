/**
 * Which round(s) answer a request: the running experiment's arm for this
 * user (A/B), or both rounds merged (interleaving); without an experiment,
 * the default round (the last promoted winner or rolled-back control), else
 * the newest published round. An arm whose round is not published falls
 * back to control, so an experiment can never make search fail.
 */

import type { ServingManifest } from "../../../core/contract.js";
import { fnv1a32 } from "../../../core/shard.js";
import { armOfBucket, bucketOf } from "./assignment.js";
import type { ServingConfig } from "./store.js";

export type Routed =
  | {
      readonly kind: "single";
      readonly round: ServingManifest;
      readonly experiment: string | null;
      readonly arm: string | null;
      /** The experiment's salt (events hash the client's network with it); null outside an experiment. */
      readonly salt: string | null;
    }
  | {
      readonly kind: "interleave";
      readonly control: ServingManifest;
      readonly treatment: ServingManifest;
      readonly experiment: string;
      readonly arm: "interleaved";
      readonly salt: string;
      /** Seeds the team-draft coin: stable for (experiment, user, query), so pages agree. */
      readonly seedFor: (query: string) => number;
    };

export const armName = (round: number) => `r${round}`;

export function route(published: readonly ServingManifest[], config: ServingConfig | null, userKey: string): Routed | null {
  if (published.length === 0) return null;
  const byRound = new Map(published.map((m) => [m.round, m]));
  const fallback = (config?.defaultRound != null ? byRound.get(config.defaultRound) : undefined) ?? (published[0] as ServingManifest);
  const e = config?.experiment;
  if (!e) return { kind: "single", round: fallback, experiment: null, arm: null, salt: null };
  const control = byRound.get(e.control);
  if (!control) return { kind: "single", round: fallback, experiment: null, arm: null, salt: null };
  const bucket = bucketOf(e.salt, userKey);
  if (e.design === "interleave") {
    const treatmentRound = e.arms.find((a) => a.round !== e.control)?.round;
    const treatment = treatmentRound === undefined ? undefined : byRound.get(treatmentRound);
    if (!treatment || bucket >= e.interleaveShareBp) return { kind: "single", round: control, experiment: e.id, arm: armName(control.round), salt: e.salt };
    return {
      kind: "interleave",
      control,
      treatment,
      experiment: e.id,
      arm: "interleaved",
      salt: e.salt,
      seedFor: (q) => fnv1a32(`${e.salt}\u0000${userKey}\u0000${q}`),
    };
  }
  const j = armOfBucket(
    e.arms,
    e.arms.findIndex((a) => a.round === e.control),
    bucket,
  );
  const round = byRound.get(e.arms[j]?.round ?? e.control) ?? control;
  return { kind: "single", round, experiment: e.id, arm: armName(round.round), salt: e.salt };
}
