/**
 * Turns a round artifact into the rows of the serving index: items for the
 * catalogue, postings for each shard (core's encoding, sharded by
 * core/shard.ts), the query generator for KV, and the serving manifest.
 *
 * Rows are written as multi-row INSERTs with literal values: a few hundred
 * rows a statement is ~100× faster than one, and literals sidestep remote
 * D1's 100-bound-parameter limit. Each statement stays under D1's 100 KB.
 */
import { fromBase64 } from "../../core/base64.js";
import type { SerializedIndex } from "../../core/inverted-index.js";
import type { QueryGeneratorSpec } from "../../core/query-generator.js";
import type { RoundItem, RoundManifest } from "../../core/round-format.js";
import { keywordKey, shardOf, wordKey } from "../../core/shard.js";
import { SERVING_MANIFEST_FORMAT, SERVING_MANIFEST_VERSION, type ServingManifest } from "./manifest.js";

export const PUBLISH_LIMITS = {
  statementBytes: 90_000,
  rowsPerStatement: 400,
  /** KV's value limit is 25 MiB. */
  kvValueBytes: 25 * 2 ** 20,
} as const;

export interface PublishInput {
  readonly manifest: RoundManifest;
  readonly items: readonly RoundItem[];
  readonly index: SerializedIndex;
  readonly queryGenerator: QueryGeneratorSpec;
}

export interface PublishPlan {
  readonly round: number;
  readonly manifest: ServingManifest;
  readonly itemStatements: readonly string[];
  readonly shardStatements: ReadonlyArray<readonly string[]>;
  readonly postingsPerShard: readonly number[];
  readonly kv: ReadonlyArray<readonly [string, string]>;
}

/** A SQL string literal. NUL cannot live in a SQLite text literal, so it is dropped. */
export const sqlText = (s: string) => `'${s.split(String.fromCharCode(0)).join("").replace(/'/g, "''")}'`;

function sqlBlob(bytes: Uint8Array): string {
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return `X'${hex}'`;
}

/** Packs value tuples into INSERT statements within the row and byte limits. */
export function packInserts(head: string, tuples: Iterable<string>): string[] {
  const out: string[] = [];
  let rows: string[] = [];
  let bytes = head.length;
  const flush = () => {
    if (rows.length > 0) out.push(`${head} ${rows.join(",")};`);
    rows = [];
    bytes = head.length;
  };
  for (const t of tuples) {
    if (t.length + head.length + 2 > PUBLISH_LIMITS.statementBytes) throw new RangeError(`one row is over ${PUBLISH_LIMITS.statementBytes} bytes of SQL`);
    if (rows.length >= PUBLISH_LIMITS.rowsPerStatement || bytes + t.length + 1 > PUBLISH_LIMITS.statementBytes) flush();
    rows.push(t);
    bytes += t.length + 1;
  }
  flush();
  return out;
}

export const queryGeneratorKey = (round: number, contentHash: string) => `qgen:${round}:${contentHash.slice(0, 16)}`;
/** The worker's cache key for a query's keywords: `queryDigest` is the sha-256 hex of the normalised query. */
export const keywordCacheKeyOf = (round: number, contentHash: string, queryDigest: string) => `kw:${round}:${contentHash.slice(0, 16)}:${queryDigest}`;

export function planPublish(input: PublishInput, shardCount: number, now = new Date()): PublishPlan {
  const { manifest, index } = input;
  const round = manifest.round;
  // Every file, the split and the config (core/round-format.ts); inputs built without a loader fall back to the index's checksum.
  const contentHash = manifest.contentHash ?? manifest.checksums["index.json"];
  if (!contentHash) throw new Error("round manifest has no content hash and no checksum for index.json");
  const byId = new Map(input.items.map((i) => [i.id, i]));
  const itemTuples = index.ids.map((id, ordinal) => {
    const it = byId.get(id);
    if (!it) throw new Error(`index item ${id} is missing from items.jsonl`);
    return `(${round},${ordinal},${sqlText(it.id)},${sqlText(it.name)},${sqlText(it.class)},${sqlText(it.category)},${sqlText(JSON.stringify(it.keywords))})`;
  });
  const perShard: string[][] = Array.from({ length: shardCount }, () => []);
  for (const [k, b64] of index.keywords) perShard[shardOf(keywordKey(k), shardCount)]?.push(`(${round},${sqlText(keywordKey(k))},${sqlBlob(fromBase64(b64))})`);
  for (const [w, b64] of index.words) perShard[shardOf(wordKey(w), shardCount)]?.push(`(${round},${sqlText(wordKey(w))},${sqlBlob(fromBase64(b64))})`);
  const qgen = JSON.stringify(input.queryGenerator);
  if (qgen.length > PUBLISH_LIMITS.kvValueBytes) throw new RangeError(`the query generator (${qgen.length} bytes) is over KV's value limit`);
  const serving: ServingManifest = {
    format: SERVING_MANIFEST_FORMAT,
    version: SERVING_MANIFEST_VERSION,
    round,
    contentHash,
    createdAt: manifest.createdAt,
    publishedAt: now.toISOString(),
    shardCount,
    stats: {
      itemCount: index.itemCount,
      totalLength: index.totalLength,
      avgLength: index.itemCount > 0 && index.totalLength > 0 ? index.totalLength / index.itemCount : 1,
    },
    counts: { items: index.itemCount, keywords: index.keywords.length, words: index.words.length, postingsPerShard: perShard.map((s) => s.length) },
    checksums: manifest.checksums,
    metrics: manifest.metrics,
    queryGenerator: {
      kind: input.queryGenerator.kind,
      ...(input.queryGenerator.kind === "llm" ? { model: input.queryGenerator.model } : {}),
      policy: input.queryGenerator.kind !== "llm" || input.queryGenerator.policy !== undefined,
    },
    split: { seed: manifest.split.seed, train: manifest.split.train.length, dev: manifest.split.dev.length },
  };
  return {
    round,
    manifest: serving,
    itemStatements: packInserts("INSERT INTO items (round, ordinal, id, name, class, category, keywords) VALUES", itemTuples),
    shardStatements: perShard.map((rows) => packInserts("INSERT INTO postings (round, key, data) VALUES", rows)),
    postingsPerShard: serving.counts.postingsPerShard,
    kv: [[queryGeneratorKey(round, contentHash), qgen]],
  };
}
