/**
 * The generator client and batch generation against the local
 * OpenAI-compatible TEST server (not vLLM): decoding sent explicitly, each
 * failure mode classified, malformed answers retried and recorded, partial
 * batches, and a checkpoint that resumes without repeating finished tasks.
 */
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DECODING } from "../../core/prompts.js";
import { GeneratorError, KeywordClient } from "../../llm/client.js";
import { echoKeywords, startOpenAiTestServer, TEST_LLM_KEYWORDS, type TestLlmServer } from "../../tools/openai-test-server.js";
import { CheckpointError, generateBatch } from "../../training/llm/batch.js";

let llm: TestLlmServer;
beforeAll(async () => {
  llm = await startOpenAiTestServer();
});
afterAll(() => llm.close());

const client = (mode: string, timeoutMs = 2000, maxRetries = 0) =>
  new KeywordClient({ baseUrl: `${llm.url}/${mode}/v1`, model: "m", decoding: DECODING.indexing, timeoutMs, maxRetries });
const kindOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return "ok";
  } catch (e) {
    expect(e).toBeInstanceOf(GeneratorError);
    return (e as GeneratorError).kind;
  }
};

describe("KeywordClient", () => {
  it("sends Table 5's decoding explicitly and parses list and JSON answers", async () => {
    expect((await client("ok").generate("Query: chair")).keywords).toEqual(TEST_LLM_KEYWORDS);
    expect((await client("json").generate("Query: chair")).keywords).toEqual(TEST_LLM_KEYWORDS);
    const sent = ((await (await fetch(`${llm.url}/requests`)).json()) as Array<Record<string, unknown>>).at(-1);
    expect(sent).toMatchObject({
      model: "m",
      temperature: 0.7,
      top_p: 0.8,
      top_k: 20,
      min_p: 0,
      max_tokens: 512,
      messages: [{ role: "user", content: "Query: chair" }],
    });
    const rollout = new KeywordClient({ baseUrl: `${llm.url}/ok/v1`, model: "m", decoding: DECODING.rollout, timeoutMs: 2000, maxRetries: 0 });
    await rollout.generate("x");
    expect(((await (await fetch(`${llm.url}/requests`)).json()) as Array<Record<string, unknown>>).at(-1)).toMatchObject({
      temperature: 1,
      top_p: 1,
      top_k: -1,
    });
  });

  it("classifies every failure mode", async () => {
    expect(await kindOf(client("garbage").generate("x"))).toBe("malformed");
    expect(await kindOf(client("empty").generate("x"))).toBe("empty");
    expect(await kindOf(client("error").generate("x"))).toBe("server");
    expect(await kindOf(client("ratelimit").generate("x"))).toBe("rate-limited");
    expect(await kindOf(client("nowhere").generate("x"))).toBe("client"); // 404
    // The hanging endpoint never answers: "timeout" is the client's own deadline firing, no clock needed.
    expect(await kindOf(client("hang", 300).generate("x"))).toBe("timeout");
    const closed = new KeywordClient({ baseUrl: "http://127.0.0.1:9/v1", model: "m", decoding: DECODING.indexing, timeoutMs: 1000, maxRetries: 0 });
    expect(await kindOf(closed.generate("x"))).toBe("network");
  });

  it("retries 5xx with backoff (the flaky mode fails first, then answers)", async () => {
    expect((await client("flaky", 2000, 1).generate("Query: retried")).keywords).toEqual(TEST_LLM_KEYWORDS);
  });
});

describe("generateBatch", () => {
  const tasks = Array.from({ length: 40 }, (_, j) => ({ id: `t${j}`, prompt: `Product title: oak table ${j}` }));

  it("records malformed and failing answers after every attempt, never dropping a task", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-batch-"));
    const c = client("wobbly", 2000, 0);
    const run = await generateBatch(tasks, (p) => c.generate(p), {
      checkpoint: join(dir, "c.jsonl"),
      runKey: "w",
      concurrency: 1,
      attempts: 3,
      backoffBaseMs: 1,
    });
    expect(run.records.size).toBe(40);
    expect(run.failed).toBe(0); // answers 3k and 5k are bad, never three in a row: the third attempt succeeds
    for (const t of tasks) expect(run.records.get(t.id)?.keywords).toEqual(echoKeywords(t.prompt));
    expect([...run.records.values()].some((r) => r.attempts > 1)).toBe(true);
    const dead = await generateBatch(tasks.slice(0, 3), (p) => client("garbage").generate(p), {
      checkpoint: join(dir, "d.jsonl"),
      runKey: "g",
      attempts: 2,
      backoffBaseMs: 1,
    });
    expect(dead.failed).toBe(3);
    for (const r of dead.records.values()) expect(r).toMatchObject({ status: "failed", attempts: 2, kind: "malformed", keywords: [] });
  });

  it("resumes from its checkpoint: finished tasks are not asked again, failed ones are, a torn line is ignored", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-batch-"));
    const checkpoint = join(dir, "c.jsonl");
    let calls = 0;
    const c = client("echo");
    const gen = (p: string) => {
      calls++;
      if (calls > 15) throw new GeneratorError("server", "stopped"); // the endpoint dies mid-run
      return c.generate(p);
    };
    const first = await generateBatch(tasks, gen, { checkpoint, runKey: "r", concurrency: 1, attempts: 1 });
    expect(first.records.size).toBe(40);
    expect(first.failed).toBe(25);
    appendFileSync(checkpoint, '{"id":"t39","status":"ok","keyw'); // a kill mid-write
    calls = -1000;
    const asked: string[] = [];
    const second = await generateBatch(
      tasks,
      (p) => {
        asked.push(p);
        return c.generate(p);
      },
      { checkpoint, runKey: "r", concurrency: 3 },
    );
    expect(second.resumed).toBe(15);
    expect(second.failed).toBe(0);
    expect(asked).toHaveLength(25);
    expect(new Set(asked)).toEqual(new Set(tasks.slice(15).map((t) => t.prompt)));
    expect(readFileSync(checkpoint, "utf8").split("\n")[0]).toContain("cogr-generation-checkpoint");
    await expect(generateBatch(tasks, gen, { checkpoint, runKey: "another model" })).rejects.toBeInstanceOf(CheckpointError);
  });
});
