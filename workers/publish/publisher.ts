/**
 * Atomic publish and unpublish of a round.
 *
 * The catalogue's `rounds` row is the commit point: serving reads only rows
 * in state 'published', and the row becomes 'published' only after every
 * item, posting and KV value is written and counted back. An interrupted
 * publish leaves a 'publishing' row that serving ignores; running the
 * publish again clears the round's partial rows and writes them anew.
 */
import { SERVING_CONFIG_KEY, type ServingConfig } from "../experiments/config.js";
import { parseServingManifest } from "./manifest.js";
import { type PublishPlan, queryGeneratorKey } from "./plan.js";
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
}

export type PublishProgress = (step: string, done: number, total: number) => void;

async function roundRow(target: PublishTarget, round: number): Promise<{ state: string; manifest: string } | null> {
  // One query (state and manifest joined) keeps the wrangler-CLI target to one call.
  const row = (await target.catalog.scalar("SELECT state || char(10) || manifest FROM rounds WHERE round = ?", round)) as string | null;
  if (row === null) return null;
  const cut = row.indexOf("\n");
  return { state: row.slice(0, cut), manifest: row.slice(cut + 1) };
}

export async function publishRound(
  target: PublishTarget,
  plan: PublishPlan,
  progress: PublishProgress = () => {},
  opts: PublishOptions = {},
): Promise<PublishOutcome> {
  const { round, manifest } = plan;
  if (target.shards.length !== manifest.shardCount) {
    throw new PublishError(`the target has ${target.shards.length} shard databases but the plan is for ${manifest.shardCount}`);
  }
  const existing = await roundRow(target, round);
  let replaced = false;
  if (existing?.state === "published") {
    if (parseServingManifest(existing.manifest).contentHash === manifest.contentHash) return "unchanged";
    if (!opts.replace) {
      throw new PublishError(`round ${round} is already published with other content: unpublish it first (npm run unpublish -- --round ${round})`);
    }
    await unpublishRound(target, round, { evenIfServing: true });
    replaced = true;
  }
  if (existing?.state === "unpublishing") throw new PublishError(`round ${round} is being unpublished: finish that first`);

  const now = new Date().toISOString();
  const placeholder = JSON.stringify({ round, contentHash: manifest.contentHash });
  await target.catalog.execute([
    `INSERT OR REPLACE INTO rounds (round, state, manifest, updated_at) VALUES (${round}, 'publishing', '${placeholder.replace(/'/g, "''")}', '${now}')`,
    `DELETE FROM items WHERE round = ${round}`,
  ]);
  for (const shard of target.shards) await shard.execute([`DELETE FROM postings WHERE round = ${round}`]);

  const total = plan.itemStatements.length + plan.shardStatements.reduce((s, x) => s + x.length, 0) + plan.kv.length;
  let done = 0;
  const step = async (name: string, db: { execute(s: readonly string[]): Promise<void> }, statements: readonly string[]) => {
    const CHUNK = 100;
    for (let j = 0; j < statements.length; j += CHUNK) {
      const part = statements.slice(j, j + CHUNK);
      await db.execute(part);
      done += part.length;
      progress(name, done, total);
    }
  };
  await step("items", target.catalog, plan.itemStatements);
  for (const [s, statements] of plan.shardStatements.entries()) await step(`shard ${s}`, target.shards[s] as PublishTarget["shards"][number], statements);
  for (const [k, v] of plan.kv) {
    await target.kv.put(k, v);
    progress("kv", ++done, total);
  }

  // Verify before the commit point: counts in every database, and the KV values.
  const items = Number(await target.catalog.scalar("SELECT COUNT(*) FROM items WHERE round = ?", round));
  if (items !== manifest.counts.items) throw new PublishError(`round ${round}: ${items} item rows written, ${manifest.counts.items} expected`);
  for (const [s, shard] of target.shards.entries()) {
    const n = Number(await shard.scalar("SELECT COUNT(*) FROM postings WHERE round = ?", round));
    if (n !== plan.postingsPerShard[s]) throw new PublishError(`round ${round}: shard ${s} holds ${n} postings, ${plan.postingsPerShard[s]} expected`);
  }
  for (const [k, v] of plan.kv) {
    if ((await target.kv.get(k)) !== v) throw new PublishError(`round ${round}: KV value ${k} did not read back`);
  }
  const text = JSON.stringify(manifest).replace(/'/g, "''");
  await target.catalog.execute([
    `UPDATE rounds SET state = 'published', manifest = '${text}', updated_at = '${new Date().toISOString()}' WHERE round = ${round} AND state = 'publishing'`,
  ]);
  const after = await roundRow(target, round);
  if (after?.state !== "published") throw new PublishError(`round ${round} changed state during publish`);
  return replaced ? "replaced" : "published";
}

/** Rounds that serve traffic: the running experiment's arms, else the default round (last promoted or rolled back), else the newest. */
export async function servingRounds(target: PublishTarget): Promise<number[]> {
  const text = await target.kv.get(SERVING_CONFIG_KEY);
  const config = text ? (JSON.parse(text) as ServingConfig) : null;
  if (config?.experiment) return config.experiment.arms.map((a) => a.round);
  if (config?.defaultRound != null) return [config.defaultRound];
  const newest = await target.catalog.scalar("SELECT MAX(round) FROM rounds WHERE state = 'published'");
  return newest === null ? [] : [Number(newest)];
}

export async function unpublishRound(target: PublishTarget, round: number, opts: { evenIfServing?: boolean } = {}): Promise<void> {
  const existing = await roundRow(target, round);
  if (!existing) throw new PublishError(`round ${round} is not published`);
  if (!opts.evenIfServing && existing.state === "published" && (await servingRounds(target)).includes(round)) {
    throw new PublishError(`round ${round} is serving traffic: publish a newer round, or end the experiment that serves it, first`);
  }
  // Published rows hold the full manifest, interrupted ones a placeholder: both carry the content hash.
  const hash = (JSON.parse(existing.manifest) as { contentHash: string }).contentHash;
  await target.catalog.execute([`UPDATE rounds SET state = 'unpublishing' WHERE round = ${round}`]);
  for (const shard of target.shards) await shard.execute([`DELETE FROM postings WHERE round = ${round}`]);
  await target.catalog.execute([`DELETE FROM items WHERE round = ${round}`]);
  await target.kv.deletePrefix(queryGeneratorKey(round, hash));
  await target.kv.deletePrefix(`p:${round}:`);
  await target.kv.deletePrefix(`kw:${round}:`);
  await target.catalog.execute([`DELETE FROM rounds WHERE round = ${round}`]);
}
