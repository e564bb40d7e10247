/**
 * Publish targets from Node.
 *
 * local:  wrangler's getPlatformProxy over the same persisted state
 *         `wrangler dev` reads (.wrangler/state/v3), so writes go through the
 *         real local D1 and KV at binding speed.
 * wrangler: every write through the wrangler CLI (`d1 execute --file`,
 *         `kv key put`), against Cloudflare with --remote, or against local
 *         state with --local (how the tests exercise this path).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";
import { sqlText } from "../sql.js";
import { type D1Like, d1Database, type KeyValueStore, type KvLike, kvStore, type PublishTarget, type SqlDatabase } from "../target.js";
import type { D1Config, DeployConfig } from "./deploy-config.js";
import { wrangler } from "./wrangler.js";

export const DEFAULT_STATE_DIR = ".wrangler/state";

export interface OpenTarget extends PublishTarget {
  dispose(): Promise<void>;
}

/** The bindings of the persisted local state `wrangler dev` reads. */
export function localBindings(config: DeployConfig, stateDir: string) {
  return getPlatformProxy<Record<string, unknown>>({
    configPath: "wrangler.toml",
    ...(config.environment ? { environment: config.environment } : {}),
    persist: { path: join(stateDir, "v3") },
  });
}

export async function localTarget(config: DeployConfig, stateDir = DEFAULT_STATE_DIR): Promise<OpenTarget> {
  const proxy = await localBindings(config, stateDir);
  const env = proxy.env;
  return {
    catalog: d1Database(env[config.catalog.binding] as D1Like),
    shards: config.shards.map((s) => d1Database(env[s.binding] as D1Like)),
    kv: kvStore(env[config.kv.binding] as KvLike),
    dispose: () => proxy.dispose(),
  };
}

export interface WranglerTargetOptions {
  readonly mode: "local" | "remote";
  readonly stateDir?: string;
}

function scopeArgs(config: DeployConfig, opts: WranglerTargetOptions): string[] {
  const args = [opts.mode === "remote" ? "--remote" : "--local"];
  if (config.environment) args.push("--env", config.environment);
  if (opts.mode === "local") args.push("--persist-to", opts.stateDir ?? DEFAULT_STATE_DIR);
  return args;
}

const literal = (v: string | number) => (typeof v === "number" ? String(v) : sqlText(v));

function wranglerDatabase(name: string, scope: string[], work: string): SqlDatabase {
  let n = 0;
  return {
    async execute(statements) {
      if (statements.length === 0) return;
      const file = join(work, `${name}-${n++}.sql`);
      writeFileSync(file, `${statements.map((s) => (s.trimEnd().endsWith(";") ? s : `${s};`)).join("\n")}\n`);
      await wrangler(["d1", "execute", name, ...scope, "--file", file, "--yes"]);
      rmSync(file, { force: true });
    },
    async scalar(sql, ...params) {
      let j = 0;
      const inlined = sql.replace(/\?/g, () => literal(params[j++] as string | number));
      const out = await wrangler(["d1", "execute", name, ...scope, "--command", inlined, "--json"]);
      const rows = (JSON.parse(out.slice(out.indexOf("["))) as Array<{ results: Array<Record<string, unknown>> }>)[0]?.results ?? [];
      return rows[0] ? Object.values(rows[0])[0] : null;
    },
  };
}

function wranglerKv(config: DeployConfig, scope: string[], work: string): KeyValueStore {
  const ns = ["--namespace-id", config.kv.id, ...scope];
  return {
    async put(key, value) {
      const file = join(work, "kv-value");
      writeFileSync(file, value);
      await wrangler(["kv", "key", "put", key, "--path", file, ...ns]);
    },
    async putMany(pairs) {
      // KV's bulk write takes at most 10,000 pairs a request.
      for (let j = 0; j < pairs.length; j += 10_000) {
        const file = join(work, "kv-bulk.json");
        writeFileSync(file, JSON.stringify(pairs.slice(j, j + 10_000).map(([key, value]) => ({ key, value }))));
        await wrangler(["kv", "bulk", "put", file, ...ns]);
      }
    },
    async get(key) {
      // `kv key get` prints "Value not found" for a missing key, so ask the key list first.
      const listed = JSON.parse(await wrangler(["kv", "key", "list", "--prefix", key, ...ns])) as Array<{ name: string }>;
      if (!listed.some((k) => k.name === key)) return null;
      // wrangler prints the value followed by one newline.
      return (await wrangler(["kv", "key", "get", key, "--text", ...ns])).replace(/\n$/, "");
    },
    async keys(prefix) {
      return (JSON.parse(await wrangler(["kv", "key", "list", "--prefix", prefix, ...ns])) as Array<{ name: string }>).map((k) => k.name);
    },
    async deletePrefix(prefix) {
      const keys = JSON.parse(await wrangler(["kv", "key", "list", "--prefix", prefix, ...ns])) as Array<{ name: string }>;
      if (keys.length === 0) return 0;
      const file = join(work, "kv-delete.json");
      writeFileSync(file, JSON.stringify(keys.map((k) => k.name)));
      await wrangler(["kv", "bulk", "delete", file, "--force", ...ns]);
      return keys.length;
    },
  };
}

export function wranglerTarget(config: DeployConfig, opts: WranglerTargetOptions): OpenTarget {
  const scope = scopeArgs(config, opts);
  const work = mkdtempSync(join(tmpdir(), "cogr-publish-"));
  return {
    catalog: wranglerDatabase(config.catalog.name, scope, work),
    shards: config.shards.map((s) => wranglerDatabase(s.name, scope, work)),
    kv: wranglerKv(config, scope, work),
    dispose: async () => rmSync(work, { recursive: true, force: true }),
  };
}

/** `wrangler d1 migrations apply` for the catalogue, every shard and the events database. */
/**
 * Applies the D1 migrations through wrangler. Locally, only databases with a
 * pending migration are touched: their applied list is read first through
 * the bindings (about a second), where each wrangler call costs several, so
 * `npm start` on a published state and a no-op publish stay fast. Remotely,
 * wrangler decides (it applies nothing when nothing is pending).
 */
export async function applyMigrations(config: DeployConfig, opts: WranglerTargetOptions): Promise<{ applied: string[] }> {
  const scope = scopeArgs(config, opts);
  const all = [config.catalog, ...config.shards, config.events];
  const todo = opts.mode === "local" ? await pendingLocal(config, all, opts.stateDir ?? DEFAULT_STATE_DIR) : all;
  for (const db of todo) await wrangler(["d1", "migrations", "apply", db.name, ...scope], { input: "y\n" });
  return { applied: todo.map((d) => d.name) };
}

/** The local databases whose migrations folder holds a file their migrations table does not list. */
async function pendingLocal(config: DeployConfig, dbs: readonly D1Config[], stateDir: string): Promise<D1Config[]> {
  const proxy = await localBindings(config, stateDir);
  try {
    const out: D1Config[] = [];
    for (const db of dbs) {
      const files = existsSync(db.migrationsDir) ? readdirSync(db.migrationsDir).filter((f) => f.endsWith(".sql")) : [];
      let applied = new Set<string>();
      try {
        const d1 = proxy.env[db.binding] as { prepare(sql: string): { all(): Promise<{ results: Array<{ name: string }> }> } };
        applied = new Set((await d1.prepare(`SELECT name FROM ${db.migrationsTable}`).all()).results.map((r) => r.name));
      } catch {
        applied = new Set(); // no migrations table yet: everything is pending
      }
      if (files.some((f) => !applied.has(f))) out.push(db);
    }
    return out;
  } finally {
    await proxy.dispose();
  }
}
