/**
 * A/A runs of the per-user statistics (workers/search/experiments/
 * user-statistics.ts) without a server: both arms the same, the report read
 * at users × growth, a false positive whenever the running-minimum p falls
 * below α at any look. It checks that peeking does not inflate the error of
 * the always-valid tests once their variance is estimated from the data
 * (the mixture's guarantee assumes it known), at the sample sizes the bench
 * reaches. The end-to-end A/A of the bench (round 0 against a copy of
 * itself, on wrangler dev) checks the same with the worker's SQL.
 */
import { Rng } from "../../core/rng.js";
import { addUser, cupedMsprt, meanPreferenceMsprt, NO_USERS, type UserMoments } from "../../workers/search/experiments/user-statistics.js";

export interface AaOptions {
  readonly experiments: number;
  readonly maxUsers: number;
  readonly firstLook: number;
  readonly growth: number;
  readonly seed: number;
  readonly alpha: number;
}

export const AA_DEFAULTS: AaOptions = { experiments: 1000, maxUsers: 4000, firstLook: 10, growth: 1.05, seed: 1, alpha: 0.05 };

/** The users at which the report is read: firstLook, then × growth (at least one more each time), up to maxUsers. */
export function looks(o: Pick<AaOptions, "maxUsers" | "firstLook" | "growth">): number[] {
  const out: number[] = [];
  for (let n = o.firstLook; n < o.maxUsers; n = Math.max(n + 1, Math.ceil(n * o.growth))) out.push(n);
  out.push(o.maxUsers);
  return out;
}

/**
 * Interleaving A/A: a user decides 1, 2 or 3 searches (80 / 15 / 5 %),
 * each a fair coin between the teams; the user's preference is
 * (won − lost) / decided. Returns the share of experiments with a verdict.
 */
export function aaPreferenceRate(o: AaOptions = AA_DEFAULTS): number {
  const rng = new Rng(o.seed);
  let positives = 0;
  const at = looks(o);
  for (let e = 0; e < o.experiments; e++) {
    let m: UserMoments = NO_USERS;
    let u = 0;
    let minP = 1;
    for (const n of at) {
      for (; u < n; u++) {
        const r = rng.next();
        const decided = r < 0.8 ? 1 : r < 0.95 ? 2 : 3;
        let won = 0;
        for (let s = 0; s < decided; s++) if (rng.next() < 0.5) won++;
        m = addUser(m, (2 * won - decided) / decided);
      }
      minP = Math.min(minP, meanPreferenceMsprt(m, { alpha: o.alpha }).pValue);
    }
    if (minP < o.alpha) positives++;
  }
  return positives / o.experiments;
}

/**
 * A/B A/A with CUPED: 400 queries with click chances uniform in 5–80 %;
 * each user makes 3 searches of random queries and lands in either arm by
 * a coin; y = the user's share of clicked searches, x = the mean click
 * chance of the user's queries. Returns the share of experiments with a verdict.
 */
export function aaCupedRate(o: AaOptions = AA_DEFAULTS): number {
  const rng = new Rng(o.seed);
  const chance = Array.from({ length: 400 }, () => 0.05 + 0.75 * rng.next());
  let positives = 0;
  const at = looks(o);
  for (let e = 0; e < o.experiments; e++) {
    const arms: [UserMoments, UserMoments] = [NO_USERS, NO_USERS];
    let u = 0;
    let minP = 1;
    for (const n of at) {
      for (; u < n; u++) {
        let clicked = 0;
        let x = 0;
        for (let s = 0; s < 3; s++) {
          const p = chance[Math.floor(rng.next() * chance.length)] as number;
          x += p / 3;
          if (rng.next() < p) clicked++;
        }
        const arm = rng.next() < 0.5 ? 0 : 1;
        arms[arm] = addUser(arms[arm], clicked / 3, x);
      }
      minP = Math.min(minP, cupedMsprt(arms[0], arms[1], { alpha: o.alpha }).sequential.pValue);
    }
    if (minP < o.alpha) positives++;
  }
  return positives / o.experiments;
}
