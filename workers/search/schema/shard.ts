/**
 * An index shard database (SHARD_0..S-1): postings, sharded by a stable hash
 * of the posting key (core/shard.ts). drizzle-kit turns this into migrations/shard.
 */
import { blob, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Postings of one shard. key = "k:" + keyword or "w:" + word; data = core's binary encoding. */
export const postings = sqliteTable(
  "postings",
  {
    round: integer("round").notNull(),
    key: text("key").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.round, t.key] })],
);
