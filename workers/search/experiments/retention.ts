/**
 * Event retention (issue 23 §3): the cron deletes search and feedback events
 * older than EVENTS_RETENTION_DAYS (default 90). Deletes go in bounded
 * batches (a D1 statement should stay well inside its time limit) and a run
 * stops after a fixed number of them; whatever is left goes at the next
 * minute's run, so a backlog drains without one long invocation.
 */
import { intVar } from "../bindings.js";

export const RETENTION_LIMITS = {
  defaultDays: 90,
  /** Rows one DELETE removes. */
  batchRows: 5_000,
  /** DELETE statements per table and cron run: at most 100,000 rows a table a minute. */
  batchesPerRun: 20,
  msPerDay: 86_400_000,
} as const;

export interface RetentionOutcome {
  readonly cutoff: number;
  readonly searches: number;
  readonly feedback: number;
}

async function deleteOlder(db: D1Database, table: "searches" | "feedback", cutoff: number): Promise<number> {
  let deleted = 0;
  for (let b = 0; b < RETENTION_LIMITS.batchesPerRun; b++) {
    const r = await db
      .prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE at < ?1 LIMIT ?2)`)
      .bind(cutoff, RETENTION_LIMITS.batchRows)
      .run();
    deleted += r.meta.changes;
    if (r.meta.changes < RETENTION_LIMITS.batchRows) break;
  }
  return deleted;
}

/** Deletes events older than the window (measured from `now`), feedback first so no feedback outlives its search. */
export async function enforceRetention(db: D1Database, retentionDays: string | undefined, now: number): Promise<RetentionOutcome> {
  const days = intVar(retentionDays, RETENTION_LIMITS.defaultDays);
  const cutoff = now - days * RETENTION_LIMITS.msPerDay;
  const feedback = await deleteOlder(db, "feedback", cutoff);
  const searches = await deleteOlder(db, "searches", cutoff);
  return { cutoff, searches, feedback };
}
