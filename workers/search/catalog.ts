/**
 * The catalogue database through drizzle-orm: published rounds (cached per
 * isolate for ROUND_CACHE_TTL_MS) and item rows. Item lookups for a page of
 * results are one query, whatever the page size. A round holds only the item
 * rows that differ from its base's, so a row comes from the first round of
 * the round's chain that has one (workers/publish/plan.ts). Reads go through
 * the Sessions API, so production reads may be served by read replicas.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { type ItemRow, parseServingManifest, rowsByChain, type ServingManifest } from "../../core/contract.js";
import { SERVING_LIMITS } from "./limits.js";
import { items, labels, rounds } from "./schema/catalog.js";
import { fromD1 } from "./storage.js";
import { readSession } from "./store/d1-store.js";
import { ByteLru } from "./store/lru.js";

export type { ItemRow };

let roundCache: { at: number; rounds: ServingManifest[] } | null = null;

/** Item rows by (round, content hash, ordinal), per isolate: rounds are immutable, so rows never go stale. */
const ITEM_OVERHEAD_BYTES = 128;
export const itemLru = new ByteLru<ItemRow>(
  SERVING_LIMITS.itemLruBytes,
  (key, r) => (key.length + r.id.length + r.name.length + r.class.length + r.category.length + r.keywords.join(" ").length) * 2 + ITEM_OVERHEAD_BYTES,
);

/** Test hook: forget the cached round list. */
export function clearRoundCache(): void {
  roundCache = null;
}

export class Catalog {
  private session: ReturnType<typeof drizzle> | null = null;

  constructor(
    private readonly d1: D1Database,
    private readonly roundTtlMs: number,
  ) {}

  /** Opened on first use, inside a read, so a failing session is that read's 503. */
  private get db() {
    this.session ??= drizzle(readSession(this.d1) as D1Database);
    return this.session;
  }

  /** Published rounds, newest first. */
  async publishedRounds(): Promise<ServingManifest[]> {
    const now = Date.now();
    if (roundCache && now - roundCache.at < this.roundTtlMs) return roundCache.rounds;
    const rows = await fromD1("reading the published rounds", () =>
      this.db.select({ manifest: rounds.manifest }).from(rounds).where(eq(rounds.state, "published")).orderBy(desc(rounds.round)),
    );
    const list = rows.map((r) => parseServingManifest(r.manifest));
    roundCache = { at: now, rounds: list };
    return list;
  }

  /** Rows for a page of results: the isolate's LRU first, then one D1 query for the rest. */
  async itemsByOrdinal(round: ServingManifest, ordinals: readonly number[]): Promise<Map<number, ItemRow>> {
    const out = new Map<number, ItemRow>();
    const prefix = `${round.round}:${round.contentHash}:`;
    const missing: number[] = [];
    for (const o of ordinals) {
      const hit = itemLru.get(prefix + o);
      if (hit) out.set(o, hit);
      else missing.push(o);
    }
    if (missing.length === 0) return out;
    const rows = await fromD1("reading item rows", () =>
      this.db
        .select()
        .from(items)
        .where(and(inArray(items.round, [...round.chain]), sql`${items.ordinal} IN (SELECT value FROM json_each(${JSON.stringify(missing)}))`)),
    );
    // One row per (round, ordinal): each group holds the row of the first chain round that has the item.
    for (const [r] of rowsByChain(rows, round.chain, (r) => r.ordinal).values()) {
      const item = toItem(r as (typeof rows)[number]);
      itemLru.set(prefix + item.ordinal, item);
      out.set(item.ordinal, item);
    }
    return out;
  }

  async itemById(round: Pick<ServingManifest, "chain">, id: string): Promise<ItemRow | null> {
    const rows = await fromD1("reading an item", () =>
      this.db
        .select()
        .from(items)
        .where(and(inArray(items.round, [...round.chain]), eq(items.id, id))),
    );
    const [row] =
      rowsByChain(rows, round.chain, (r) => r.ordinal)
        .values()
        .next().value ?? [];
    return row ? toItem(row) : null;
  }

  /** The item in each of the given rounds (absent from a round: left out), one query for all of them. */
  async itemInRounds(published: readonly ServingManifest[], id: string): Promise<Array<{ round: number; item: ItemRow }>> {
    const all = [...new Set(published.flatMap((r) => r.chain))];
    if (all.length === 0) return [];
    const rows = await fromD1("reading an item's rounds", () =>
      this.db
        .select()
        .from(items)
        .where(and(inArray(items.round, all), eq(items.id, id))),
    );
    const out: Array<{ round: number; item: ItemRow }> = [];
    for (const r of published) {
      const own = rows.filter((x) => r.chain.includes(x.round));
      const [row] =
        rowsByChain(own, r.chain, (x) => x.ordinal)
          .values()
          .next().value ?? [];
      if (row) out.push({ round: r.round, item: toItem(row) });
    }
    return out;
  }

  /** Ordinals in a round of the given item ids (ids it lacks are absent). One query. */
  async ordinalsOf(round: Pick<ServingManifest, "chain">, ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await fromD1("reading item ordinals", () =>
      this.db
        .select({ round: items.round, ordinal: items.ordinal, id: items.id })
        .from(items)
        .where(and(inArray(items.round, [...round.chain]), sql`${items.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`)),
    );
    return new Map(
      [...rowsByChain(rows, round.chain, (r) => r.ordinal).values()].map(([r]) => [(r as (typeof rows)[number]).id, (r as (typeof rows)[number]).ordinal]),
    );
  }

  /** The relevance labels of a normalised query (`npm run labels`): item id → label; empty when none are loaded. */
  async labelsOf(query: string): Promise<Map<string, "Exact" | "Partial" | "Irrelevant">> {
    const rows = await fromD1("reading relevance labels", () =>
      this.db.select({ itemId: labels.itemId, label: labels.label }).from(labels).where(eq(labels.query, query)),
    );
    return new Map(rows.map((r) => [r.itemId, r.label]));
  }
}

function toItem(r: typeof items.$inferSelect): ItemRow {
  return { ordinal: r.ordinal, id: r.id, name: r.name, class: r.class, category: r.category, keywords: JSON.parse(r.keywords) as string[] };
}
