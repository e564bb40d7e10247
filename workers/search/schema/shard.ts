/**
 * An index shard database (SHARD_0..S-1), sharded by a stable hash of the
 * posting key (core/shard.ts). drizzle-kit turns this into migrations/shard.
 *
 * blocks:   content-addressed posting blocks (core/blocks.ts), shared by every
 *           round that holds the same bytes.
 * postings: each round's block directory, written only for the keys whose
 *           blocks differ from the round it builds on (its base); a key a
 *           round drops gets one tombstone row (count 0, no hash). A round
 *           reads a key from the first round of its chain that has rows for it.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const blocks = sqliteTable("blocks", {
  /** sha-256 of the block's bytes, first 32 hex digits. */
  hash: text("hash").primaryKey(),
  /** The block's bytes as base64: D1 hands BLOBs to a Worker as arrays of numbers (8+ bytes each), text stays compact. */
  data: text("data").notNull(),
});

export const postings = sqliteTable(
  "postings",
  {
    round: integer("round").notNull(),
    /** "k:" + keyword or "w:" + word. */
    key: text("key").notNull(),
    seq: integer("seq").notNull(),
    first: integer("first").notNull(),
    last: integer("last").notNull(),
    count: integer("count").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.round, t.key, t.seq] }), index("postings_hash").on(t.hash)],
);
