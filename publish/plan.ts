/**
 * Turns a round into the writes of the serving index, as a stream of batches
 * (bounded memory at any catalogue size): item rows for the catalogue, block
 * directories and content-addressed blocks for each shard, and the KV values.
 *
 * Incremental: given the round it builds on (its base, whose rows the target
 * already holds), only what differs is written: the items whose row changed,
 * the postings whose blocks changed (a tombstone for a posting that went),
 * and the blocks the base's posting did not already hold. Both rounds stream
 * in the same orders (items by ordinal, postings by key), so the diff is a
 * merge-join that holds one item and one posting of each at a time.
 *
 * Rows are multi-row INSERTs with literal values: a few hundred rows a
 * statement is ~100× faster than one, and literals sidestep remote D1's
 * 100-bound-parameter limit. No statement exceeds PUBLISH_LIMITS.statementBytes.
 */
import { toBase64 } from "../core/base64.js";
import type { PostingBlock } from "../core/blocks.js";
import { blockHash, queryDfKey, queryGeneratorKey } from "../core/contract.js";
import { tailBuckets } from "../core/policy-tail.js";
import { dfBucketOf, extractorOf, policyOf } from "../core/query-generator.js";
import type { PostingEntry, RoundItem } from "../core/round-format.js";
import { shardOf } from "../core/shard.js";
import { PUBLISH_LIMITS } from "./limits.js";
import type { PublishBase, PublishSource } from "./source.js";
import { InsertPacker, sqlText } from "./sql.js";

/** One step of a publish: statements for the catalogue (db -1) or a shard (db s). */
export interface Batch {
  readonly db: number;
  readonly statements: readonly string[];
  /** Item or directory rows the statements insert (blocks aside). */
  readonly rows: number;
  readonly blocks: number;
  /** Items plus postings the plan has read so far, of header.itemCount + keywords + words: for progress and ETA. */
  readonly at: number;
}

/** The units Batch.at counts up to. */
export const planUnits = (source: PublishSource) => source.header.itemCount + source.header.keywords + source.header.words;

const itemTuple = (round: number, ordinal: number, it: RoundItem) =>
  `(${round},${ordinal},${sqlText(it.id)},${sqlText(it.name)},${sqlText(it.class)},${sqlText(it.category)},${sqlText(JSON.stringify(it.keywords))})`;

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, j) => x === b[j]);
/** Equal block bytes are equal blocks: a block's first ordinal, count and entries are all in its encoding. */
const sameBlocks = (a: readonly PostingBlock[], b: readonly PostingBlock[]) =>
  a.length === b.length && a.every((x, j) => sameBytes(x.data, (b[j] as PostingBlock).data));

const ITEMS_HEAD = "INSERT OR REPLACE INTO items (round, ordinal, id, name, class, category, keywords) VALUES";
const DIRECTORY_HEAD = "INSERT OR REPLACE INTO postings (round, key, seq, first, last, count, hash) VALUES";
const BLOCKS_HEAD = "INSERT OR IGNORE INTO blocks (hash, data) VALUES";

/**
 * Every write of a publish, in a fixed order (so a resumed publish can skip
 * the batches it already committed). Throws if base's items are not the
 * same ids in the same order: a base must be the same catalogue.
 */
export async function* planBatches(
  source: PublishSource,
  shardCount: number,
  base: PublishBase | null,
  /** Sees every posting of the round as the plan reads it (publish/suggest.ts builds the keyword suggestions so, with no second pass). */
  observe?: (e: PostingEntry) => void,
): AsyncGenerator<Batch> {
  const baseItems = base ? base.source.items()[Symbol.iterator]() : null;
  const basePostings = base ? base.source.postings()[Symbol.iterator]() : null;
  try {
    yield* diffBatches(source, shardCount, base, baseItems, basePostings, observe);
  } finally {
    // A plan that stops early (an error, a resumed publish's end) still closes the base's files.
    baseItems?.return?.();
    basePostings?.return?.();
  }
}

async function* diffBatches(
  source: PublishSource,
  shardCount: number,
  base: PublishBase | null,
  baseItems: Iterator<RoundItem> | null,
  basePostings: Iterator<PostingEntry> | null,
  observe: ((e: PostingEntry) => void) | undefined,
): AsyncGenerator<Batch> {
  const round = source.manifest.round;
  // Items: the catalogue, zipped with the base's.
  const items = new InsertPacker(ITEMS_HEAD);
  let rows = 0;
  let ordinal = 0;
  for (const it of source.items()) {
    const old = baseItems?.next();
    if (baseItems && (old?.done || old?.value.id !== it.id))
      throw new Error(`round ${round} cannot build on round ${base?.manifest.round}: their items differ at ordinal ${ordinal}`);
    if (!old || JSON.stringify(old.value) !== JSON.stringify(it)) {
      items.add(itemTuple(round, ordinal, it));
      rows++;
    }
    ordinal++;
    if (items.done.length >= PUBLISH_LIMITS.statementsPerBatch) {
      yield { db: -1, statements: items.done.splice(0), rows, blocks: 0, at: ordinal };
      rows = 0;
    }
  }
  if (baseItems && !baseItems.next().done) throw new Error(`round ${round} cannot build on round ${base?.manifest.round}: the base has more items`);
  items.flush();
  if (items.done.length > 0) yield { db: -1, statements: items.done.splice(0), rows, blocks: 0, at: ordinal };
  let at = ordinal;

  // Postings: a merge-join by key with the base's.
  const dirs = Array.from({ length: shardCount }, () => ({
    dir: new InsertPacker(DIRECTORY_HEAD),
    blocks: new InsertPacker(BLOCKS_HEAD),
    rows: 0,
    nblocks: 0,
  }));
  const ready = function* (force: boolean): Generator<Batch> {
    for (const [s, d] of dirs.entries()) {
      if (force) {
        d.blocks.flush();
        d.dir.flush();
      }
      // Blocks before the directory rows that name them, so a committed directory never points at a missing block.
      if (force || d.blocks.done.length + d.dir.done.length >= PUBLISH_LIMITS.statementsPerBatch) {
        const statements = [...d.blocks.done.splice(0), ...d.dir.done.splice(0)];
        if (statements.length > 0) yield { db: s, statements, rows: d.rows, blocks: d.nblocks, at };
        d.rows = 0;
        d.nblocks = 0;
      }
    }
  };
  let old = basePostings?.next();
  const write = async (e: PostingEntry, was: PostingEntry | null) => {
    const d = dirs[shardOf(e.key, shardCount)] as (typeof dirs)[number];
    const had = new Set(was?.blocks.map((b) => toBase64(b.data)) ?? []);
    for (const [seq, b] of e.blocks.entries()) {
      const hash = await blockHash(b.data);
      const text = toBase64(b.data);
      if (!had.has(text)) {
        d.blocks.add(`(${sqlText(hash)},'${text}')`);
        d.nblocks++;
      }
      d.dir.add(`(${round},${sqlText(e.key)},${seq},${b.first},${b.last},${b.count},${sqlText(hash)})`);
      d.rows++;
    }
  };
  const tombstone = (key: string) => {
    const d = dirs[shardOf(key, shardCount)] as (typeof dirs)[number];
    d.dir.add(`(${round},${sqlText(key)},0,0,0,0,'')`);
    d.rows++;
  };
  for (const e of source.postings()) {
    observe?.(e);
    while (old && !old.done && old.value.key < e.key) {
      tombstone(old.value.key);
      old = basePostings?.next();
    }
    const was = old && !old.done && old.value.key === e.key ? old.value : null;
    if (was) old = basePostings?.next();
    if (!was || was.count !== e.count || !sameBlocks(was.blocks, e.blocks)) await write(e, was);
    at++;
    yield* ready(false);
  }
  while (old && !old.done) {
    tombstone(old.value.key);
    old = basePostings?.next();
  }
  yield* ready(true);
}

/**
 * The KV values of a round: its query generator, and its extractor's df tail
 * (core/query-generator.ts dfBucketOf) or its policy's vocabulary tail
 * (core/policy-tail.ts tailBucketOf) in buckets, under the same keys.
 */
export function kvValues(source: PublishSource, contentHash: string): Array<[string, string]> {
  const round = source.manifest.round;
  const qgen = JSON.stringify(source.queryGenerator);
  if (qgen.length > PUBLISH_LIMITS.kvValueBytes) throw new RangeError(`the query generator (${qgen.length} bytes) is over KV's value limit`);
  const out: Array<[string, string]> = [[queryGeneratorKey(round, contentHash), qgen]];
  const spec = extractorOf(source.queryGenerator);
  if (spec?.tail && source.queryDfTail) {
    const buckets: Array<Record<string, number>> = Array.from({ length: spec.tail.buckets }, () => ({}));
    for (const [k, df] of source.queryDfTail()) (buckets[dfBucketOf(k, spec.tail.buckets)] as Record<string, number>)[k] = df;
    buckets.forEach((b, j) => {
      out.push([queryDfKey(round, contentHash, j), JSON.stringify(b)]);
    });
  }
  const policyTail = policyOf(source.queryGenerator)?.policy.tail;
  if (policyTail) {
    if (!source.policyTail) throw new Error(`round ${round}'s query policy has a vocabulary tail its source does not give`);
    const buckets = tailBuckets(source.policyTail(), policyTail.buckets);
    buckets.forEach((b, j) => {
      const value = JSON.stringify(b);
      if (value.length > PUBLISH_LIMITS.kvValueBytes)
        throw new RangeError(`round ${round}'s policy tail bucket ${j} (${value.length} bytes) is over KV's value limit`);
      out.push([queryDfKey(round, contentHash, j), value]);
    });
  }
  return out;
}
