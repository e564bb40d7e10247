/** Migrations are applied only where pending, so `npm start` on a published state and a no-op publish stay fast. */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { applyMigrations, localTarget, pendingMigrations } from "../../publish/node/targets.js";

describe("applyMigrations (local)", () => {
  it("applies every database's migrations to fresh state, then none, and only the database that lost them", async () => {
    const config = readDeployConfig();
    const state = mkdtempSync(join(tmpdir(), "cogr-migrations-"));
    const every = [config.catalog, ...config.shards, config.events].map((d) => d.name);
    expect((await applyMigrations(config, { mode: "local", stateDir: state })).applied).toEqual(every);
    const t0 = performance.now();
    expect((await applyMigrations(config, { mode: "local", stateDir: state })).applied).toEqual([]);
    const noOpMs = performance.now() - t0;
    // One database forgets a migration: only it is applied again (its tables first, as a fresh one would lack them).
    const target = await localTarget(config, state);
    try {
      await target.shards[1]?.execute(["DROP TABLE postings", "DROP TABLE blocks", "DELETE FROM d1_migrations"]);
    } finally {
      await target.dispose();
    }
    // What --remote reads: `wrangler d1 migrations list` (here against the local state), parsed: shard 1's files, no one else's.
    const listed = await pendingMigrations(config, { mode: "local", stateDir: state, viaWrangler: true });
    expect(listed.map((p) => [p.db.name, p.files.length > 0])).toEqual(every.map((name) => [name, name === config.shards[1]?.name]));
    expect(listed[2]?.files).toEqual(
      readdirSync("migrations/shard")
        .filter((f) => f.endsWith(".sql"))
        .sort(),
    );
    expect((await applyMigrations(config, { mode: "local", stateDir: state }, listed)).applied).toEqual([config.shards[1]?.name]);
    expect((await applyMigrations(config, { mode: "local", stateDir: state })).applied).toEqual([]);
    console.log(`no-op migration check: ${noOpMs.toFixed(0)} ms`);
  }, 240_000);
});
