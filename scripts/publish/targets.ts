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
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";
import { sqlText } from "../../workers/publish/plan.js";
import { type D1Like, d1Database, type KeyValueStore, type KvLike, kvStore, type PublishTarget, type SqlDatabase } from "../../workers/publish/target.js";
import { wrangler } from "../wrangler.js";
import type { DeployConfig } from "./deploy-config.js";

export const DEFAULT_STATE_DIR = ".wrangler/state";

export interface OpenTarget extends PublishTarget {
  dispose(): Promise<void>;
}

export async function localTarget(config: DeployConfig, stateDir = DEFAULT_STATE_DIR): Promise<OpenTarget> {
  const proxy = await getPlatformProxy<Record<string, unknown>>({
    configPath: "wrangler.toml",
    ...(config.environment ? { environment: config.environment } : {}),
    persist: { path: join(stateDir, "v3") },
  });
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
    async get(key) {
      // `kv key get` prints "Value not found" for a missing key, so ask the key list first.
      const listed = JSON.parse(await wrangler(["kv", "key", "list", "--prefix", key, ...ns])) as Array<{ name: string }>;
      if (!listed.some((k) => k.name === key)) return null;
      // wrangler prints the value followed by one newline.
      return (await wrangler(["kv", "key", "get", key, "--text", ...ns])).replace(/\n$/, "");
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
export async function applyMigrations(config: DeployConfig, opts: WranglerTargetOptions): Promise<void> {
  const scope = scopeArgs(config, opts);
  for (const db of [config.catalog, ...config.shards, config.events]) {
    await wrangler(["d1", "migrations", "apply", db.name, ...scope], { input: "y\n" });
  }
}
