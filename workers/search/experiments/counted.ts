/**
 * The SQL behind the counted figures (counting.ts says what they mean):
 * every query starts from the experiment's searches less its excluded
 * prefixes (`s`), each prefix's weights (`p`: w for searches, wk for user
 * keys) and the searches with their weights (`sw`). Each query reads the
 * experiment's rows once, whatever the traffic, and returns a row per arm
 * (or a few per finding).
 */
import type { Experiment } from "./config.js";
import { COUNTING_LIMITS, type Concentration, concentrationOf } from "./counting.js";

const COUNTED = `WITH
  s AS (SELECT * FROM searches WHERE experiment_id = ?1 AND at <= ?5 AND COALESCE(net, '') NOT IN (SELECT value FROM json_each(?2))),
  p AS (SELECT COALESCE(net, '') AS net, MIN(1.0, ?3 * 1.0 / COUNT(*)) AS w, MIN(1.0, ?4 * 1.0 / COUNT(DISTINCT user_key)) AS wk FROM s GROUP BY 1),
  sw AS (SELECT s.*, p.w AS w, p.wk AS wk FROM s JOIN p ON p.net = COALESCE(s.net, ''))`;

/** No time bound: every search the experiment recorded. */
export const ALL_TIME = Number.MAX_SAFE_INTEGER;

/**
 * A statement over the counted searches: ?1–?5 are bound here (?5: searches
 * and feedback up to `until`, epoch ms; the dashboard's series reads the
 * statistics as they stood at past times), the query's own parameters from ?6.
 */
export function counted(db: D1Database, e: Experiment, sql: string, ...params: unknown[]): D1PreparedStatement {
  return countedUntil(db, e, ALL_TIME, sql, ...params);
}

export function countedUntil(db: D1Database, e: Experiment, until: number, sql: string, ...params: unknown[]): D1PreparedStatement {
  return db
    .prepare(`${COUNTED}\n${sql}`)
    .bind(e.id, JSON.stringify(e.excludedPrefixes ?? []), COUNTING_LIMITS.searchesPerPrefixMax, COUNTING_LIMITS.keysPerPrefixMax, until, ...params);
}

export interface ArmRow {
  readonly searches: number;
  readonly users: number;
  readonly clicked: number;
  /** Weighted (counting.ts). */
  readonly counted: { readonly searches: number; readonly users: number; readonly clicked: number };
  readonly zero: number;
  readonly errors: number;
  readonly fallbacks: number;
}

/** Per arm: searches, users and clicked searches as recorded and as counted; zero-result, failed and fallback searches as counted. */
export async function armRows(db: D1Database, e: Experiment, until = ALL_TIME): Promise<Map<string, ArmRow>> {
  const [figures, users] = await Promise.all([
    countedUntil(
      db,
      e,
      until,
      `SELECT arm, COUNT(*) AS searches, COUNT(DISTINCT user_key) AS users, SUM(c) AS clicked, SUM(w) AS w_searches, SUM(w * c) AS w_clicked,
              SUM(w * zero_result) AS zero, SUM(w * error) AS errors, SUM(w * fallback) AS fallbacks
       FROM (SELECT sw.*, EXISTS (SELECT 1 FROM feedback f WHERE f.request_id = sw.request_id AND f.type = 'click' AND f.at <= ?5) AS c FROM sw)
       GROUP BY arm`,
    ).all<Record<string, number | string>>(),
    countedUntil(
      db,
      e,
      until,
      `, pa AS (SELECT arm, COALESCE(net, '') AS net, COUNT(DISTINCT user_key) AS keys FROM s GROUP BY 1, 2)
       SELECT pa.arm AS arm, SUM(pa.keys * p.wk) AS users FROM pa JOIN p ON p.net = pa.net GROUP BY pa.arm`,
    ).all<{ arm: string; users: number }>(),
  ]);
  const countedUsers = new Map(users.results.map((r) => [String(r.arm), Number(r.users)]));
  return new Map(
    figures.results.map((r) => [
      String(r.arm),
      {
        searches: Number(r.searches),
        users: Number(r.users),
        clicked: Number(r.clicked),
        counted: { searches: Number(r.w_searches), users: countedUsers.get(String(r.arm)) ?? 0, clicked: Number(r.w_clicked) },
        zero: Number(r.zero),
        errors: Number(r.errors),
        fallbacks: Number(r.fallbacks),
      },
    ]),
  );
}

/** The p-th percentile (nearest rank) of an arm's latencies, over its `searches` (as recorded) searches. */
export async function latencyPercentile(db: D1Database, e: Experiment, arm: string, searches: number, p: number): Promise<number> {
  if (searches === 0) return 0;
  const offset = Math.min(searches - 1, Math.max(0, Math.ceil((p / 100) * searches) - 1));
  const row = await counted(db, e, "SELECT latency_ms FROM s WHERE arm = ?6 ORDER BY latency_ms LIMIT 1 OFFSET ?7", arm, offset).first<{
    latency_ms: number;
  }>();
  return row?.latency_ms ?? 0;
}

/** An arm's searches slower than `ms`, as counted. */
export async function slowerThan(db: D1Database, e: Experiment, arm: string, ms: number): Promise<number> {
  const row = await counted(db, e, "SELECT COALESCE(SUM(w), 0) AS n FROM sw WHERE arm = ?6 AND latency_ms > ?7", arm, ms).first<{ n: number }>();
  return Number(row?.n ?? 0);
}

/** Interleaved searches the treatment won, lost or tied on clicks, as counted. */
export async function interleavingCounts(db: D1Database, e: Experiment): Promise<{ wins: number; losses: number; ties: number }> {
  const row = await counted(
    db,
    e,
    `, pref AS (SELECT request_id, SUM(team = 'treatment') AS t, SUM(team = 'control') AS c FROM feedback
                WHERE experiment_id = ?1 AND type = 'click' AND team IS NOT NULL GROUP BY request_id)
     SELECT SUM(sw.w * (pref.t > pref.c)) AS wins, SUM(sw.w * (pref.c > pref.t)) AS losses, SUM(sw.w * (pref.t = pref.c)) AS ties
     FROM pref JOIN sw ON sw.request_id = pref.request_id`,
  ).first<Record<string, number | null>>();
  return { wins: Number(row?.wins ?? 0), losses: Number(row?.losses ?? 0), ties: Number(row?.ties ?? 0) };
}

/** The events a finding is about: an arm's failed, zero-result or slow searches (above ?8 ms), or its user keys. */
export type FindingEvents = "errors" | "zeroResults" | "slow" | "users";
const EVENT_SQL: Record<FindingEvents, { count: string; where: string }> = {
  errors: { count: "COUNT(*)", where: "error = 1" },
  zeroResults: { count: "COUNT(*)", where: "zero_result = 1" },
  slow: { count: "COUNT(*)", where: "latency_ms > ?8" },
  users: { count: "COUNT(DISTINCT user_key)", where: "1" },
};

/** How concentrated an arm's events of one kind are on its top prefixes (as recorded: concentration is about who sent them). */
export async function concentration(db: D1Database, e: Experiment, arm: string, events: FindingEvents, slowerThanMs = 0): Promise<Concentration> {
  const q = EVENT_SQL[events];
  const { results } = await counted(
    db,
    e,
    `, hits AS (SELECT COALESCE(net, '') AS net, ${q.count} AS n FROM s WHERE arm = ?6 AND ${q.where} GROUP BY 1)
     SELECT net, n, SUM(n) OVER () AS total FROM hits ORDER BY n DESC LIMIT ?7`,
    arm,
    COUNTING_LIMITS.concentrationTopPrefixes,
    // D1 refuses a parameter the statement does not hold: ?8 only for slow searches.
    ...(events === "slow" ? [slowerThanMs] : []),
  ).all<{ net: string; n: number; total: number }>();
  return concentrationOf(
    results.map((r) => ({ net: r.net, events: Number(r.n) })),
    Number(results[0]?.total ?? 0),
  );
}
