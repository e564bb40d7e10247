/**
 * The operator's path, run through the real CLIs: placeholder ids refused before anything remote,
 * a remote change that nobody can confirm refused, --dry-run printing the plan and writing nothing,
 * and the publish lock refusing a second publish (naming the first) until it is broken or stale.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { localTarget, pendingMigrations } from "../../publish/node/targets.js";
import { confirmRemote, NotConfirmed } from "../../scripts/publish/confirm.js";
import { runScript, runScriptAsync } from "../cli.js";
import { cliWorkspace } from "../fixtures.js";

const oneLine = (r: { status: number | null; stderr: string }) => [r.status, r.stderr.trim().split("\n").length];

/** wrangler.toml with real-looking ids (the KV namespaces' too, unless `kvPlaceholder`), in a folder of its own. */
function realIdsConfig(kvPlaceholder = false): string {
  let text = readFileSync("wrangler.toml", "utf8").replace(/database_id = "0{8}/g, 'database_id = "9a7f3c21');
  if (!kvPlaceholder) text = text.replace(/(?<!database_)id = "0{8}/g, 'id = "5e1d0b47');
  const path = join(mkdtempSync(join(tmpdir(), "cogr-ids-")), "wrangler.toml");
  writeFileSync(path, text);
  return path;
}

describe("placeholder ids", () => {
  it("are refused in one line naming the binding, before publish --remote, unpublish --remote or deploy touch anything", () => {
    const placeholder =
      /^error: wrangler\.toml: binding CATALOG has the placeholder id "00000000-0000-4000-8000-00000000c0a1": create it \(`wrangler d1 create cogr-catalog`\)/;
    for (const [script, args] of [
      ["publish.ts", ["--round", "0", "--remote", "--yes"]],
      ["unpublish.ts", ["--round", "0", "--remote", "--yes"]],
      ["deploy.ts", []],
    ] as const) {
      const r = runScript(script, args);
      expect(oneLine(r), script).toEqual([2, 1]);
      expect(r.stderr, script).toMatch(placeholder);
    }
    const production = runScript("publish.ts", ["--round", "0", "--remote", "--env", "production", "--yes"]);
    expect(production.stderr).toMatch(
      /^error: wrangler\.toml \[env\.production\]: binding CATALOG has the placeholder id "00000000-0000-4000-8000-00000002c0a1"/,
    );
    // Real D1 ids and a placeholder KV namespace: the KV binding is named.
    const kv = runScript("deploy.ts", ["--config", realIdsConfig(true)]);
    expect(oneLine(kv)).toEqual([2, 1]);
    expect(kv.stderr).toMatch(/binding CACHE has the placeholder id "00000000000040008000000000c0ffee": create it \(`wrangler kv namespace create CACHE`\)/);
  });
});

describe("a remote change", () => {
  it("without a terminal and without --yes is refused in one line, before anything remote is read", () => {
    const config = realIdsConfig();
    for (const [script, what] of [
      ["publish.ts", "apply the pending migrations and publish round 0 to Cloudflare"],
      ["unpublish.ts", "unpublish round 0 from Cloudflare"],
    ] as const) {
      const r = runScript(script, ["--round", "0", "--remote", "--config", config]);
      expect(oneLine(r), script).toEqual([1, 1]);
      expect(r.stderr.trim()).toBe(`error: ${what} needs a confirmation: run it in a terminal, or pass --yes (CI); --dry-run shows the plan`);
    }
  });

  it("asks on a terminal and goes ahead only on yes; --yes asks nothing", async () => {
    const asked: string[] = [];
    const io = (answer: string) => ({
      isTTY: true,
      ask: async (q: string) => {
        asked.push(q);
        return answer;
      },
    });
    await expect(confirmRemote("publish round 3 to Cloudflare", { yes: false }, io("y"))).resolves.toBeUndefined();
    await expect(confirmRemote("publish round 3 to Cloudflare", { yes: false }, io("YES "))).resolves.toBeUndefined();
    await expect(confirmRemote("publish round 3 to Cloudflare", { yes: false }, io(""))).rejects.toThrow(NotConfirmed);
    await expect(confirmRemote("publish round 3 to Cloudflare", { yes: false }, io("n"))).rejects.toThrow(/^nothing done: not confirmed$/);
    expect(asked).toEqual(new Array(4).fill("publish round 3 to Cloudflare? [y/N] "));
    await expect(confirmRemote("publish round 3 to Cloudflare", { yes: true }, io("n"))).resolves.toBeUndefined();
    await expect(confirmRemote("x", { yes: false }, { isTTY: false, ask: io("y").ask })).rejects.toThrow(/needs a confirmation/);
    expect(asked).toHaveLength(4);
  });
});

describe("publish --dry-run and the publish lock (local state)", () => {
  it("prints the plan and writes nothing; a second publish is refused naming the first until the lock is broken or stale", async () => {
    const { state, env } = cliWorkspace(60, "ops");
    expect(runScript("build-round.ts", ["--round", "0", "--dev-queries", "5"], env).status).toBe(0);
    const config = readDeployConfig();
    const everyMigration = async () => (await pendingMigrations(config, { mode: "local", stateDir: state })).map((p) => p.files.length);

    const dry = await runScriptAsync("publish.ts", ["--round", "0", "--state", state, "--dry-run"], env);
    expect(dry.stderr).toBe("");
    const lines = dry.stdout.trim().split("\n");
    expect(lines[0]).toBe(`dry run: publish round 0 to local state ${state}; nothing is written`);
    expect(lines).toContain(
      "  cogr-catalog: 0000_catalog.sql, 0001_experiments.sql, 0002_round_format_2.sql, 0003_labels.sql, 0004_publish_lock.sql, 0005_workbench.sql",
    );
    expect(lines).toContain("round 0 is written in full");
    expect(lines.filter((l) => /^ {2}cogr-(catalog|shard-\d): \d+ batches, \d+ statements, \d+ (item|directory) rows/.test(l))).toHaveLength(5);
    expect(lines.at(-1)).toMatch(/^ {2}KV CACHE: \d+ values; then the round's catalogue row turns published$/);
    // Nothing written: every database still has every migration pending (no table, no row).
    expect((await everyMigration()).filter((n) => n === 0)).toEqual([]);

    expect((await runScriptAsync("publish.ts", ["--round", "0", "--state", state], env)).status).toBe(0);
    const again = await runScriptAsync("publish.ts", ["--round", "0", "--state", state, "--dry-run"], env);
    expect(again.stdout.trim().split("\n").slice(1)).toEqual(["migrations: none pending", "round 0 is already published with this content: nothing to write"]);

    const setLock = async (sql: string) => {
      const t = await localTarget(config, state);
      try {
        await t.catalog.execute([sql]);
        return Number(await t.catalog.scalar("SELECT COUNT(*) FROM publish_lock"));
      } finally {
        await t.dispose();
      }
    };
    const lockRow = (owner: string, host: string, pid: number, expiresAt: string) =>
      `INSERT OR REPLACE INTO publish_lock (id, owner, token, host, pid, acquired_at, expires_at) VALUES (1, '${owner}', 'their-token', '${host}', ${pid}, '2026-01-01T00:00:00.000Z', '${expiresAt}')`;
    const later = new Date(Date.now() + 3_600_000).toISOString();

    // A publish running elsewhere, and one on this host whose process lives (this test's): both refused, by name.
    for (const [owner, host, pid] of [
      ["alice@build-1 pid 4242", "build-1", 4242],
      [`bob@${hostname()} pid ${process.pid}`, hostname(), process.pid],
    ] as const) {
      expect(await setLock(lockRow(owner, host, pid, later))).toBe(1);
      for (const script of ["publish.ts", "unpublish.ts"]) {
        const refused = await runScriptAsync(script, ["--round", "0", "--state", state], env);
        expect(oneLine(refused), script).toEqual([2, 1]);
        expect(refused.stderr.trim(), script).toBe(
          `error: another publish holds the lock: ${owner} (since 2026-01-01T00:00:00.000Z, expires ${later}); wait for it to finish, or if it died, run again with --break-lock`,
        );
      }
    }
    // --break-lock takes it, says from whom, and releases it at the end.
    const broken = await runScriptAsync("publish.ts", ["--round", "0", "--state", state, "--break-lock"], env);
    expect(broken.status).toBe(0);
    expect(broken.stderr).toMatch(/^took over the publish lock from bob@/);
    expect(broken.stdout).toMatch(/round 0 was already published/);
    expect(await setLock("SELECT 1")).toBe(0);
    // A lock past its expiry is stale: taken without --break-lock.
    expect(await setLock(lockRow("carol@build-2 pid 7", "build-2", 7, "2026-01-01T00:10:00.000Z"))).toBe(1);
    const stale = await runScriptAsync("publish.ts", ["--round", "0", "--state", state], env);
    expect([stale.status, stale.stderr]).toEqual([
      0,
      "took over the publish lock from carol@build-2 pid 7 (since 2026-01-01T00:00:00.000Z, expires 2026-01-01T00:10:00.000Z)\n",
    ]);
    expect(await setLock("SELECT 1")).toBe(0);
  }, 600_000);
});
