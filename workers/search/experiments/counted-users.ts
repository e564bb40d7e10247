/**
 * The SQL behind the per-user statistics (user-statistics.ts): one row of
 * weighted sums per arm, over the counted searches of counted.ts (`sw`: each
 * search with its prefix's search weight w and key weight wk). A user's
 * weight is wk, so a prefix counts for at most keysPerPrefixMax users.
 */
import type { Experiment } from "./config.js";
import { ALL_TIME, countedUntil } from "./counted.js";
import type { UserMoments } from "./user-statistics.js";

const MOMENTS = "SUM(w) AS n, SUM(w * y) AS sy, SUM(w * x) AS sx, SUM(w * y * y) AS syy, SUM(w * x * x) AS sxx, SUM(w * x * y) AS sxy";
const moments = (r: Record<string, unknown> | null | undefined): UserMoments => ({
  n: Number(r?.n ?? 0),
  sy: Number(r?.sy ?? 0),
  sx: Number(r?.sx ?? 0),
  syy: Number(r?.syy ?? 0),
  sxx: Number(r?.sxx ?? 0),
  sxy: Number(r?.sxy ?? 0),
});

/**
 * Per arm, over users: y = the user's share of searches with a click; x =
 * the mean, over the user's searches, of the query's CTR in the experiment's
 * other searches (leave-one-out, both arms pooled; the experiment's CTR for
 * a query searched once). The query a user types does not depend on the arm
 * (assignment is by user key, and the query comes before the results), and
 * leaving the search's own click out keeps its outcome out of its covariate:
 * x is the CUPED covariate. The events hold no pre-period for most users
 * (simulated ones are all new), so the query's clickability stands in for it.
 */
export async function userCtrMoments(db: D1Database, e: Experiment, until = ALL_TIME): Promise<Map<string, UserMoments>> {
  const { results } = await countedUntil(
    db,
    e,
    until,
    `, c AS (SELECT sw.arm, sw.user_key, sw.w, sw.wk, COALESCE(sw.query, '') AS q,
                    EXISTS (SELECT 1 FROM feedback f WHERE f.request_id = sw.request_id AND f.type = 'click' AND f.at <= ?5) AS c FROM sw),
       qs AS (SELECT q, SUM(w * c) AS sc, SUM(w) AS sn FROM c GROUP BY q),
       g AS (SELECT SUM(w * c) * 1.0 / MAX(SUM(w), 1e-9) AS ctr FROM c),
       u AS (SELECT c.arm, c.user_key, MAX(c.wk) AS w, AVG(c.c) AS y,
                    AVG(CASE WHEN qs.sn - c.w > 1e-9 THEN (qs.sc - c.w * c.c) / (qs.sn - c.w) ELSE g.ctr END) AS x
             FROM c JOIN qs ON qs.q = c.q, g GROUP BY c.arm, c.user_key)
     SELECT arm, ${MOMENTS} FROM u GROUP BY arm`,
  ).all<Record<string, unknown>>();
  return new Map(results.map((r) => [String(r.arm), moments(r)]));
}

export interface CreditedPreferences {
  /** Interleaved searches whose credited clicks (interleave.ts, soleContributions) preferred the treatment or control; as counted. */
  readonly wins: number;
  readonly losses: number;
  /** Over users with at least one decided search: y = (won − lost) / (won + lost), x = 0. */
  readonly users: UserMoments;
}

/** Credited preferences per search and per user. A click credits its team only when the search recorded it as one round's alone (`shown[j][3] = 1`). */
export async function creditedPreferences(db: D1Database, e: Experiment, until = ALL_TIME): Promise<CreditedPreferences> {
  const cr = `, cr AS (SELECT sw.request_id, sw.user_key, sw.w, sw.wk,
                    SUM(j.value ->> '$[2]' = 'treatment') AS t, SUM(j.value ->> '$[2]' = 'control') AS c
             FROM feedback f JOIN sw ON sw.request_id = f.request_id, json_each(sw.shown) j
             WHERE f.experiment_id = ?1 AND f.type = 'click' AND f.at <= ?5 AND j.value ->> '$[0]' = f.item_id AND j.value ->> '$[3]' = 1
             GROUP BY sw.request_id)`;
  const [searches, users] = await Promise.all([
    countedUntil(db, e, until, `${cr} SELECT SUM(w * (t > c)) AS wins, SUM(w * (c > t)) AS losses FROM cr`).first<Record<string, number | null>>(),
    countedUntil(
      db,
      e,
      until,
      `${cr}, pu AS (SELECT user_key, MAX(wk) AS w, SUM(t > c) AS won, SUM(c > t) AS lost FROM cr GROUP BY user_key),
       u AS (SELECT w, (won - lost) * 1.0 / (won + lost) AS y, 0 AS x FROM pu WHERE won + lost > 0)
       SELECT ${MOMENTS} FROM u`,
    ).first<Record<string, unknown>>(),
  ]);
  return { wins: Number(searches?.wins ?? 0), losses: Number(searches?.losses ?? 0), users: moments(users) };
}
