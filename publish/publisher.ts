/**
 * Atomic, resumable, incremental publish and unpublish of a round.
 *
 * The catalogue's `rounds` row is the commit point: serving reads only rows
 * in state 'published', and the row becomes 'published' only after every
 * batch is written and counted back. While publishing, the row holds a
 * progress marker (content hash, base, batches committed): a publish that was
 * killed resumes after its last committed batch (every write is an upsert, so
 * redoing the batch in flight is harmless); one with other content clears the
 * round's partial rows and starts again.
 */
import { parseServingManifest, ROUND_KV_PREFIXES, type ServingManifest, servingManifestOf } from "../core/contract.js";
import { columnKvValues, ensureColumns } from "./columns.js";
import { PUBLISH_LIMITS } from "./limits.js";
import { type Batch, kvValues, planBatches, planUnits } from "./plan.js";
import type { PublishBase, PublishSource } from "./source.js";
import { sqlText } from "./sql.js";
import type { PublishTarget } from "./target.js";

export class PublishError extends Error {}

export type PublishOutcome = "published" | "unchanged" | "replaced";

export interface PublishOptions {
  /**
   * Local development only (`npm start`): a round published with other content
   * (a re-trained round N) is unpublished first, even while it serves. Never
   * for shared state, where a round's number names its content.
   */
  readonly replace?: boolean;
  /** Extra KV values written with the round (an LLM round's warmed keyword cache). */
  readonly kv?: ReadonlyArray<readonly [string, string]>;
}

export interface PublishProgressInfo {
  /** Units read of `total` (items and postings, plan.ts planUnits). */
  readonly at: number;
  readonly total: number;
  readonly batches: number;
  readonly rows: number;
  readonly blocks: number;
  readonly skipped: number;
}

/**
 * Called after each committed batch (and once after the KV values), and awaited: a caller may refresh
 * its publish lock here, and a test may stop or kill the publish at a batch of its choice.
 */
export type PublishProgress = (step: string, info: PublishProgressInfo) => void | Promise<void>;

export interface PublishReport {
  readonly outcome: PublishOutcome;
  readonly manifest: ServingManifest;
  /** Rows written: item and directory rows, and blocks, by this publish (resumed batches count once). */
  readonly rows: number;
  readonly blocks: number;
  readonly batches: number;
  readonly resumedFrom: number;
}

interface Marker {
  readonly round: number;
  readonly contentHash: string;
  readonly base: number | null;
  readonly batches: number;
}

/** The round's catalogue row: its state, and its manifest (or, while publishing, its progress marker); null when there is none. */
export async function roundRow(target: PublishTarget, round: number): Promise<{ state: string; manifest: string } | null> {
  // One query (state and manifest joined) keeps the wrangler-CLI target to one call.
  const row = (await target.catalog.scalar("SELECT state || char(10) || manifest FROM rounds WHERE round = ?", round)) as string | null;
  if (row === null) return null;
  const cut = row.indexOf("\n");
  return { state: row.slice(0, cut), manifest: row.slice(cut + 1) };
}

async function clearRoundRows(target: PublishTarget, round: number): Promise<void> {
  await target.catalog.execute([`DELETE FROM items WHERE round = ${round}`]);
  for (const shard of target.shards) {
    await shard.execute([`DELETE FROM postings WHERE round = ${round}`, "DELETE FROM blocks WHERE hash NOT IN (SELECT hash FROM postings)"]);
  }
}

export async function publishRound(
  target: PublishTarget,
  source: PublishSource,
  base: PublishBase | null,
  progress: PublishProgress = () => {},
  opts: PublishOptions = {},
): Promise<PublishReport> {
  const round = source.manifest.round;
  const shardCount = target.shards.length;
  const contentHash = source.manifest.contentHash;
  if (base && (base.manifest.shardCount !== shardCount || base.manifest.chain.length >= PUBLISH_LIMITS.maxChain)) base = null;
  const manifest = servingManifestOf(source, shardCount, base?.manifest.chain ?? []);
  const existing = await roundRow(target, round);
  let replaced = false;
  if (existing?.state === "published") {
    const published = parseServingManifest(existing.manifest);
    if (published.contentHash === contentHash) {
      await ensureColumns(target.kv, source, contentHash);
      return { outcome: "unchanged", manifest: published, rows: 0, blocks: 0, batches: 0, resumedFrom: 0 };
    }
    if (!opts.replace) {
      throw new PublishError(`round ${round} is already published with other content: unpublish it first (npm run unpublish -- --round ${round})`);
    }
    await unpublishRound(target, round, { evenIfServing: true });
    replaced = true;
  }
  if (existing?.state === "unpublishing") throw new PublishError(`round ${round} is being unpublished: finish that first`);

  const marker = existing?.state === "publishing" ? (JSON.parse(existing.manifest) as Partial<Marker>) : null;
  const resume = marker?.contentHash === contentHash && (marker.base ?? null) === (base?.manifest.round ?? null) ? (marker.batches ?? 0) : 0;
  const markerSql = (batches: number) =>
    `INSERT OR REPLACE INTO rounds (round, state, manifest, updated_at) VALUES (${round}, 'publishing', ${sqlText(
      JSON.stringify({ round, contentHash, base: base?.manifest.round ?? null, batches } satisfies Marker),
    )}, '${new Date().toISOString()}')`;
  const writeMarker = (batches: number) => target.catalog.execute([markerSql(batches)]);
  if (resume === 0) {
    await writeMarker(0);
    await clearRoundRows(target, round);
  }

  // Row counts per database: what verification expects the round to hold.
  const expected = { items: 0, shards: new Array<number>(shardCount).fill(0) };
  let batches = 0;
  let rows = 0;
  let blocks = 0;
  for await (const batch of planBatches(source, shardCount, base)) {
    if (batch.db < 0) expected.items += batch.rows;
    else expected.shards[batch.db] = (expected.shards[batch.db] as number) + batch.rows;
    batches++;
    if (batches <= resume) continue;
    // On the catalogue the marker rides in the batch's own call (the wrangler-CLI target pays per call).
    if (batch.db < 0) await target.catalog.execute([...batch.statements, markerSql(batches)]);
    else {
      await dbOf(target, batch).execute(batch.statements);
      await writeMarker(batches);
    }
    rows += batch.rows;
    blocks += batch.blocks;
    await progress(batch.db < 0 ? "items" : `shard ${batch.db}`, { at: batch.at, total: planUnits(source), batches, rows, blocks, skipped: resume });
  }
  const kv = [...kvValues(source, contentHash), ...columnKvValues(source, contentHash), ...(opts.kv ?? [])];
  await target.kv.putMany(kv);
  await progress("kv", { at: planUnits(source), total: planUnits(source), batches, rows, blocks, skipped: resume });

  // Verify before the commit point: counts in every database, every directory's blocks, and the KV values.
  const items = Number(await target.catalog.scalar("SELECT COUNT(*) FROM items WHERE round = ?", round));
  if (items !== expected.items) throw new PublishError(`round ${round}: ${items} item rows written, ${expected.items} expected`);
  for (const [s, shard] of target.shards.entries()) {
    const n = Number(await shard.scalar("SELECT COUNT(*) FROM postings WHERE round = ?", round));
    if (n !== expected.shards[s]) throw new PublishError(`round ${round}: shard ${s} holds ${n} directory rows, ${expected.shards[s]} expected`);
    const orphans = Number(
      await shard.scalar("SELECT COUNT(*) FROM postings p LEFT JOIN blocks b ON b.hash = p.hash WHERE p.round = ? AND p.hash != '' AND b.hash IS NULL", round),
    );
    if (orphans !== 0) throw new PublishError(`round ${round}: shard ${s} names ${orphans} blocks it does not hold`);
  }
  // The query generator is read back whole; the many small values (df buckets, warmed keywords) are listed (one call per prefix).
  const [first, ...rest] = kv;
  if (first && (await target.kv.get(first[0])) !== first[1]) throw new PublishError(`round ${round}: KV value ${first[0]} did not read back`);
  const prefixes = new Set(rest.map(([k]) => k.slice(0, k.indexOf(":", k.indexOf(":") + 1) + 1)));
  const listed = new Set<string>();
  for (const p of prefixes) for (const k of await target.kv.keys(p)) listed.add(k);
  const lost = rest.filter(([k]) => !listed.has(k));
  if (lost.length > 0) throw new PublishError(`round ${round}: ${lost.length} KV values did not land (${lost[0]?.[0]} …)`);
  await target.catalog.execute([
    `UPDATE rounds SET state = 'published', manifest = ${sqlText(JSON.stringify(manifest))}, updated_at = '${new Date().toISOString()}' WHERE round = ${round} AND state = 'publishing'`,
  ]);
  const after = await roundRow(target, round);
  if (after?.state !== "published") throw new PublishError(`round ${round} changed state during publish`);
  return { outcome: replaced ? "replaced" : "published", manifest, rows, blocks, batches, resumedFrom: resume };
}

const dbOf = (target: PublishTarget, batch: Batch) => (batch.db < 0 ? target.catalog : (target.shards[batch.db] as PublishTarget["shards"][number]));

/** Every published round's manifest but `except`'s, newest first, in one query (one call through the wrangler CLI too). */
export async function publishedManifests(target: PublishTarget, except: number): Promise<ServingManifest[]> {
  const text = (await target.catalog.scalar(
    "SELECT json_group_array(manifest) FROM (SELECT manifest FROM rounds WHERE state = 'published' AND round != ? ORDER BY round DESC)",
    except,
  )) as string | null;
  return (JSON.parse(text ?? "[]") as string[]).map(parseServingManifest);
}

/** The published rounds whose chain holds `round` (they read its rows). */
async function dependents(target: PublishTarget, round: number): Promise<number[]> {
  return (await publishedManifests(target, round)).filter((m) => m.chain.includes(round)).map((m) => m.round);
}

/**
 * Rounds that serve traffic, as D1 (the source of truth, not its KV mirror)
 * says: the running (or paused: it resumes) experiment's arms, else the default round (the winner of
 * the last promoted experiment, the control of the last rolled-back one),
 * else the newest published round. Mirrors workers/search/experiments/store.ts servingConfig.
 */
export async function servingRounds(target: PublishTarget): Promise<number[]> {
  const running = (await target.catalog.scalar("SELECT config FROM experiments WHERE state IN ('running', 'paused') LIMIT 1")) as string | null;
  if (running) return (JSON.parse(running) as { arms: Array<{ round: number }> }).arms.map((a) => a.round);
  const ended = (await target.catalog.scalar("SELECT config FROM experiments WHERE state IN ('promoted', 'rolled_back') ORDER BY updated_at DESC LIMIT 1")) as
    | string
    | null;
  if (ended) {
    const last = JSON.parse(ended) as { state: string; winner?: number; control: number };
    const round = last.state === "promoted" ? (last.winner ?? null) : last.control;
    if (round !== null) return [round];
  }
  const newest = await target.catalog.scalar("SELECT MAX(round) FROM rounds WHERE state = 'published'");
  return newest === null ? [] : [Number(newest)];
}

export async function unpublishRound(target: PublishTarget, round: number, opts: { evenIfServing?: boolean } = {}): Promise<void> {
  const existing = await roundRow(target, round);
  if (!existing) throw new PublishError(`round ${round} is not published`);
  if (!opts.evenIfServing && existing.state === "published" && (await servingRounds(target)).includes(round)) {
    throw new PublishError(`round ${round} is serving traffic: publish a newer round, or end the experiment that serves it, first`);
  }
  const builtOn = await dependents(target, round);
  if (builtOn.length > 0)
    throw new PublishError(`round ${round} is the base of round ${builtOn.join(", ")}: unpublish ${builtOn.length > 1 ? "those" : "that"} first`);
  await target.catalog.execute([`UPDATE rounds SET state = 'unpublishing' WHERE round = ${round}`]);
  await clearRoundRows(target, round);
  for (const prefix of ROUND_KV_PREFIXES) await target.kv.deletePrefix(`${prefix}${round}:`);
  await target.catalog.execute([`DELETE FROM rounds WHERE round = ${round}`]);
}
