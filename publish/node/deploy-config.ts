/** The D1 databases and KV namespace of a wrangler environment, read with wrangler's own config reader. */
import { unstable_readConfig } from "wrangler";

export interface D1Config {
  readonly binding: string;
  readonly name: string;
  readonly id: string;
  /** Where its migrations live, and the table wrangler records applied ones in. */
  readonly migrationsDir: string;
  readonly migrationsTable: string;
}

export interface DeployConfig {
  readonly environment: string | undefined;
  /** The wrangler config file and environment, as error messages name them. */
  readonly where: string;
  readonly configPath: string;
  readonly catalog: D1Config;
  readonly shards: readonly D1Config[];
  /** Search and feedback events (experiments). */
  readonly events: D1Config;
  readonly kv: { readonly binding: string; readonly id: string };
}

export function readDeployConfig(environment?: string, configPath = "wrangler.toml"): DeployConfig {
  const config = unstable_readConfig({ config: configPath, env: environment });
  const d1 = config.d1_databases ?? [];
  const where = `${configPath}${environment ? ` [env.${environment}]` : ""}`;
  const named = (binding: string): D1Config => {
    const db = d1.find((d: { binding: string; database_name?: string }) => d.binding === binding);
    if (!db?.database_name) throw new Error(`${where} has no D1 binding ${binding}`);
    return {
      binding,
      name: db.database_name,
      id: db.database_id ?? "",
      migrationsDir: db.migrations_dir ?? "migrations",
      migrationsTable: db.migrations_table ?? "d1_migrations",
    };
  };
  const count = Number((config.vars as Record<string, unknown> | undefined)?.SHARD_COUNT ?? 0);
  if (!Number.isInteger(count) || count < 1) throw new Error(`${where}: SHARD_COUNT must be a positive integer`);
  const kv = (config.kv_namespaces ?? []).find((k: { binding: string; id?: string }) => k.binding === "CACHE");
  if (!kv?.id) throw new Error(`${where} has no KV binding CACHE`);
  return {
    environment,
    where,
    configPath,
    catalog: named("CATALOG"),
    shards: Array.from({ length: count }, (_, s) => named(`SHARD_${s}`)),
    events: named("EVENTS"),
    kv: { binding: "CACHE", id: kv.id },
  };
}

/**
 * wrangler.toml ships placeholder ids (they key the local state): all-zero leading digits, which a
 * real D1 id (a random UUID) or KV namespace id has with odds of 2^-32. Anything remote refuses them.
 */
const PLACEHOLDER_ID = /^0{8}/;

/** Throws one line naming the first binding whose id is a placeholder (or missing), before any remote operation. */
export function assertRealIds(config: DeployConfig): void {
  const ids: Array<[string, string, string]> = [
    ...[config.catalog, ...config.shards, config.events].map((d): [string, string, string] => [d.binding, d.id, `wrangler d1 create ${d.name}`]),
    [config.kv.binding, config.kv.id, `wrangler kv namespace create ${config.kv.binding}`],
  ];
  for (const [binding, id, create] of ids) {
    if (id === "" || PLACEHOLDER_ID.test(id.replace(/-/g, ""))) {
      throw new Error(
        `${config.where}: binding ${binding} has the placeholder id ${JSON.stringify(id)}: create it (\`${create}\`) and put its id there before anything remote`,
      );
    }
  }
}
