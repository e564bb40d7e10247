/**
 * An experiment's live report: per-arm figures from the EVENTS database,
 * each treatment against control (z-test, mSPRT with its running-minimum
 * always-valid p-value, MDE), SRM, interleaving preferences, and the verdict.
 * Aggregation is SQL (a few queries, whatever the traffic); the statistics
 * are statistics.ts.
 */
import type { Experiment } from "./config.js";
import { armName } from "./routing.js";
import {
  minimumDetectableEffect,
  msprt,
  msprtOneSample,
  type Sequential,
  type Srm,
  sampleRatioMismatch,
  signTest,
  twoProportionZTest,
  type Verdict,
  verdictOf,
  type ZTest,
} from "./statistics.js";

export interface ArmFigures {
  readonly arm: string;
  readonly round: number | null;
  readonly searches: number;
  readonly users: number;
  /** Searches with at least one click. */
  readonly clickedSearches: number;
  readonly ctr: number;
  readonly zeroResultRate: number;
  readonly errorRate: number;
  readonly fallbackRate: number;
  readonly p50LatencyMs: number;
  readonly p95LatencyMs: number;
}

export interface Comparison {
  readonly arm: string;
  readonly ctr: { readonly z: ZTest; readonly sequential: Sequential; readonly alwaysValidP: number; readonly mde: number };
  readonly verdict: Verdict;
}

export interface InterleavingFigures {
  readonly wins: number;
  readonly losses: number;
  readonly ties: number;
  readonly signTestP: number;
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

type Row = Record<string, number | string | null>;

async function armRows(db: D1Database, id: string): Promise<Row[]> {
  const { results } = await db
    .prepare(
      `SELECT s.arm AS arm, COUNT(*) AS searches, COUNT(DISTINCT s.user_key) AS users,
              SUM(s.zero_result) AS zero, SUM(s.error) AS errors, SUM(s.fallback) AS fallbacks,
              SUM(EXISTS (SELECT 1 FROM feedback f WHERE f.request_id = s.request_id AND f.type = 'click')) AS clicked
       FROM searches s WHERE s.experiment_id = ?1 GROUP BY s.arm`,
    )
    .bind(id)
    .all<Row>();
  return results;
}

async function latencyPercentile(db: D1Database, id: string, arm: string, searches: number, p: number): Promise<number> {
  if (searches === 0) return 0;
  const offset = Math.min(searches - 1, Math.max(0, Math.ceil((p / 100) * searches) - 1));
  const row = await db
    .prepare("SELECT latency_ms FROM searches WHERE experiment_id = ?1 AND arm = ?2 ORDER BY latency_ms LIMIT 1 OFFSET ?3")
    .bind(id, arm, offset)
    .first<{ latency_ms: number }>();
  return row?.latency_ms ?? 0;
}

/** Searches of an arm slower than `ms`. */
export async function slowerThan(db: D1Database, id: string, arm: string, ms: number): Promise<number> {
  const row = await db
    .prepare("SELECT COUNT(*) AS n FROM searches WHERE experiment_id = ?1 AND arm = ?2 AND latency_ms > ?3")
    .bind(id, arm, ms)
    .first<{ n: number }>();
  return Number(row?.n ?? 0);
}

async function interleavingCounts(db: D1Database, id: string): Promise<{ wins: number; losses: number; ties: number }> {
  const row = await db
    .prepare(
      `SELECT SUM(t > c) AS wins, SUM(c > t) AS losses, SUM(t = c) AS ties FROM (
         SELECT SUM(team = 'treatment') AS t, SUM(team = 'control') AS c FROM feedback
         WHERE experiment_id = ?1 AND type = 'click' AND team IS NOT NULL GROUP BY request_id)`,
    )
    .bind(id)
    .first<Row>();
  return { wins: Number(row?.wins ?? 0), losses: Number(row?.losses ?? 0), ties: Number(row?.ties ?? 0) };
}

/** The expected shares of users per arm, in armFigures' order: A/B arms' weights; interleaving's control-only and interleaved groups. */
export function srmWeights(e: Experiment): number[] {
  return e.design === "interleave" ? [10_000 - e.interleaveShareBp, e.interleaveShareBp] : e.arms.map((a) => a.weight);
}

export async function armFigures(db: D1Database, e: Experiment): Promise<ArmFigures[]> {
  const rows = new Map((await armRows(db, e.id)).map((r) => [String(r.arm), r]));
  const names = e.design === "interleave" ? [armName(e.control), "interleaved"] : e.arms.map((a) => armName(a.round));
  return Promise.all(
    names.map(async (arm) => {
      const r = rows.get(arm) ?? {};
      const searches = Number(r.searches ?? 0);
      const div = (x: unknown) => (searches > 0 ? Number(x ?? 0) / searches : 0);
      return {
        arm,
        round: arm === "interleaved" ? null : Number(arm.slice(1)),
        searches,
        users: Number(r.users ?? 0),
        clickedSearches: Number(r.clicked ?? 0),
        ctr: div(r.clicked),
        zeroResultRate: div(r.zero),
        errorRate: div(r.errors),
        fallbackRate: div(r.fallbacks),
        p50LatencyMs: await latencyPercentile(db, e.id, arm, searches, 50),
        p95LatencyMs: await latencyPercentile(db, e.id, arm, searches, 95),
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
  const comparisons: Comparison[] = arms
    .filter((a) => a !== control)
    .map((a) => {
      const c = { successes: control.clickedSearches, trials: control.searches };
      const t = { successes: a.clickedSearches, trials: a.searches };
      const seq = msprt(c, t, { alpha });
      const alwaysValidP = runningMin(`ctr:${a.arm}`, seq.pValue);
      return {
        arm: a.arm,
        ctr: { z: twoProportionZTest(c, t), sequential: seq, alwaysValidP, mde: minimumDetectableEffect(control.ctr, control.searches, a.searches, alpha) },
        verdict: verdictOf(seq.difference, alwaysValidP, alpha),
      };
    });
  const srm = sampleRatioMismatch(
    arms.map((a) => a.users),
    srmWeights(e),
  );
  let interleaving: InterleavingFigures | null = null;
  if (e.design === "interleave") {
    const { wins, losses, ties } = await interleavingCounts(db, e.id);
    // Sequential test of the treatment's share of decided searches against ½.
    const seq = msprtOneSample({ successes: wins, trials: wins + losses }, 0.5, { alpha, tau: 0.1 });
    const alwaysValidP = runningMin("interleaving", seq.pValue);
    interleaving = {
      wins,
      losses,
      ties,
      signTestP: signTest(wins, losses),
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
        .sort((a, b) => b.ctr.z.difference - a.ctr.z.difference)[0]
        ?.arm.slice(1);
  const verdict: Verdict = decisive.includes("treatment better")
    ? "treatment better"
    : decisive.every((v) => v === "treatment worse") && decisive.length > 0
      ? "treatment worse"
      : "no detectable difference yet";
  const winner = verdict === "treatment better" ? Number(better) : verdict === "treatment worse" ? e.control : null;
  return { report: { experiment: e.id, design: e.design, arms, comparisons, interleaving, srm, verdict, winner }, sequential };
}
