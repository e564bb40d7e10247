/**
 * The verl reward path for real: the reward service (Hono on Node) over a
 * round of the synthetic catalogue, called by the Python shim with python3
 * in verl's per-sample and batch forms; scores equal core's rewards on
 * random answers. The shim's parser equals core's on the same cases.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itemKeywordSet } from "../../core/inverted-index.js";
import { parseKeywords } from "../../core/keyword-answer.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { loadQueryGenerator } from "../../core/query-generator.js";
import { ItemRewardContext } from "../../core/reward.js";
import { loadWands } from "../../training/data/wands.js";
import { rewardApp } from "../../training/reward-service/app.js";
import { loadEnvironment, trainingQueries } from "../../training/reward-service/environment.js";
import { FrozenIndex, queryRewardFn } from "../../training/rewards.js";
import { readRound, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import { SHIM_SOURCE } from "../../training/verl/bundle.js";
import { writeSyntheticWands } from "../fixtures.js";

const TOKEN = "test-reward-token";
const python = (args: string[], input: string, env: Record<string, string> = {}) =>
  spawnSync("python3", [SHIM_SOURCE, ...args], { input, encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 });

/** python3 without blocking the event loop (the reward services run in this process). */
function pyAsync(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("python3", args, { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs python code that imports the shim. */
const pyEval = (code: string, env: Record<string, string>) =>
  pyAsync(["-c", `import sys, json; sys.path.insert(0, ${JSON.stringify(join(SHIM_SOURCE, ".."))}); import cogr_reward as c\n${code}`], env);

const CASES = [
  "1. Accent Chair\n- arm-chair\n* accent chair, club chair",
  '["Sofa", 3, "sofa bed", null, ["x"]]',
  "  ,, ;; !!",
  "[NaN]",
  "[1, 2",
  '  ["a"]  trailing',
  "\ufeff\u0130stanbul ; Straße ; ＦＵＬＬ　ＷＩＤＴＨ",
  "2) bed frame\n3. nightstand\n10) rug",
  "-no space bullet\n•  bullet dot",
  "x".repeat(101),
  Array.from({ length: 50 }, (_, j) => `k${j}`).join(","),
  "\u00a0\u2003 tab\tseparated\u3000words \u200b zero width",
  "Here are the keywords: modern, gray; sofa\n\n",
  "\"quoted\", 'single'",
];

describe("the Python shim's parser", () => {
  it("equals core's parser on curated and random answers", () => {
    const random = fc.sample(
      fc.oneof(
        fc.string({ unit: "grapheme", maxLength: 60 }),
        fc
          .array(fc.oneof(fc.string({ unit: "grapheme-ascii", maxLength: 12 }), fc.constantFrom(",", "\n", ";", "- ", "1. ", " ")), { maxLength: 12 })
          .map((a) => a.join("")),
        fc.array(fc.string({ unit: "grapheme-ascii", maxLength: 10 }), { maxLength: 8 }).map((a) => JSON.stringify(a)),
      ),
      { numRuns: 400, seed: 11 },
    );
    // Characters newer than python3's Unicode database (unicodedata.unidata_version) are unassigned there, so they
    // normalise differently: the documented limit of the shim. Keep the cases both runtimes classify alike.
    const known = spawnSync(
      "python3",
      ["-c", "import sys, json, unicodedata as u\nfor l in sys.stdin: print(json.dumps(all(u.category(ch) != 'Cn' for ch in json.loads(l))))"],
      {
        input: random.map((c) => JSON.stringify(c)).join("\n"),
        encoding: "utf8",
      },
    )
      .stdout.trim()
      .split("\n");
    const cases = [...CASES, ...random.filter((c, j) => known[j] === "true" || /\p{Cn}/u.test(c))];
    expect(cases.length).toBeGreaterThan(CASES.length + 300);
    const r = python(["--parse"], cases.map((c) => JSON.stringify(c)).join("\n"));
    expect(r.stderr).toBe("");
    const got = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as string[]);
    // Lines that are blank after JSON decoding are skipped by --parse; keep the cases aligned the same way.
    const kept = cases.filter((c) => JSON.stringify(c).trim() !== "");
    expect(got).toHaveLength(kept.length);
    for (const [j, c] of kept.entries()) expect(got[j], JSON.stringify(c)).toEqual(parseKeywords(c));
  });
});

const shimSynth = writeSyntheticWands(150);
const shimDataset = await loadWands(shimSynth.dir);

describe("the reward service with the Python shim", () => {
  const root = mkdtempSync(join(tmpdir(), "cogr-reward-"));
  const dataset = shimDataset;
  let servers: ServerType[] = [];
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    writeRound(buildRound0(dataset, { devQueries: 8 }), root);
    for (const side of ["query", "item"] as const) {
      const app = rewardApp(loadEnvironment(dataset, side, 0, root), TOKEN);
      await new Promise<void>((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
          urls[side] = `http://127.0.0.1:${info.port}`;
          resolve();
        });
        servers.push(s);
      });
    }
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    servers = [];
  });

  it("scores query answers (eq. 2.2) and item answers (eq. 2.3) exactly as core does, per sample and in batch", async () => {
    const round = readRound(0, root);
    const ids = round.index.ids;
    const train = trainingQueries(dataset, round.manifest.split, ids);
    const byId = new Map(round.items.map((i) => [i.id, i]));
    const itemSets = ids.map((id) => itemKeywordSet({ name: byId.get(id)?.name ?? "", keywords: byId.get(id)?.keywords ?? [] }));
    const qFn = queryRewardFn(
      new FrozenIndex(itemSets),
      train.map((t) => ({ text: t.query.text, relevant: t.relevant })),
    );
    const generate = loadQueryGenerator(round.queryGenerator, round.index) ?? (() => []);
    const ctx = new ItemRewardContext({
      itemSets,
      itemNames: ids.map((id) => normalizeKeyword(byId.get(id)?.name ?? "")),
      querySets: train.map((t) => [...new Set([...generate(t.query.text), normalizeKeyword(t.query.text)])].filter((k) => k !== "")),
      relevant: train.map((t) => t.relevant),
    });
    const vocab = [...new Set(itemSets.flat())];
    const answers = fc.sample(
      fc.array(fc.constantFrom(...vocab, "no such keyword", "Wood CHAIR!"), { minLength: 0, maxLength: 34 }).map((a) => JSON.stringify(a)),
      { numRuns: 60, seed: 5 },
    );
    answers.push(JSON.stringify(Array.from({ length: 40 }, (_, j) => `kw ${j}`))); // over K_max: 0 and −1
    const qSamples = answers.map((random, j) => {
      const t = train[j % train.length] as (typeof train)[number];
      // Every other answer draws on the keywords of the query's relevant items, so that some retrieve them.
      const own = [...t.relevant].flatMap((o) => [...(itemSets[o] ?? [])]).slice(0, 5 + (j % 7));
      const a = j % 2 === 0 ? JSON.stringify(own) : random;
      return {
        data_source: "cogr/query",
        solution_str: a,
        ground_truth: t.query.id,
        extra_info: { index: j % train.length },
        expected: qFn(j % train.length, parseKeywords(a, Infinity)),
      };
    });
    const iSamples = answers.map((a, j) => ({
      data_source: "cogr/item",
      solution_str: a,
      ground_truth: ids[j % ids.length] as string,
      extra_info: { index: j % ids.length },
      expected: ctx.reward(j % ids.length, parseKeywords(a, Infinity)),
    }));
    expect(qSamples.some((s) => s.expected > 0)).toBe(true);
    expect(iSamples.some((s) => s.expected !== 0)).toBe(true);
    expect(iSamples.some((s) => s.expected === -1)).toBe(true); // over K_max
    for (const [side, samples] of [
      ["query", qSamples],
      ["item", iSamples],
    ] as const) {
      const env = { COGR_REWARD_URL: urls[side] as string, COGR_REWARD_TOKEN: TOKEN };
      const payload = JSON.stringify(samples.map(({ expected: _e, ...s }) => s));
      const batch = await pyEval(
        `s = json.loads(${JSON.stringify(payload)})\nprint(json.dumps(c.compute_score(data_sources=[x["data_source"] for x in s], solution_strs=[x["solution_str"] for x in s], ground_truths=[x["ground_truth"] for x in s], extra_infos=[x["extra_info"] for x in s])))`,
        env,
      );
      expect(batch.stderr).toBe("");
      expect(JSON.parse(batch.stdout)).toEqual(samples.map((s) => s.expected));
      const single = await pyEval(
        `s = json.loads(${JSON.stringify(payload)})\nprint(json.dumps([c.compute_score(data_source=x["data_source"], solution_str=x["solution_str"], ground_truth=x["ground_truth"], extra_info=x["extra_info"]) for x in s[:10]]))`,
        env,
      );
      expect(single.stderr).toBe("");
      expect(JSON.parse(single.stdout)).toEqual(samples.slice(0, 10).map((s) => s.expected));
    }
  }, 120_000);

  it("refuses bad tokens, malformed bodies and unknown rows with problem+json, and the shim says so in one message", async () => {
    const post = (body: unknown, token = TOKEN) =>
      fetch(`${urls.query}/v1/score`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const unauthorized = await post({ samples: [] }, "wrong");
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("content-type")).toBe("application/problem+json");
    for (const body of [{}, { samples: [] }, { samples: [{ data_source: "cogr/query" }] }]) expect((await post(body)).status).toBe(400);
    const unknown = await post({ samples: [{ data_source: "cogr/query", solution_str: "[]", ground_truth: "nope" }] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { detail: string }).detail).toMatch(/not a training query/);
    const wrongSide = await post({ samples: [{ data_source: "cogr/item", solution_str: "[]", ground_truth: "x" }] });
    expect(wrongSide.status).toBe(400);
    const tooMany = await post({ samples: Array.from({ length: 8193 }, () => ({ data_source: "cogr/query", solution_str: "", ground_truth: "x" })) });
    expect(tooMany.status).toBe(413);
    expect((await fetch(`${urls.query}/nowhere`)).status).toBe(404);
    const health = (await (await fetch(`${urls.item}/healthz`)).json()) as { side: string; round: number };
    expect(health).toMatchObject({ status: "ok", side: "item", round: 0 });

    const refused = await pyAsync([SHIM_SOURCE, "--check"], { COGR_REWARD_URL: urls.query as string, COGR_REWARD_TOKEN: "wrong" });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/refused the request \(401\)/);
    const down = await pyEval('c.compute_score(data_source="cogr/query", solution_str="[]", ground_truth="1")', {
      COGR_REWARD_URL: "http://127.0.0.1:9",
      COGR_REWARD_RETRIES: "2",
      COGR_REWARD_TIMEOUT_S: "2",
    });
    expect(down.status).not.toBe(0);
    expect(down.stderr).toMatch(/RewardServiceError: cogr reward service at http:\/\/127\.0\.0\.1:9 is unavailable after 2 attempts/);
  }, 60_000);
});
