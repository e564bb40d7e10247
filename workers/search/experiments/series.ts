/**
 * An experiment over time, for its dashboard (/experiments/:id): the
 * statistics the verdict reads, as they stood at a few looks spread over the
 * experiment's span, and its daily searches, clicks and purchases per arm.
 *
 * Each look recomputes the report's own figures with the searches and
 * feedback recorded up to that time (counted.ts's `until`), so the last look
 * is the live report's: the (1 − α) confidence sequence of the effect
 * (statistics.ts's mixture: valid at every look, so watching it narrow
 * costs no false positives), and for interleaving the mean user preference
 * and the credited win share. Looks are few (looks.ts).
 */
import type { Experiment } from "./config.js";
import { ALL_TIME, armRows, countedUntil } from "./counted.js";
import { creditedPreferences, userCtrMoments } from "./counted-users.js";
import { type DailyArm, type EffectLook, lookTimes, type Series } from "./looks.js";
import { armName } from "./routing.js";
import { msprt } from "./statistics.js";
import { cupedMsprt, meanPreferenceMsprt, NO_USERS } from "./user-statistics.js";

export type { DailyArm, EffectLook, Series } from "./looks.js";
export { lookTimes, SERIES_LIMITS } from "./looks.js";

/** From the experiment's first search to its last event, search or feedback (epoch ms; the last look then sees every click); null without a search. */
async function span(db: D1Database, e: Experiment): Promise<{ first: number; last: number } | null> {
  const row = await db
    .prepare(
      "SELECT MIN(at) AS first, MAX(MAX(at), COALESCE((SELECT MAX(at) FROM feedback WHERE experiment_id = ?1), 0)) AS last FROM searches WHERE experiment_id = ?1",
    )
    .bind(e.id)
    .first<{ first: number | null; last: number | null }>();
  return row?.first == null || row.last == null ? null : { first: Number(row.first), last: Number(row.last) };
}

async function abLooks(db: D1Database, e: Experiment, at: number): Promise<EffectLook[]> {
  const [arms, perUser] = await Promise.all([armRows(db, e, at), userCtrMoments(db, e, at)]);
  const control = armName(e.control);
  const c = arms.get(control);
  const uc = perUser.get(control) ?? NO_USERS;
  const alpha = e.guardrails.alpha;
  return e.arms
    .filter((a) => a.round !== e.control)
    .map((a) => {
      const arm = armName(a.round);
      const t = arms.get(arm);
      const ut = perUser.get(arm) ?? NO_USERS;
      const cuped = cupedMsprt(uc, ut, { alpha });
      const perSearch = msprt(
        { successes: c?.counted.clicked ?? 0, trials: c?.counted.searches ?? 0 },
        { successes: t?.counted.clicked ?? 0, trials: t?.counted.searches ?? 0 },
        { alpha },
      );
      return {
        at,
        arm,
        effect: cuped.sequential.difference,
        confidenceSequence: cuped.sequential.confidenceSequence,
        secondary: perSearch.difference,
        users: uc.n + ut.n,
      };
    });
}

async function interleavingLook(db: D1Database, e: Experiment, at: number): Promise<EffectLook> {
  const credited = await creditedPreferences(db, e, at);
  const seq = meanPreferenceMsprt(credited.users, { alpha: e.guardrails.alpha });
  const decided = credited.wins + credited.losses;
  return {
    at,
    arm: "interleaved",
    effect: seq.difference,
    confidenceSequence: seq.confidenceSequence,
    secondary: decided > 0 ? credited.wins / decided : 0.5,
    users: credited.users.n,
  };
}

/** Per UTC day and arm, as recorded: searches, searches with a click, and purchases (an experiment's days × arms rows: a year of 8 arms is 2,920). */
export async function dailyPerArm(db: D1Database, e: Experiment, until = ALL_TIME): Promise<DailyArm[]> {
  const { results } = await countedUntil(
    db,
    e,
    until,
    `, d AS (SELECT strftime('%Y-%m-%d', s.at / 1000, 'unixepoch') AS day, s.arm AS arm,
                    EXISTS (SELECT 1 FROM feedback f WHERE f.request_id = s.request_id AND f.type = 'click' AND f.at <= ?5) AS c,
                    (SELECT COUNT(*) FROM feedback f WHERE f.request_id = s.request_id AND f.type = 'purchase' AND f.at <= ?5) AS p
             FROM s)
     SELECT day, arm, COUNT(*) AS searches, SUM(c) AS clicked, SUM(p) AS purchases FROM d GROUP BY day, arm ORDER BY day, arm`,
  ).all<{ day: string; arm: string | null; searches: number; clicked: number; purchases: number }>();
  return results.map((r) => ({
    day: String(r.day),
    arm: String(r.arm ?? "none"),
    searches: Number(r.searches),
    clickedSearches: Number(r.clicked ?? 0),
    purchases: Number(r.purchases ?? 0),
  }));
}

/** The experiment's series: its looks over [first search, last event] and its daily counts. */
export async function experimentSeries(db: D1Database, e: Experiment): Promise<Series> {
  const s = await span(db, e);
  const [looks, daily] = await Promise.all([
    s
      ? Promise.all(lookTimes(s.first, s.last).map((at) => (e.design === "interleave" ? interleavingLook(db, e, at).then((l) => [l]) : abLooks(db, e, at))))
      : Promise.resolve([] as EffectLook[][]),
    dailyPerArm(db, e),
  ]);
  return { experiment: e.id, design: e.design, looks: looks.flat(), daily };
}

/** Purchase events per arm, as recorded (every search, excluded network prefixes too; the report's figures are searches and clicks). */
export async function purchasesPerArm(db: D1Database, e: Experiment): Promise<Array<{ arm: string; purchases: number }>> {
  const { results } = await db
    .prepare(
      `SELECT s.arm AS arm, COUNT(f.request_id) AS purchases FROM searches s
       LEFT JOIN feedback f ON f.request_id = s.request_id AND f.type = 'purchase'
       WHERE s.experiment_id = ?1 GROUP BY s.arm ORDER BY s.arm`,
    )
    .bind(e.id)
    .all<{ arm: string | null; purchases: number }>();
  return results.map((r) => ({ arm: String(r.arm ?? "none"), purchases: Number(r.purchases) }));
}
