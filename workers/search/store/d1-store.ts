/**
 * Postings from the sharded D1 index: keys are grouped by shard and each
 * shard is asked once, whatever the number of keys, so a request makes at
 * most S D1 queries. The keys travel as one JSON parameter (json_each), which
 * keeps the statement inside D1's 100-bound-parameter limit.
 */
import { shardOf } from "../../../core/shard.js";
import { fromD1 } from "../storage.js";
import { type IndexStore, type RoundRef, toBytes } from "./index-store.js";

export class D1IndexStore implements IndexStore {
  constructor(private readonly shards: readonly D1Database[]) {}

  async postings(round: RoundRef, keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    if (round.shardCount !== this.shards.length) {
      throw new Error(`round ${round.round} is sharded ${round.shardCount} ways, this worker has ${this.shards.length} shard bindings`);
    }
    const groups = new Map<number, string[]>();
    for (const k of new Set(keys)) {
      const s = shardOf(k, round.shardCount);
      const g = groups.get(s);
      if (g) g.push(k);
      else groups.set(s, [k]);
    }
    const out = new Map<string, Uint8Array>();
    await Promise.all(
      [...groups].map(async ([s, group]) => {
        const db = this.shards[s] as D1Database;
        const { results } = await fromD1(`reading postings from shard ${s}`, () =>
          db
            .prepare("SELECT key, data FROM postings WHERE round = ?1 AND key IN (SELECT value FROM json_each(?2))")
            .bind(round.round, JSON.stringify(group))
            .all<{ key: string; data: unknown }>(),
        );
        for (const r of results) out.set(r.key, toBytes(r.data));
      }),
    );
    return out;
  }
}
