/** Runs before each workerd test file: the file's isolated D1 databases get the migrations wrangler would apply. */
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { shardDatabases } from "../../workers/search/bindings.js";

await applyD1Migrations(env.CATALOG, env.TEST_MIGRATIONS.catalog);
for (const shard of shardDatabases(env)) await applyD1Migrations(shard, env.TEST_MIGRATIONS.shard);
if (env.EVENTS) await applyD1Migrations(env.EVENTS, env.TEST_MIGRATIONS.events);
