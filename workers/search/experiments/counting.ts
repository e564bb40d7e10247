/**
 * Counting that one client cannot inflate, as pure functions (the SQL that
 * feeds them is counted.ts).
 *
 * The user key is the client's to choose, so alone it is no unit: one
 * machine rotating keys is a thousand "users". A search is also counted per
 * network prefix (network.ts: the client's /24 or /48):
 *  - SRM counts users per arm with each prefix's keys capped: a prefix with
 *    K distinct keys counts each of them min(1, keysPerPrefixMax / K) times;
 *  - rates (CTR, zero results, errors, slow searches, interleaving
 *    preferences) weigh each search min(1, searchesPerPrefixMax / n), n the
 *    prefix's searches in the experiment.
 * The weight is the prefix's, the same in every arm, and assignment does
 * not depend on the network, so an honest prefix's share stays the same in
 * every arm: the caps cost statistical power on busy prefixes (NAT pools,
 * offices), never bias. One prefix then moves SRM by at most 8 users and a
 * rate by at most 50 searches, whatever it sends.
 *
 * A guardrail finding is concentrated when the top `concentrationTopPrefixes`
 * prefixes hold more than `concentrationShareMin` of the events behind it
 * (an arm's zero-result, failed or slow searches; for SRM, the user keys of
 * the arm most over its share). When every finding is concentrated the cron
 * pauses the experiment instead of rolling it back (lifecycle.ts): a few
 * networks can stop an experiment for a human to look at, not end it.
 */

export const COUNTING_LIMITS = {
  /** SRM: users one prefix counts as, at most. A household or small office rarely has more distinct browsers in one experiment. */
  keysPerPrefixMax: 8,
  /** Rates: searches one prefix weighs, at most (8 users × about 6 searches each). */
  searchesPerPrefixMax: 50,
  /** Concentration: this many top prefixes… */
  concentrationTopPrefixes: 3,
  /** …holding more than this share of a finding's events. */
  concentrationShareMin: 0.5,
  /** Prefixes a resumed experiment leaves out of its statistics, at most (the top prefixes of each pause add up). */
  excludedPrefixesMax: 64,
} as const;

export interface PrefixEvents {
  /** The hashed prefix (network.ts). */
  readonly net: string;
  readonly events: number;
}

export interface Concentration {
  /** The top prefixes, most events first. */
  readonly top: readonly PrefixEvents[];
  readonly total: number;
  /** The top prefixes' share of the total (0 when there are no events). */
  readonly share: number;
  readonly concentrated: boolean;
}

/** Whether the top prefixes hold more than the concentration share of `total` events. */
export function concentrationOf(prefixes: readonly PrefixEvents[], total: number): Concentration {
  const top = [...prefixes].sort((a, b) => b.events - a.events).slice(0, COUNTING_LIMITS.concentrationTopPrefixes);
  const held = top.reduce((s, p) => s + p.events, 0);
  const share = total > 0 ? Math.min(1, held / total) : 0;
  return { top, total, share, concentrated: share > COUNTING_LIMITS.concentrationShareMin };
}

export type GuardrailAction = "none" | "pause" | "rollback";

/**
 * What the cron does about its findings: nothing without one; a pause when
 * every finding is concentrated on few networks; else a rollback (one
 * diffuse finding is a real regression, whatever else a few networks do).
 */
export function guardrailAction(findings: ReadonlyArray<{ readonly concentrated: boolean }>): GuardrailAction {
  if (findings.length === 0) return "none";
  return findings.every((f) => f.concentrated) ? "pause" : "rollback";
}

/** The arm (index) whose observed count most exceeds its expected share: the arm an SRM finding is about. */
export function mostOverweightArm(observed: readonly number[], weights: readonly number[]): number {
  const n = observed.reduce((a, b) => a + b, 0);
  const w = weights.reduce((a, b) => a + b, 0);
  let best = 0;
  let bestExcess = Number.NEGATIVE_INFINITY;
  observed.forEach((o, j) => {
    const expected = w > 0 ? (n * (weights[j] ?? 0)) / w : 0;
    const excess = expected > 0 ? (o - expected) / expected : o > 0 ? Number.POSITIVE_INFINITY : 0;
    if (excess > bestExcess) {
      best = j;
      bestExcess = excess;
    }
  });
  return best;
}
