/**
 * The catalogue database (CATALOG): rounds and their manifests, items.
 * drizzle-kit turns this into migrations/catalog, which wrangler applies.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row per round. Serving reads only state = 'published'; the row turns published last. */
export const rounds = sqliteTable("rounds", {
  round: integer("round").primaryKey(),
  state: text("state", { enum: ["publishing", "published", "unpublishing"] }).notNull(),
  /** The published manifest (JSON): format version, counts, checksums, stats, metrics. */
  manifest: text("manifest").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** Items of a round, addressed by the ordinal postings use. */
export const items = sqliteTable(
  "items",
  {
    round: integer("round").notNull(),
    ordinal: integer("ordinal").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    class: text("class").notNull(),
    category: text("category").notNull(),
    /** S_i as a JSON array. */
    keywords: text("keywords").notNull(),
  },
  (t) => [primaryKey({ columns: [t.round, t.ordinal] }), index("items_round_id").on(t.round, t.id)],
);

/**
 * Relevance labels for the workbench (/compare), keyed by the normalised
 * query text: loaded for local development by `npm run labels`, never part
 * of a round, never read by search.
 */
export const labels = sqliteTable(
  "labels",
  {
    query: text("query").notNull(),
    itemId: text("item_id").notNull(),
    label: text("label", { enum: ["Exact", "Partial", "Irrelevant"] }).notNull(),
    /** When `npm run labels` loaded it (ISO 8601 UTC): a judgment made later wins over it (workbench/labels.ts). Null: loaded before 0005. */
    loadedAt: text("loaded_at"),
  },
  (t) => [primaryKey({ columns: [t.query, t.itemId] })],
);

/**
 * At most one publish or unpublish at a time per deployment (publish/lock.ts): the one row (id 1)
 * names its owner and when the lock lapses, so a second one is refused naming the first, and a
 * crashed one's lock expires (or is broken with --break-lock). The worker never reads it.
 */
export const publishLock = sqliteTable("publish_lock", {
  id: integer("id").primaryKey(),
  /** Who holds it, for people: user@host pid N. */
  owner: text("owner").notNull(),
  /** This holder's random token: a refresh or release by anyone else changes nothing. */
  token: text("token").notNull(),
  host: text("host").notNull(),
  pid: integer("pid").notNull(),
  /** ISO 8601 UTC, so they compare as text. */
  acquiredAt: text("acquired_at").notNull(),
  expiresAt: text("expires_at").notNull(),
});
