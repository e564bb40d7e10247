/**
 * An experiment's live report: per-arm figures from the EVENTS database,
 * each treatment against control (per search: z-test, mSPRT with its
 * running-minimum always-valid p-value, MDE; per user, what the verdict
 * reads: CUPED-adjusted CTR under the mSPRT), SRM, interleaving preferences
 * (per search, and per user from debiased credit: what the verdict reads),
 * and the verdict.
 * Aggregation is SQL (counted.ts: a few queries, whatever the traffic); the
 * statistics are statistics.ts. Every test and rate is over the counted
 * figures (counting.ts: each network prefix's weight capped), so a single
 * client cannot move them; the figures as recorded are shown beside them.
 */
import type { Experiment } from "./config.js";
import { armRows, interleavingCounts, latencyPercentile } from "./counted.js";
import { creditedPreferences, userCtrMoments } from "./counted-users.js";
import { armName } from "./routing.js";
import {
  minimumDetectableEffect,
  msprt,
  type Sequential,
  type Srm,
  sampleRatioMismatch,
  signTest,
  twoProportionZTest,
  type Verdict,
  verdictOf,
  type ZTest,
} from "./statistics.js";
import { cupedMsprt, meanPreferenceMsprt, NO_USERS } from "./user-statistics.js";

export interface ArmFigures {
  readonly arm: string;
  readonly round: number | null;
  /** As recorded. */
  readonly searches: number;
  /** Distinct user keys, as recorded (a client chooses its keys: SRM uses counted.users). */
  readonly users: number;
  /** Searches with at least one click, as recorded. */
  readonly clickedSearches: number;
  /** What the tests count (counting.ts): searches and clicked searches weighted per network prefix, users capped per prefix. */
  readonly counted: { readonly searches: number; readonly users: number; readonly clickedSearches: number };
  /** Rates over the counted searches. */
  readonly ctr: number;
  readonly zeroResultRate: number;
  readonly errorRate: number;
  readonly fallbackRate: number;
  readonly p50LatencyMs: number;
  readonly p95LatencyMs: number;
}

export interface Comparison {
  readonly arm: string;
  /** Per search (each search a trial): the plain A/B test. */
  readonly ctr: { readonly z: ZTest; readonly sequential: Sequential; readonly alwaysValidP: number; readonly mde: number };
  /** Per user: the difference of users' CTRs, CUPED-adjusted by the CTR of the queries they typed (counted-users.ts). The verdict reads this. */
  readonly cuped: {
    readonly users: { readonly control: number; readonly treatment: number };
    readonly theta: number;
    readonly rawDifference: number;
    readonly varianceReduction: number;
    readonly sequential: Sequential;
    readonly alwaysValidP: number;
  };
  readonly verdict: Verdict;
}

export interface InterleavingFigures {
  /** Interleaved searches whose clicks preferred the treatment, control, or neither; as counted (weighted per network prefix). */
  readonly wins: number;
  readonly losses: number;
  readonly ties: number;
  readonly signTestP: number;
  /** Searches decided by credited clicks only (a click on an item only one round ranked; interleave.ts), as counted. */
  readonly credited: { readonly wins: number; readonly losses: number };
  /** Users with a decided search (counted: key-capped per prefix) and their mean preference (won − lost) / (won + lost), in [−1, 1]. */
  readonly users: { readonly decided: number; readonly meanPreference: number };
  /** The mSPRT of the mean user preference against 0: what the verdict reads. */
  readonly sequential: Sequential;
  readonly alwaysValidP: number;
  readonly verdict: Verdict;
}

export interface Report {
  readonly experiment: string;
  readonly design: Experiment["design"];
  readonly arms: readonly ArmFigures[];
  readonly comparisons: readonly Comparison[];
  readonly interleaving: InterleavingFigures | null;
  readonly srm: Srm;
  readonly verdict: Verdict;
  readonly winner: number | null;
}

/** The expected shares of users per arm, in armFigures' order: A/B arms' weights; interleaving's control-only and interleaved groups. */
export function srmWeights(e: Experiment): number[] {
  return e.design === "interleave" ? [10_000 - e.interleaveShareBp, e.interleaveShareBp] : e.arms.map((a) => a.weight);
}

export async function armFigures(db: D1Database, e: Experiment): Promise<ArmFigures[]> {
  const rows = await armRows(db, e);
  const names = e.design === "interleave" ? [armName(e.control), "interleaved"] : e.arms.map((a) => armName(a.round));
  return Promise.all(
    names.map(async (arm) => {
      const r = rows.get(arm);
      const searches = r?.searches ?? 0;
      const counted = r?.counted ?? { searches: 0, users: 0, clicked: 0 };
      const div = (x: number | undefined) => (counted.searches > 0 ? (x ?? 0) / counted.searches : 0);
      return {
        arm,
        round: arm === "interleaved" ? null : Number(arm.slice(1)),
        searches,
        users: r?.users ?? 0,
        clickedSearches: r?.clicked ?? 0,
        counted: { searches: counted.searches, users: counted.users, clickedSearches: counted.clicked },
        ctr: div(counted.clicked),
        zeroResultRate: div(r?.zero),
        errorRate: div(r?.errors),
        fallbackRate: div(r?.fallbacks),
        p50LatencyMs: await latencyPercentile(db, e, arm, searches, 50),
        p95LatencyMs: await latencyPercentile(db, e, arm, searches, 95),
      };
    }),
  );
}

/**
 * The report, and the updated running minima of the sequential p-values
 * (`previous` is what the experiment row stored; the caller saves the result).
 */
export async function buildReport(
  db: D1Database,
  e: Experiment,
  previous: Record<string, number>,
  alpha: number = e.guardrails.alpha,
): Promise<{ report: Report; sequential: Record<string, number> }> {
  const arms = await armFigures(db, e);
  const sequential = { ...previous };
  const runningMin = (key: string, p: number) => {
    sequential[key] = Math.min(sequential[key] ?? 1, p);
    return sequential[key] as number;
  };
  const control = arms.find((a) => a.arm === armName(e.control)) as ArmFigures;
  const perUser = e.design === "ab" ? await userCtrMoments(db, e) : new Map();
  const comparisons: Comparison[] = arms
    .filter((a) => a !== control)
    .map((a) => {
      const c = { successes: control.counted.clickedSearches, trials: control.counted.searches };
      const t = { successes: a.counted.clickedSearches, trials: a.counted.searches };
      const seq = msprt(c, t, { alpha });
      const alwaysValidP = runningMin(`ctr:${a.arm}`, seq.pValue);
      const [uc, ut] = [perUser.get(control.arm) ?? NO_USERS, perUser.get(a.arm) ?? NO_USERS];
      const cuped = cupedMsprt(uc, ut, { alpha });
      const cupedP = runningMin(`cuped:${a.arm}`, cuped.sequential.pValue);
      return {
        arm: a.arm,
        ctr: {
          z: twoProportionZTest(c, t),
          sequential: seq,
          alwaysValidP,
          mde: minimumDetectableEffect(control.ctr, control.counted.searches, a.counted.searches, alpha),
        },
        cuped: { users: { control: uc.n, treatment: ut.n }, ...cuped, alwaysValidP: cupedP },
        verdict: verdictOf(cuped.sequential.difference, cupedP, alpha),
      };
    });
  const srm = sampleRatioMismatch(
    arms.map((a) => a.counted.users),
    srmWeights(e),
  );
  let interleaving: InterleavingFigures | null = null;
  if (e.design === "interleave") {
    const [{ wins, losses, ties }, credited] = await Promise.all([interleavingCounts(db, e), creditedPreferences(db, e)]);
    // Sequential test of the mean user preference (debiased credit) against 0.
    const seq = meanPreferenceMsprt(credited.users, { alpha });
    const alwaysValidP = runningMin("preference", seq.pValue);
    interleaving = {
      wins,
      losses,
      ties,
      signTestP: signTest(Math.round(wins), Math.round(losses)),
      credited: { wins: credited.wins, losses: credited.losses },
      users: { decided: credited.users.n, meanPreference: seq.difference },
      sequential: seq,
      alwaysValidP,
      verdict: verdictOf(seq.difference, alwaysValidP, alpha),
    };
  }
  const decisive = interleaving ? [interleaving.verdict] : comparisons.map((c) => c.verdict);
  const better = interleaving
    ? interleaving.verdict === "treatment better"
      ? e.arms.find((a) => a.round !== e.control)?.round
      : undefined
    : comparisons
        .filter((c) => c.verdict === "treatment better")
        .sort((a, b) => b.cuped.sequential.difference - a.cuped.sequential.difference)[0]
        ?.arm.slice(1);
  const verdict: Verdict = decisive.includes("treatment better")
    ? "treatment better"
    : decisive.every((v) => v === "treatment worse") && decisive.length > 0
      ? "treatment worse"
      : "no detectable difference yet";
  const winner = verdict === "treatment better" ? Number(better) : verdict === "treatment worse" ? e.control : null;
  return { report: { experiment: e.id, design: e.design, arms, comparisons, interleaving, srm, verdict, winner }, sequential };
}
