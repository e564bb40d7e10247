/**
 * The workbench's reads and writes (drizzle over CATALOG, and EVENTS for the
 * frequent queries): labels merged with judgments (core/labels.ts), query
 * sets, BM25 runs and item details.
 */
import { desc, eq, isNotNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { type Grade, mergeLabels } from "../../../core/labels.js";
import { labels } from "../schema/catalog.js";
import { searches } from "../schema/events.js";
import { bm25Runs, itemDetails, judgments, querySets } from "../schema/workbench.js";
import { fromD1 } from "../storage.js";

export type { Grade };
export type Labels = Map<string, Grade>;

export interface Bm25Run {
  /** [item id, BM25 score] in rank order, to max(cutoff, 100). */
  readonly ranked: ReadonlyArray<readonly [string, number]>;
  readonly cutoff: number;
  readonly tunedOn: number;
  readonly splitRound: number;
}

/** The query sets every deployment has; uploaded ones take other names (scripts/query-set.ts refuses these). */
export const BUILT_IN_SETS = ["labelled", "frequent"] as const;

const inJson = (values: readonly string[]) => sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;

export class WorkbenchStore {
  private readonly db;
  private readonly events;

  constructor(catalog: D1Database, events: D1Database | undefined) {
    this.db = drizzle(catalog);
    this.events = events ? drizzle(events) : null;
  }

  /** Each query's merged labels (queries without any map to an empty map). */
  async labelsFor(queries: readonly string[]): Promise<Map<string, Labels>> {
    const out = new Map<string, Labels>(queries.map((q) => [q, new Map()]));
    if (queries.length === 0) return out;
    const [file, judged] = await fromD1("reading labels and judgments", () =>
      Promise.all([
        this.db
          .select()
          .from(labels)
          .where(sql`${labels.query} IN ${inJson(queries)}`),
        this.db
          .select()
          .from(judgments)
          .where(sql`${judgments.query} IN ${inJson(queries)}`),
      ]),
    );
    for (const q of queries) {
      out.set(
        q,
        mergeLabels(
          file.filter((r) => r.query === q),
          judged.filter((r) => r.query === q),
        ),
      );
    }
    return out;
  }

  async judge(j: { query: string; itemId: string; label: Grade; rater: string; judgedAt: string }): Promise<void> {
    await fromD1("storing a judgment", () =>
      this.db
        .insert(judgments)
        .values(j)
        .onConflictDoUpdate({ target: [judgments.query, judgments.itemId, judgments.rater], set: { label: j.label, judgedAt: j.judgedAt } }),
    );
  }

  async bm25RunsFor(queries: readonly string[]): Promise<Map<string, Bm25Run>> {
    if (queries.length === 0) return new Map();
    const rows = await fromD1("reading BM25 runs", () =>
      this.db
        .select()
        .from(bm25Runs)
        .where(sql`${bm25Runs.query} IN ${inJson(queries)}`),
    );
    return new Map(
      rows.map((r) => [r.query, { ranked: JSON.parse(r.ranked) as Array<[string, number]>, cutoff: r.cutoff, tunedOn: r.tunedOn, splitRound: r.splitRound }]),
    );
  }

  /** Every set with its size: the labelled queries, the frequent ones (when events are stored), the uploaded ones. */
  async sets(frequentLimit: number): Promise<Array<{ name: string; kind: "labelled" | "frequent" | "uploaded"; queries: number }>> {
    const [labelled, uploaded, frequent] = await Promise.all([
      this.labelledQueries(Number.MAX_SAFE_INTEGER),
      fromD1("reading query sets", () =>
        this.db.select({ name: querySets.name, n: sql<number>`count(*)` }).from(querySets).groupBy(querySets.name).orderBy(querySets.name),
      ),
      this.frequentQueries(frequentLimit),
    ]);
    return [
      { name: "labelled", kind: "labelled" as const, queries: labelled.length },
      { name: "frequent", kind: "frequent" as const, queries: frequent.length },
      ...uploaded.map((u) => ({ name: u.name, kind: "uploaded" as const, queries: Number(u.n) })),
    ];
  }

  /** A set's queries (at most `limit`), or null when no set has that name. */
  async setQueries(name: string, limit: number): Promise<string[] | null> {
    if (name === "labelled") return this.labelledQueries(limit);
    if (name === "frequent") return this.frequentQueries(limit);
    const rows = await fromD1("reading a query set", () =>
      this.db.select({ query: querySets.query }).from(querySets).where(eq(querySets.name, name)).orderBy(querySets.position).limit(limit),
    );
    return rows.length === 0 ? null : rows.map((r) => r.query);
  }

  /** Queries with a file label or a judgment, alphabetically. */
  async labelledQueries(limit: number): Promise<string[]> {
    const rows = await fromD1("reading the labelled queries", () =>
      this.db.all<{ query: string }>(sql`SELECT query FROM labels UNION SELECT query FROM judgments ORDER BY query LIMIT ${limit}`),
    );
    return rows.map((r) => r.query);
  }

  /** The most frequent normalised queries of the search events; none when events are not stored. */
  async frequentQueries(limit: number): Promise<string[]> {
    const events = this.events;
    if (!events) return [];
    const n = sql<number>`count(*)`;
    const rows = await fromD1("reading the frequent queries", () =>
      events
        .select({ query: searches.query, n })
        .from(searches)
        .where(isNotNull(searches.query))
        .groupBy(searches.query)
        .orderBy(desc(n), searches.query)
        .limit(limit),
    );
    return rows.map((r) => r.query as string).filter((q) => q !== "");
  }

  async itemDetails(id: string): Promise<{ description: string; features: Array<[string, string]> } | null> {
    const rows = await fromD1("reading item details", () => this.db.select().from(itemDetails).where(eq(itemDetails.id, id)).limit(1));
    const r = rows[0];
    return r ? { description: r.description, features: JSON.parse(r.features) as Array<[string, string]> } : null;
  }
}
