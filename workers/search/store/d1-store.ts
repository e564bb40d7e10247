/**
 * Postings from the sharded D1 index: keys are grouped by shard and each
 * shard is asked once, whatever the number of keys or blocks, so a request
 * makes at most S D1 queries. One query returns each key's directory rows
 * for every round of the chain with the blocks they name (a join on the
 * content address); a key is read from the first chain round that has rows
 * for it, and a tombstone there (count 0) means the round dropped it. Keys
 * and chain travel as JSON parameters (json_each), inside D1's
 * 100-bound-parameter limit. Reads go through the Sessions API, so
 * production reads may be served by read replicas.
 */

import { fromBase64 } from "../../../core/base64.js";
import type { PostingBlock } from "../../../core/blocks.js";
import { rowsByChain } from "../../../core/contract.js";
import { shardOf } from "../../../core/shard.js";
import { fromD1 } from "../storage.js";
import type { IndexStore, RoundRef } from "./index-store.js";

const QUERY =
  "SELECT p.round AS round, p.key AS key, p.seq AS seq, p.first AS first, p.last AS last, p.count AS count, b.data AS data " +
  "FROM postings p LEFT JOIN blocks b ON b.hash = p.hash " +
  "WHERE p.round IN (SELECT value FROM json_each(?1)) AND p.key IN (SELECT value FROM json_each(?2))";

interface Row {
  round: number;
  key: string;
  seq: number;
  first: number;
  last: number;
  count: number;
  data: string | null;
}

/** What a D1 binding or a D1 session offers for reads. */
type D1Reader = Pick<D1Database, "prepare">;

export function readSession(db: D1Database): D1Reader {
  // "first-unconstrained": any replica may answer; rounds are immutable once published, so no read can be stale.
  return typeof db.withSession === "function" ? db.withSession("first-unconstrained") : db;
}

/**
 * Readiness (/readyz): a shard answers the query a search sends it, with
 * nothing to look up. It reads no row, and fails exactly when the shard
 * could not answer a search: a table or column missing, D1 down.
 */
export async function probeShard(db: D1Database): Promise<true> {
  await readSession(db).prepare(QUERY).bind("[]", "[]").all();
  return true;
}

export class D1IndexStore implements IndexStore {
  constructor(private readonly shards: readonly D1Database[]) {}

  async postings(round: RoundRef, keys: readonly string[]): Promise<Map<string, PostingBlock[]>> {
    // A round sharded S ways reads SHARD_0..S-1, so rounds published before SHARD_COUNT grew keep serving.
    if (round.shardCount > this.shards.length) {
      throw new Error(`round ${round.round} is sharded ${round.shardCount} ways, this worker has ${this.shards.length} shard bindings`);
    }
    const groups = new Map<number, string[]>();
    for (const k of new Set(keys)) {
      const s = shardOf(k, round.shardCount);
      const g = groups.get(s);
      if (g) g.push(k);
      else groups.set(s, [k]);
    }
    const out = new Map<string, PostingBlock[]>();
    await Promise.all(
      [...groups].map(async ([s, group]) => {
        const { results } = await fromD1(`reading postings from shard ${s}`, () =>
          readSession(this.shards[s] as D1Database)
            .prepare(QUERY)
            .bind(JSON.stringify(round.chain), JSON.stringify(group))
            .all<Row>(),
        );
        for (const [key, rows] of rowsByChain(results, round.chain, (r) => r.key)) {
          if (rows.length === 1 && rows[0]?.count === 0) continue; // tombstone
          rows.sort((a, b) => a.seq - b.seq);
          out.set(
            key,
            rows.map((r) => {
              if (r.data === null || r.data === undefined) throw new Error(`shard ${s}: posting ${key} names a block the shard does not hold`);
              return { first: r.first, last: r.last, count: r.count, data: fromBase64(r.data) };
            }),
          );
        }
      }),
    );
    return out;
  }
}
