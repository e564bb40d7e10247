/**
 * The LLM path end to end, against the local OpenAI-compatible TEST server
 * (not vLLM): `npm run index --generator vllm` killed mid-run and resumed,
 * `npm run eval` on the LLM round, `npm start` serving it with
 * keywordSource "llm", then the endpoint hanging: searches answer from the
 * fallback within the budget once the circuit opens, and /healthz says so.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAiTestServer, type TestLlmServer } from "../../tools/openai-test-server.js";
import { freePort, waitFor } from "../../tools/processes.js";
import { runEntryAsync, runScript, runScriptAsync } from "../cli.js";
import { cliWorkspace, writeSyntheticWands } from "../fixtures.js";

describe("an LLM round", () => {
  const synth = writeSyntheticWands(150);
  const artifacts = mkdtempSync(join(tmpdir(), "cogr-llm-art-"));
  const state = mkdtempSync(join(tmpdir(), "cogr-llm-state-"));
  const env = { COGR_DATA: synth.dir, COGR_ARTIFACTS: artifacts };
  let llm: TestLlmServer;
  let child: ChildProcess | null = null;
  const count = async () => ((await (await fetch(`${llm.url}/count`)).json()) as { count: number }).count;

  beforeAll(async () => {
    llm = await startOpenAiTestServer();
    expect(runScript("build-round.ts", ["--round", "0"], env).status).toBe(0);
  }, 120_000);

  afterAll(async () => {
    // SIGINT, not SIGKILL: npm start stops the wrangler dev group it started (a SIGKILL would leave it serving).
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child?.once("exit", r));
      child.kill("SIGINT");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    await llm.close();
  }, 30_000);

  it("is built by npm run index, resumes after a kill without repeating finished items, and records its model", async () => {
    const args = ["--generator", "vllm", "--base-url", `${llm.url}/echo/v1`, "--model", "item-model", "--query-model", "query-model", "--round", "1"];
    // npm run index with a real SIGKILL after 60 items (test/support/index-killed.ts)
    const killed = await runEntryAsync(join("test", "support", "index-killed.ts"), [...args, "--concurrency", "1"], { ...env, COGR_TEST_KILL_AFTER: "60" });
    expect([null, 137]).toContain(killed.status); // SIGKILL (tsx reports it as 137)
    expect(existsSync(join(artifacts, "rounds", "1", "manifest.json"))).toBe(false);
    const before = await count();
    const done = await runScriptAsync("index.ts", [...args, "--queries", "all"], env);
    expect(done.stderr).toBe("");
    expect(done.status).toBe(0);
    expect(done.stdout).toMatch(/150 items \(60 from the checkpoint, 0 kept round 0's keywords\)/);
    // 90 items and every distinct query were asked for, nothing twice.
    const queries = Number(/(\d+) queries precomputed/.exec(done.stdout)?.[1]);
    expect((await count()) - before).toBe(90 + queries);
    const manifest = JSON.parse(readFileSync(join(artifacts, "rounds", "1", "manifest.json"), "utf8"));
    expect(manifest.config).toMatchObject({ generator: "vllm", itemModel: "item-model", queryModel: "query-model" });
    const qgen = JSON.parse(readFileSync(join(artifacts, "rounds", "1", "query-generator.json"), "utf8"));
    expect(qgen).toMatchObject({ kind: "llm", model: "query-model", decoding: { temperature: 0.7, top_p: 0.8, top_k: 20, min_p: 0 } });
    expect(qgen.prompts.query).toContain("{query}");
    expect(qgen.policy.kind).toBe("extractor");
  }, 240_000);

  it("is evaluated by npm run eval from its precomputed query keywords", () => {
    const r = runScript("eval.ts", ["--method", "keywords", "--round", "1", "--json"], env);
    expect(r.stderr).toBe("");
    const m = JSON.parse(r.stdout) as { f1: number; queries: number; round: number };
    expect(m.round).toBe(1);
    expect(m.queries).toBeGreaterThan(0);
    expect(m.f1).toBeGreaterThan(0);
  }, 120_000);

  it("is served by npm start with keywordSource llm, and a hanging LLM is cut off by the circuit breaker", async () => {
    const port = await freePort();
    child = spawn(join("node_modules", ".bin", "tsx"), ["scripts/start.ts", "--port", String(port), "--state", state], {
      env: { ...process.env, ...env, LLM_BASE_URL: `${llm.url}/switch/v1`, LLM_TIMEOUT_MS: "600" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    await waitFor(child, /is serving round 1 on http:\/\/127\.0\.0\.1:\d+/, 150_000);
    const url = `http://127.0.0.1:${port}`;
    const search = async (q: string) => {
      const res = await fetch(`${url}/v1/search?q=${encodeURIComponent(q)}&limit=3`);
      return { status: res.status, body: (await res.json()) as { keywordSource: string; keywords: string[] } };
    };
    const ok = await search("walnut armchair one");
    expect(ok.status).toBe(200);
    expect(ok.body.keywordSource).toBe("llm");
    expect(ok.body.keywords).toContain("walnut armchair");
    expect(((await (await fetch(`${url}/healthz`)).json()) as { llm: { state: string } }).llm.state).toBe("ok");

    await fetch(`${llm.url}/switch?to=hang`);
    const slow = [];
    for (let j = 0; j < 3; j++) slow.push(await search(`hanging query ${j}`));
    expect(slow.map((s) => s.body.keywordSource)).toEqual(new Array(3).fill("policy"));
    const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string; llm: { state: string } };
    expect(health).toMatchObject({ status: "ok", llm: { state: "open" } });
    const asked = await count();
    const fast = [];
    for (let j = 0; j < 5; j++) fast.push(await search(`open circuit query ${j}`));
    expect(fast.map((s) => s.body.keywordSource)).toEqual(new Array(5).fill("policy"));
    // The open circuit does not call the endpoint, so no search waits on it (latency is a benchmark's figure, not a test's).
    expect(await count()).toBe(asked);
  }, 240_000);
});

describe("a rebuilt LLM round", () => {
  it("with another query model is other content: publish refuses it instead of reporting it already published", async () => {
    const { state, env } = cliWorkspace(60, "llm-hash");
    const llm = await startOpenAiTestServer();
    try {
      expect(runScript("build-round.ts", ["--round", "0"], env).status).toBe(0);
      const index = (queryModel: string) =>
        runScriptAsync(
          "index.ts",
          ["--generator", "vllm", "--base-url", `${llm.url}/echo/v1`, "--model", "m", "--query-model", queryModel, "--round", "1", "--queries", "none"],
          env,
        );
      expect((await index("query-a")).status).toBe(0);
      const first = runScript("publish.ts", ["--round", "1", "--state", state], env);
      expect(first.stdout).toMatch(/round 1 published/);
      expect((await index("query-a")).status).toBe(0); // identical content, rebuilt
      expect(runScript("publish.ts", ["--round", "1", "--state", state], env).stdout).toMatch(/round 1 was already published/);
      expect((await index("query-b")).status).toBe(0); // same items and index, another query model
      const other = runScript("publish.ts", ["--round", "1", "--state", state], env);
      expect(other.status).toBe(2);
      expect(other.stderr.split("\n")[0]).toBe("error: round 1 is already published with other content: unpublish it first (npm run unpublish -- --round 1)");
    } finally {
      await llm.close();
    }
  }, 240_000);
});
