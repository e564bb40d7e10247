/**
 * The storage a publisher writes to, as the smallest structural slice of the
 * D1 and KV binding APIs. Workers bindings, Miniflare's Node proxies of them,
 * and the wrangler-CLI target for --remote all satisfy it.
 */
export interface SqlDatabase {
  /** Runs literal SQL statements, in order, as one or more batches. */
  execute(statements: readonly string[]): Promise<void>;
  /** First column of the first row of a query with bound parameters. */
  scalar(sql: string, ...params: Array<string | number>): Promise<unknown>;
}

export interface KeyValueStore {
  put(key: string, value: string): Promise<void>;
  /** Many values at once (the wrangler target writes them as KV bulk puts, ≤ 10,000 pairs a request). */
  putMany(pairs: ReadonlyArray<readonly [string, string]>): Promise<void>;
  get(key: string): Promise<string | null>;
  /** Every key under a prefix. */
  keys(prefix: string): Promise<string[]>;
  deletePrefix(prefix: string): Promise<number>;
}

export interface PublishTarget {
  readonly catalog: SqlDatabase;
  readonly shards: readonly SqlDatabase[];
  readonly kv: KeyValueStore;
}

/** Structural D1Database, so Node code can pass Miniflare's proxies without Workers' global types. */
export interface D1Like {
  prepare(sql: string): { bind(...values: unknown[]): { first(col?: string): Promise<unknown> } } & { first(col?: string): Promise<unknown> };
  batch(statements: unknown[]): Promise<unknown>;
}

export interface KvLike {
  put(key: string, value: string): Promise<void>;
  get(key: string, type: "text"): Promise<string | null>;
  delete(key: string): Promise<void>;
  list(opts: { prefix: string; cursor?: string | null }): Promise<{ keys: Array<{ name: string }>; list_complete: boolean; cursor?: string }>;
}

const BATCH_STATEMENTS = 50;

export function d1Database(db: D1Like): SqlDatabase {
  return {
    async execute(statements) {
      for (let j = 0; j < statements.length; j += BATCH_STATEMENTS) {
        await db.batch(statements.slice(j, j + BATCH_STATEMENTS).map((s) => db.prepare(s)));
      }
    },
    async scalar(sql, ...params) {
      const stmt = params.length > 0 ? db.prepare(sql).bind(...params) : db.prepare(sql);
      const row = (await stmt.first()) as Record<string, unknown> | null;
      return row ? Object.values(row)[0] : null;
    },
  };
}

export function kvStore(kv: KvLike): KeyValueStore {
  return {
    put: (k, v) => kv.put(k, v),
    async putMany(pairs) {
      for (const [k, v] of pairs) await kv.put(k, v);
    },
    get: (k) => kv.get(k, "text"),
    async keys(prefix) {
      const out: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await kv.list({ prefix, cursor: cursor ?? null });
        out.push(...page.keys.map((k) => k.name));
        if (page.list_complete || !page.cursor) return out;
        cursor = page.cursor;
      }
    },
    async deletePrefix(prefix) {
      let n = 0;
      let cursor: string | undefined;
      for (;;) {
        const page = await kv.list({ prefix, cursor: cursor ?? null });
        for (const k of page.keys) {
          await kv.delete(k.name);
          n++;
        }
        if (page.list_complete || !page.cursor) return n;
        cursor = page.cursor;
      }
    },
  };
}
