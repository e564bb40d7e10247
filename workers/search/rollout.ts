/**
 * Which published round answers a request. With a rollout configuration in
 * KV (`config:rollout`: {arms: [{round, weight}]}), a request is bucketed by a
 * stable hash of its user key, so a user keeps seeing the same arm; without
 * one, the newest published round serves everything.
 */
import { fnv1a32 } from "../../core/shard.js";
import type { ServingManifest } from "../publish/manifest.js";

export const ROLLOUT_KEY = "config:rollout";

export interface Rollout {
  readonly arms: ReadonlyArray<{ readonly round: number; readonly weight: number }>;
}

export function pickRound(published: readonly ServingManifest[], rollout: Rollout | null, userKey: string): ServingManifest | null {
  if (published.length === 0) return null;
  const byRound = new Map(published.map((m) => [m.round, m]));
  const arms = (rollout?.arms ?? []).filter((a) => a.weight > 0 && byRound.has(a.round));
  if (arms.length === 0) return published[0] ?? null;
  const total = arms.reduce((s, a) => s + a.weight, 0);
  let bucket = (fnv1a32(userKey) % 10_000) * (total / 10_000);
  for (const a of arms) {
    if (bucket < a.weight) return byRound.get(a.round) ?? null;
    bucket -= a.weight;
  }
  return byRound.get((arms[arms.length - 1] as { round: number }).round) ?? null;
}
