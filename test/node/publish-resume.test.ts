/** `npm run publish` killed for real (SIGKILL) after some batches, then run again: it resumes after the last committed batch. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { localTarget } from "../../publish/node/targets.js";
import { runScriptAsync } from "../cli.js";
import { cliWorkspace } from "../fixtures.js";

/**
 * The publish (test/support/publish-killed.ts: scripts/publish.ts's command with a kill injected), in a
 * process group of its own, SIGKILLed by that hook; then the
 * rest of its group (the local bindings' workerd, which outlives a killed
 * parent and would hold the state's SQLite locks), as a terminal's kill of the job does.
 */
function killedPublish(args: readonly string[], env: Record<string, string>): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(join("node_modules", ".bin", "tsx"), [join("test", "support", "publish-killed.ts"), ...args], {
      env: { ...process.env, ...env },
      detached: true,
      stdio: "ignore",
    });
    child.on("exit", (code, signal) => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // the group is gone already
      }
      resolve(code ?? (signal ? 137 : null));
    });
  });
}

describe("publish after a kill", () => {
  it("resumes after its last committed batch and completes the round", async () => {
    const { state, env } = cliWorkspace(300, "resume");
    expect((await runScriptAsync("build-round.ts", ["--round", "0", "--dev-queries", "5"], env)).status).toBe(0);

    expect(await killedPublish(["--round", "0", "--state", state], { ...env, COGR_TEST_KILL_AFTER: "2" })).not.toBe(0);
    const target = () => localTarget(readDeployConfig(), state);
    let t = await target();
    try {
      expect(await t.catalog.scalar("SELECT state FROM rounds WHERE round = 0")).toBe("publishing");
      expect(JSON.parse((await t.catalog.scalar("SELECT manifest FROM rounds WHERE round = 0")) as string)).toMatchObject({ batches: 2 });
    } finally {
      await t.dispose();
    }

    const resumed = await runScriptAsync("publish.ts", ["--round", "0", "--state", state], env);
    // The killed publish still held the publish lock; its process is gone, so the lock is taken over, and said so.
    expect(resumed.stderr).toMatch(/^took over the publish lock from \S+@\S+ pid \d+ \(since [0-9T:.-]+Z, expires [0-9T:.-]+Z\)\n$/);
    expect(resumed.stdout).toMatch(/round 0 published in full \(resumed after batch 2\)/);
    t = await target();
    try {
      expect(await t.catalog.scalar("SELECT state FROM rounds WHERE round = 0")).toBe("published");
      expect(Number(await t.catalog.scalar("SELECT COUNT(*) FROM items WHERE round = 0"))).toBe(300);
      for (const s of t.shards) {
        expect(Number(await s.scalar("SELECT COUNT(*) FROM postings WHERE round = 0"))).toBeGreaterThan(0);
        expect(Number(await s.scalar("SELECT COUNT(*) FROM postings p LEFT JOIN blocks b ON b.hash = p.hash WHERE b.hash IS NULL"))).toBe(0);
      }
    } finally {
      await t.dispose();
    }
    expect((await runScriptAsync("publish.ts", ["--round", "0", "--state", state], env)).stdout).toMatch(/round 0 was already published/);

    // Round 0 rebuilt with another split is other content: refused, or replaced with --replace (local state only).
    expect((await runScriptAsync("build-round.ts", ["--round", "0", "--dev-queries", "5", "--seed", "9"], env)).status).toBe(0);
    const refused = await runScriptAsync("publish.ts", ["--round", "0", "--state", state], env);
    expect([refused.status, refused.stderr.trim().split("\n").length]).toEqual([2, 1]);
    expect(refused.stderr).toMatch(/^error: round 0 is already published with other content/);
    expect((await runScriptAsync("publish.ts", ["--round", "0", "--state", state, "--replace"], env)).stdout).toMatch(/round 0 replaced and published in full/);
    const remote = await runScriptAsync("publish.ts", ["--round", "0", "--remote", "--replace"], env);
    expect([remote.status, remote.stderr.split("\n")[0]]).toEqual([
      1,
      "error: --replace is for local state only: on shared state a round's number names its content",
    ]);
  }, 400_000);
});
