/**
 * The catalogue database through drizzle-orm: published rounds (cached per
 * isolate for ROUND_CACHE_TTL_MS) and item rows. Item lookups for a page of
 * results are one query, whatever the page size.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { parseServingManifest, type ServingManifest } from "../publish/manifest.js";
import { items, rounds } from "./schema/catalog.js";

export interface ItemRow {
  readonly ordinal: number;
  readonly id: string;
  readonly name: string;
  readonly class: string;
  readonly category: string;
  readonly keywords: readonly string[];
}

let roundCache: { at: number; rounds: ServingManifest[] } | null = null;

/** Test hook: forget the cached round list. */
export function clearRoundCache(): void {
  roundCache = null;
}

export class Catalog {
  private readonly db;

  constructor(
    d1: D1Database,
    private readonly roundTtlMs: number,
  ) {
    this.db = drizzle(d1);
  }

  /** Published rounds, newest first. */
  async publishedRounds(): Promise<ServingManifest[]> {
    const now = Date.now();
    if (roundCache && now - roundCache.at < this.roundTtlMs) return roundCache.rounds;
    const rows = await this.db.select({ manifest: rounds.manifest }).from(rounds).where(eq(rounds.state, "published")).orderBy(desc(rounds.round));
    const list = rows.map((r) => parseServingManifest(r.manifest));
    roundCache = { at: now, rounds: list };
    return list;
  }

  async itemsByOrdinal(round: number, ordinals: readonly number[]): Promise<Map<number, ItemRow>> {
    if (ordinals.length === 0) return new Map();
    const rows = await this.db
      .select()
      .from(items)
      .where(and(eq(items.round, round), sql`${items.ordinal} IN (SELECT value FROM json_each(${JSON.stringify(ordinals)}))`));
    return new Map(rows.map((r) => [r.ordinal, toItem(r)]));
  }

  async itemById(round: number, id: string): Promise<ItemRow | null> {
    const rows = await this.db
      .select()
      .from(items)
      .where(and(eq(items.round, round), eq(items.id, id)))
      .limit(1);
    return rows[0] ? toItem(rows[0]) : null;
  }
}

function toItem(r: typeof items.$inferSelect): ItemRow {
  return { ordinal: r.ordinal, id: r.id, name: r.name, class: r.class, category: r.category, keywords: JSON.parse(r.keywords) as string[] };
}
