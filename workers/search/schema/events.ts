/**
 * The EVENTS database: one row per search and one per feedback event, written
 * after the response (waitUntil), read by the experiment reports.
 */
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const searches = sqliteTable(
  "searches",
  {
    requestId: text("request_id").primaryKey(),
    at: integer("at").notNull(),
    experimentId: text("experiment_id"),
    arm: text("arm"),
    /** The serving round, or for an interleaved search the control round. */
    round: integer("round").notNull(),
    /** Interleaved searches: the treatment round. */
    otherRound: integer("other_round"),
    userKey: text("user_key").notNull(),
    /**
     * Under an experiment: the client's /24 or /48, hashed with the experiment's salt (never the address), so
     * SRM and the guardrails can cap what one network counts for (workers/search/experiments/counting.ts).
     */
    net: text("net"),
    latencyMs: real("latency_ms").notNull(),
    total: integer("total").notNull(),
    zeroResult: integer("zero_result", { mode: "boolean" }).notNull(),
    error: integer("error", { mode: "boolean" }).notNull(),
    keywordSource: text("keyword_source").notNull(),
    /** The keywords came from a fallback, not the round's own generator (an LLM round answered by its policy or the raw query). */
    fallback: integer("fallback", { mode: "boolean" }).notNull(),
    /** [[itemId, position, team?], …] as JSON. */
    shown: text("shown").notNull(),
  },
  (t) => [index("searches_experiment").on(t.experimentId, t.arm), index("searches_experiment_net").on(t.experimentId, t.net)],
);

export const feedback = sqliteTable(
  "feedback",
  {
    requestId: text("request_id").notNull(),
    itemId: text("item_id").notNull(),
    type: text("type", { enum: ["click", "add_to_cart", "purchase"] }).notNull(),
    at: integer("at").notNull(),
    experimentId: text("experiment_id"),
    arm: text("arm"),
    /** Interleaved searches: the team of the item. */
    team: text("team"),
  },
  // A duplicate (same request, item and type) counts once.
  (t) => [primaryKey({ columns: [t.requestId, t.itemId, t.type] }), index("feedback_experiment").on(t.experimentId)],
);
