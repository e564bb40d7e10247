/**
 * `publish --dry-run`: the plan, and nothing written. It lists the pending migrations per
 * database, what becomes of the round (new, unchanged, refused, replaced), the base it would
 * build on, and the statements and rows per database, by running the publish's own planner
 * (publish/plan.ts) over the artifact without a write.
 */
import { parseServingManifest } from "../../core/contract.js";
import { columnKvValues } from "../../publish/columns.js";
import { findBase } from "../../publish/node/artifact.js";
import type { OpenTarget, PendingMigrations } from "../../publish/node/targets.js";
import { kvValues, planBatches } from "../../publish/plan.js";
import { roundRow } from "../../publish/publisher.js";
import type { PublishBase, PublishSource } from "../../publish/source.js";
import type { TargetChoice } from "./options.js";

export function migrationLines(pending: readonly PendingMigrations[]): string[] {
  const todo = pending.filter((p) => p.files.length > 0);
  if (todo.length === 0) return ["migrations: none pending"];
  return [`migrations pending (${todo.reduce((n, p) => n + p.files.length, 0)}):`, ...todo.map((p) => `  ${p.db.name}: ${p.files.join(", ")}`)];
}

/** What the publish would do, line by line; reads the target (when its catalogue is migrated), writes nothing. */
export async function dryRunLines(choice: TargetChoice, source: PublishSource, target: OpenTarget, pending: readonly PendingMigrations[]): Promise<string[]> {
  const round = source.manifest.round;
  const lines = migrationLines(pending);
  // A catalogue without its tables yet (its first migration pending) holds no rounds: nothing to read.
  const fresh = pending.some((p) => p.db === choice.config.catalog && p.files.some((f) => f.startsWith("0000_")));
  const existing = fresh ? null : await roundRow(target, round);
  if (existing?.state === "published") {
    const same = parseServingManifest(existing.manifest).contentHash === source.manifest.contentHash;
    if (same) return [...lines, `round ${round} is already published with this content: nothing to write`];
    if (!choice.replace) return [...lines, `round ${round} is published with other content: the publish would be refused (unpublish it first)`];
    lines.push(`round ${round} is published with other content: --replace unpublishes it first`);
  } else if (existing?.state === "publishing") lines.push(`round ${round} has an interrupted publish: it resumes or restarts`);
  const base: PublishBase | null = fresh || choice.full ? null : await findBase(target, source);
  lines.push(base ? `round ${round} builds on published round ${base.manifest.round} (only what differs is written)` : `round ${round} is written in full`);
  const shardCount = target.shards.length;
  const per = Array.from({ length: shardCount + 1 }, () => ({ batches: 0, statements: 0, rows: 0, blocks: 0 }));
  for await (const b of planBatches(source, shardCount, base)) {
    const t = per[b.db + 1] as (typeof per)[number];
    t.batches++;
    t.statements += b.statements.length;
    t.rows += b.rows;
    t.blocks += b.blocks;
  }
  const names = [choice.config.catalog, ...choice.config.shards].map((d) => d.name);
  per.forEach((t, j) => {
    const what = j === 0 ? `${t.rows} item rows` : `${t.rows} directory rows, ${t.blocks} blocks`;
    lines.push(`  ${names[j]}: ${t.batches} batches, ${t.statements} statements, ${what}`);
  });
  lines.push(
    `  KV ${choice.config.kv.binding}: ${kvValues(source, source.manifest.contentHash).length + columnKvValues(source, source.manifest.contentHash).length} values; then the round's catalogue row turns published`,
  );
  return lines;
}
