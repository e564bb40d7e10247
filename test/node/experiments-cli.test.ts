/**
 * The rollout loop on `npm start` over HTTP: two published rounds, an A/B
 * 90/10 experiment started with the CLI (its split visible in the admin
 * view's response headers), simulated traffic, ab-report, the offline gate,
 * promote and rollback; the token only from ADMIN_TOKEN.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../../tools/processes.js";
import { runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

describe("experiments through the CLI on npm start", () => {
  const synth = writeSyntheticWands(150);
  const artifacts = mkdtempSync(join(tmpdir(), "cogr-exp-art-"));
  const state = mkdtempSync(join(tmpdir(), "cogr-exp-state-"));
  const token = "cli-test-token-0123456789abcdef-42"; // npm start refuses one under 32 characters
  const env = { COGR_DATA: synth.dir, COGR_ARTIFACTS: artifacts, ADMIN_TOKEN: token };
  let child: ChildProcess;
  let url = "";
  const cli = (script: string, ...args: string[]) => runScript(script, [...args, "--url", url], env);
  /** fetch in the admin view (the X-CoGR-* headers), once more if the pooled keep-alive socket went stale while a CLI ran (undici: "other side closed"). */
  const search = (path: string, user: string) => {
    const headers = { "x-user-id": user, authorization: `Bearer ${token}` };
    return fetch(`${url}${path}`, { headers }).catch(() => fetch(`${url}${path}`, { headers }));
  };

  /** Round n: round 0's content under another number, its recorded dev F1 scaled by `f1Scale`. */
  const copyRound = (n: number, f1Scale: number) => {
    cpSync(join(artifacts, "rounds", "0"), join(artifacts, "rounds", String(n)), { recursive: true });
    const file = join(artifacts, "rounds", String(n), "manifest.json");
    const m = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...m, round: n, metrics: { ...m.metrics, dev: { ...m.metrics.dev, f1: m.metrics.dev.f1 * f1Scale } } }));
  };

  beforeAll(async () => {
    expect(runScript("build-round.ts", ["--round", "0", "--dev-queries", "8"], env).status).toBe(0);
    expect(runScript("publish.ts", ["--round", "0", "--state", state], env).status).toBe(0);
    copyRound(1, 1);
    const port = await freePort();
    child = spawn(join("node_modules", ".bin", "tsx"), ["scripts/start.ts", "--port", String(port), "--state", state], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    await waitFor(child, /is serving round 1 on http:\/\/127\.0\.0\.1:\d+/, 150_000);
    url = `http://127.0.0.1:${port}`;
  }, 200_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGINT");
  });

  it("starts an A/B 90/10 experiment whose split shows in the admin view's response headers", async () => {
    const started = cli("experiment.ts", "start", "--design", "ab", "--arm", "0=90", "--arm", "1=10", "--id", "cli-ab");
    expect(started.stderr).toBe("");
    expect(started.stdout).toMatch(/^started cli-ab: ab running; control round 0; arms 0=90% 1=10%/);
    // A change reaches the isolate within ROUND_CACHE_TTL_MS (5 s here).
    for (let j = 0; j < 40 && (await search("/v1/search?q=lamp", "probe")).headers.get("x-cogr-experiment") !== "cli-ab"; j++)
      await new Promise((r) => setTimeout(r, 250));
    const arms = { r0: 0, r1: 0 } as Record<string, number>;
    for (let u = 0; u < 300; u++) {
      const res = await search("/v1/search?q=wood%20chair", `cli-user-${u}`);
      await res.arrayBuffer();
      expect(res.headers.get("x-cogr-experiment")).toBe("cli-ab");
      const arm = res.headers.get("x-cogr-arm") as string;
      arms[arm] = (arms[arm] ?? 0) + 1;
    }
    // Binomial(300, 0.1): mean 30, sd 5.2; the salt is random, so the bounds sit over 3.4 sd out (both tails < 0.05 %).
    expect(arms.r1).toBeGreaterThan(11);
    expect(arms.r1).toBeLessThan(55);
  });

  it("simulates traffic and reports per arm, with the tests, SRM and a verdict", () => {
    const sim = cli("simulate-traffic.ts", "--users", "40", "--searches-per-user", "2", "--seed", "3");
    expect(sim.stderr).toBe("");
    expect(sim.stdout).toMatch(/^40 users: 80 searches, \d+ clicks, 0 failed/);
    const report = cli("ab-report.ts");
    expect(report.status).toBe(0);
    expect(report.stdout).toMatch(/experiment cli-ab \(ab, running\), control round 0/);
    expect(report.stdout).toMatch(/\| r0 +\| \d+/);
    expect(report.stdout).toMatch(/always-valid p/);
    expect(report.stdout).toMatch(/SRM: chi-square/);
    expect(report.stdout).toMatch(/verdict: /);
    const json = JSON.parse(cli("ab-report.ts", "--json").stdout) as { arms: Array<{ arm: string; searches: number; counted: { users: number } }> };
    expect(json.arms.map((a) => a.arm)).toEqual(["r0", "r1"]);
    expect(json.arms.reduce((s, a) => s + a.searches, 0)).toBeGreaterThanOrEqual(380);
    // Counted per network through wrangler dev: the 40 simulated users each search from a network of their own (CF-Connecting-IP),
    // while the 300 keys this test sent from 127.0.0.1 count as one network's 8 users.
    expect(json.arms.reduce((s, a) => s + a.counted.users, 0)).toBeCloseTo(48, 6);
  });

  it("ramps, then promotes: the winner serves everyone", async () => {
    expect(cli("experiment.ts", "ramp", "--arm", "0=50", "--arm", "1=50").stdout).toMatch(/^ramped cli-ab: .* 0=50% 1=50%/);
    expect(cli("experiment.ts", "ramp", "--arm", "0=60", "--arm", "1=40").stderr).toMatch(/^error: PATCH .*400 .*shrink/);
    expect(cli("experiment.ts", "resume").stderr).toMatch(/^error: POST .*\/resume.*409 .*resume applies to a paused experiment/);
    expect(cli("experiment.ts", "promote", "--round", "1").stdout).toMatch(/^promoted cli-ab: ab promoted \(winner round 1\)/);
    // The isolate keeps the serving configuration for ROUND_CACHE_TTL_MS (5 s in wrangler.toml): the change lands within it.
    let res = await search("/v1/search?q=lamp", "cli-user-1");
    for (let j = 0; j < 40 && res.headers.get("x-cogr-experiment") !== null; j++) {
      await new Promise((r) => setTimeout(r, 250));
      res = await search("/v1/search?q=lamp", "cli-user-1");
    }
    expect(res.headers.get("x-cogr-round")).toBe("1");
    expect(res.headers.get("x-cogr-experiment")).toBeNull();
  });

  it("gates on offline dev F1 unless --force, and rolls back to control", async () => {
    copyRound(2, 0.5);
    expect(runScript("publish.ts", ["--round", "2", "--state", state], env).status).toBe(0);
    // The isolate keeps its list of published rounds for ROUND_CACHE_TTL_MS (5 s): wait until round 2 is listed.
    const listed = async () => ((await (await fetch(`${url}/v1/rounds`)).json()) as { rounds: Array<{ round: number }> }).rounds.some((r) => r.round === 2);
    for (let j = 0; j < 60 && !(await listed()); j++) await new Promise((r) => setTimeout(r, 250));
    expect(await listed()).toBe(true);
    const gated = cli("experiment.ts", "start", "--design", "interleave", "--control", "1", "--treatment", "2");
    expect(gated.status).toBe(2);
    expect(gated.stderr).toMatch(/^error: offline gate: round 2's dev F1 [0-9.]+ is below control round 1's [0-9.]+; pass --force/);
    expect(cli("experiment.ts", "start", "--design", "interleave", "--control", "1", "--treatment", "2", "--force").stdout).toMatch(
      /^started exp-\d+: interleave running/,
    );
    expect(cli("experiment.ts", "rollback").stdout).toMatch(/^rolled back exp-\d+: interleave rolled_back/);
  });

  it("takes the token from the environment only", () => {
    const r = runScript("experiment.ts", ["status", "--url", url], { ...env, ADMIN_TOKEN: "" });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe("error: set ADMIN_TOKEN in the environment (the worker's secret; .dev.vars for npm start)");
    expect(runScript("experiment.ts", ["status", "--url", url, "--token", "x"], env).status).toBe(1);
  });
});
