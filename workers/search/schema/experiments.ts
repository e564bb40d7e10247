/**
 * Experiments, in the catalogue database (CATALOG): the source of truth,
 * with every change recorded (time, actor, reason, before and after).
 * KV mirrors the running one for the hot path (workers/experiments/store.ts).
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const experiments = sqliteTable(
  "experiments",
  {
    id: text("id").primaryKey(),
    // The enum is TypeScript's only: SQLite stores text, so a new state (paused) needs no migration.
    state: text("state", { enum: ["running", "paused", "promoted", "rolled_back", "stopped"] }).notNull(),
    /** The whole Experiment (workers/experiments/config.ts) as JSON. */
    config: text("config").notNull(),
    /** Running minimum of the sequential p-value per metric and arm (JSON), so the always-valid p holds across looks. */
    sequential: text("sequential").notNull().default("{}"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  // At most one running experiment: the database refuses a second, so two admins racing cannot both start one.
  (t) => [uniqueIndex("experiments_one_running").on(t.state).where(sql`state = 'running'`)],
);

export const experimentChanges = sqliteTable(
  "experiment_changes",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    experimentId: text("experiment_id").notNull(),
    at: text("at").notNull(),
    /** "admin" (the API), "guardrail" (the cron handler: rollback, or pause when the trip is concentrated on few networks) */
    actor: text("actor").notNull(),
    action: text("action", { enum: ["start", "ramp", "promote", "rollback", "stop", "pause", "resume"] }).notNull(),
    reason: text("reason").notNull(),
    before: text("before"),
    after: text("after").notNull(),
  },
  (t) => [index("experiment_changes_experiment").on(t.experimentId, t.seq)],
);
