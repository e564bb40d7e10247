/**
 * The relevance workbench's own tables in the catalogue database (CATALOG),
 * next to the file labels (catalog.ts): judgments made in the page, named
 * query sets, the evaluation's BM25 runs and item descriptions. Search never
 * reads them; drizzle-kit turns them into migrations/catalog.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A rater's judgment of an item for a normalised query (POST /v1/judgments); the rater's newest one stands. */
export const judgments = sqliteTable(
  "judgments",
  {
    query: text("query").notNull(),
    itemId: text("item_id").notNull(),
    rater: text("rater").notNull(),
    label: text("label", { enum: ["Exact", "Partial", "Irrelevant"] }).notNull(),
    /** ISO 8601 UTC, so they compare as text with labels.loaded_at. */
    judgedAt: text("judged_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.query, t.itemId, t.rater] }), index("judgments_query").on(t.query)],
);

/** An uploaded query set (`npm run query-set -- --name N --file F`): its normalised queries in file order. */
export const querySets = sqliteTable(
  "query_sets",
  {
    name: text("name").notNull(),
    position: integer("position").notNull(),
    query: text("query").notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.position] })],
);

/**
 * The evaluation's BM25 (training/evaluate.ts: over the item text, the cutoff tuned on the training
 * queries) run over a normalised query in Node, since serving holds no item-text postings: its ranking to
 * max(cutoff, 100) item ids, and the cutoff that makes its retrieved set.
 */
export const bm25Runs = sqliteTable("bm25_runs", {
  query: text("query").primaryKey(),
  /** Item ids in rank order, as a JSON array. */
  ranked: text("ranked").notNull(),
  cutoff: integer("cutoff").notNull(),
  /** How many training queries tuned the cutoff, and which round's split they came from. */
  tunedOn: integer("tuned_on").notNull(),
  splitRound: integer("split_round").notNull(),
});

/** An item's description and features (JSON [[name, value], …]) for the item page; loaded by `npm run labels`. */
export const itemDetails = sqliteTable("item_details", {
  id: text("id").primaryKey(),
  description: text("description").notNull(),
  features: text("features").notNull(),
});
