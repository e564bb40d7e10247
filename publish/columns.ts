/**
 * A round's facet columns (core/columns.ts) as KV values: derived from its
 * items in one streamed pass, so every round has them, also one built before
 * columns existed. One `meta` value (the dictionaries, versioned), then one
 * value per column per chunk of COLUMN_LIMITS.chunkItems ordinals.
 */
import { buildColumns, chunkCount, encodeChunk } from "../core/columns.js";
import { columnChunkKey, columnsMetaKey } from "../core/contract.js";
import { PUBLISH_LIMITS } from "./limits.js";
import type { PublishSource } from "./source.js";
import type { KeyValueStore } from "./target.js";

export function columnKvValues(source: Pick<PublishSource, "manifest" | "items">, contentHash: string): Array<[string, string]> {
  const round = source.manifest.round;
  const { meta, codes } = buildColumns(source.items());
  const metaText = JSON.stringify(meta);
  if (metaText.length > PUBLISH_LIMITS.kvValueBytes)
    throw new RangeError(`the facet columns' dictionaries (${metaText.length} bytes) are over KV's value limit`);
  const out: Array<[string, string]> = [[columnsMetaKey(round, contentHash), metaText]];
  meta.columns.forEach((col, j) => {
    const c = codes.get(col.name);
    if (!c) return;
    for (let k = 0; k < chunkCount(meta); k++) out.push([columnChunkKey(round, contentHash, j, k), encodeChunk(c, k, meta.chunkItems)]);
  });
  return out;
}

/** A round published before columns existed gets them on its next (otherwise no-op) publish. */
export async function ensureColumns(kv: KeyValueStore, source: Pick<PublishSource, "manifest" | "items">, contentHash: string): Promise<boolean> {
  if ((await kv.get(columnsMetaKey(source.manifest.round, contentHash))) !== null) return false;
  // The chunks first, the meta last: a reader that finds the meta finds every chunk.
  const [meta, ...chunks] = columnKvValues(source, contentHash);
  await kv.putMany(chunks);
  if (meta) await kv.put(meta[0], meta[1]);
  return true;
}
