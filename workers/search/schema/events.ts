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
    /** sha-256 of the user key under USER_KEY_PEPPER (experiments/user-hash.ts): never the key itself. */
    userKey: text("user_key").notNull(),
    /** The query as core's normalizeKeyword writes it (what learning from clicks groups by); null for events written before 0002. */
    query: text("query"),
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
    /** [[itemId, position, team?, 1 when only that team's round ranked it (interleaving's debiased credit)?], …] as JSON. */
    shown: text("shown").notNull(),
  },
  (t) => [
    index("searches_experiment").on(t.experimentId, t.arm),
    index("searches_experiment_net").on(t.experimentId, t.net),
    // Export pages by (at, request_id) and retention deletes by at.
    index("searches_at").on(t.at, t.requestId),
  ],
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
  (t) => [
    primaryKey({ columns: [t.requestId, t.itemId, t.type] }),
    index("feedback_experiment").on(t.experimentId),
    // Export pages by (at, request_id, item_id, type) and retention deletes by at.
    index("feedback_at").on(t.at, t.requestId, t.itemId, t.type),
  ],
);
