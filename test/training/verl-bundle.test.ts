/**
 * verl job bundles, checked without a GPU: the parquet files read back with
 * hyparquet, the SFT targets equal the lexical backend's, every override is
 * a key of the verl version keys.ts was checked against, the GRPO settings
 * are Table 6's, and every script passes `bash -n`.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { beforeAll, describe, expect, it } from "vitest";
import { itemKeywordSet } from "../../core/inverted-index.js";
import { parseKeywords } from "../../core/keyword-answer.js";
import { PROMPTS, queryPrompt } from "../../core/prompts.js";
import { freePort, waitFor } from "../../tools/processes.js";
import { loadWands } from "../../training/data/wands.js";
import { prepareData, sftQueryTargets } from "../../training/lexical-data.js";
import { loadEnvironment, trainingQueries } from "../../training/reward-service/environment.js";
import { FrozenIndex, queryRewardFn } from "../../training/rewards.js";
import { readRound, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import { SHIM_SOURCE, writeGrpoBundle, writeSftBundle } from "../../training/verl/bundle.js";
import { PPO_KEYS, SFT_KEYS } from "../../training/verl/keys.js";
import { effectiveBatch, grpoOverrides, parseOverrides, TABLE6 } from "../../training/verl/launch.js";
import { runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

const synth = writeSyntheticWands(150);
const root = mkdtempSync(join(tmpdir(), "cogr-verl-"));
const dataset = await loadWands(synth.dir);
const bytes = (path: string) => {
  const buf = readFileSync(path);
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
};
const read = (path: string) => parquetReadObjects({ file: bytes(path) });

beforeAll(() => {
  writeRound(buildRound0(dataset, { devQueries: 8 }), root);
});

describe("GRPO bundles", () => {
  it("hold verl's dataset layout, read back from parquet", async () => {
    const out = join(root, "jobs", "q0");
    writeGrpoBundle(dataset, readRound(0, root), "query", { out, model: "Qwen/Qwen3-1.7B", servedName: "q1", rayNodes: 2 });
    const rows = (await read(join(out, "data", "train.parquet"))) as Array<Record<string, unknown>>;
    const round = readRound(0, root);
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThanOrEqual(round.manifest.split.train.length);
    const first = rows[0] as {
      data_source: string;
      prompt: Array<{ role: string; content: string }>;
      ability: string;
      reward_model: { style: string; ground_truth: string };
      extra_info: { side: string; id: string; index: number; round: number };
    };
    const q = dataset.queries.find((x) => x.id === first.reward_model.ground_truth);
    expect(q).toBeDefined();
    expect(round.manifest.split.train).toContain(first.reward_model.ground_truth); // training queries only
    expect(first).toEqual({
      data_source: "cogr/query",
      prompt: [{ role: "user", content: queryPrompt(PROMPTS, q?.text ?? "") }],
      ability: "keyword-generation",
      reward_model: { style: "rule", ground_truth: q?.id },
      extra_info: { side: "query", round: 0, id: q?.id, index: 0 },
    });
    const val = (await read(join(out, "data", "val.parquet"))) as typeof rows;
    expect(val.length).toBe(Math.min(32, rows.length));
    const meta = parquetMetadata(bytes(join(out, "data", "train.parquet")));
    expect(meta.schema.map((s) => s.name)).toEqual(expect.arrayContaining(["prompt", "role", "content", "reward_model", "ground_truth", "extra_info"]));

    const items = join(root, "jobs", "i0");
    writeGrpoBundle(dataset, round, "item", { out: items, model: "Qwen/Qwen3-1.7B", servedName: "i1", rayNodes: 2 });
    const itemRows = (await read(join(items, "data", "train.parquet"))) as Array<{
      reward_model: { ground_truth: string };
      prompt: Array<{ content: string }>;
    }>;
    expect(itemRows.map((r) => r.reward_model.ground_truth)).toEqual(round.index.ids);
    const p = dataset.products.find((x) => x.id === round.index.ids[0]);
    expect(itemRows[0]?.prompt[0]?.content).toContain(`Product title: ${p?.name}`);
  });

  it("pass only known verl keys, with Table 6's values, in scripts bash accepts", () => {
    const out = join(root, "jobs", "q0");
    for (const script of ["run.sh", "run-ray.sh"]) {
      const text = readFileSync(join(out, script), "utf8");
      const overrides = parseOverrides(text);
      expect(overrides.length).toBeGreaterThan(40);
      for (const [k] of overrides) expect(PPO_KEYS.has(k), `${script}: ${k}`).toBe(true);
      expect(new Set(overrides.map(([k]) => k)).size).toBe(overrides.length);
    }
    const ray = readFileSync(join(out, "run-ray.sh"), "utf8");
    expect(ray).toContain("ray job submit");
    expect(Object.fromEntries(parseOverrides(ray))["trainer.nnodes"]).toBe("2");
    for (const f of readdirSync(out).filter((f) => f.endsWith(".sh"))) {
      const r = spawnSync("bash", ["-n", join(out, f)], { encoding: "utf8" });
      expect(r.status, `${f}: ${r.stderr}`).toBe(0);
    }
    // Table 6 exactly, where the training set is large enough for its batches.
    for (const side of ["query", "item"] as const) {
      const o = Object.fromEntries(grpoOverrides({ side, rows: 10_000, nnodes: 1, experiment: "x" }));
      const t = TABLE6[side];
      expect(o).toMatchObject({
        "algorithm.adv_estimator": "grpo",
        "data.train_batch_size": String(t.trainBatch),
        "actor_rollout_ref.actor.ppo_mini_batch_size": String(t.miniBatch),
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": String(t.microBatchPerGpu),
        "actor_rollout_ref.rollout.n": "8",
        "data.max_response_length": "512",
        "actor_rollout_ref.actor.use_kl_loss": "False",
        "algorithm.use_kl_in_reward": "False",
        "trainer.total_epochs": String(side === "query" ? 10 : 5),
        "trainer.n_gpus_per_node": "8",
        "actor_rollout_ref.rollout.name": "vllm",
        "actor_rollout_ref.rollout.temperature": "1",
        "actor_rollout_ref.rollout.top_p": "1",
        "actor_rollout_ref.rollout.top_k": "-1",
        "actor_rollout_ref.rollout.val_kwargs.temperature": "0.7",
        "actor_rollout_ref.rollout.val_kwargs.top_p": "0.8",
        "actor_rollout_ref.rollout.val_kwargs.top_k": "20",
        "reward_model.reward_manager": "batch",
        "custom_reward_function.name": "compute_score",
      });
      expect(Number(o["actor_rollout_ref.actor.optim.lr"])).toBe(1e-6);
    }
    // A small training set clamps the batch to what verl accepts: each GPU's share of batch × n splits into micro-batches.
    expect(effectiveBatch("query", 403, 1)).toEqual({ batch: 384, microBatchPerGpu: 64, clamped: true });
    for (const rows of [403, 100, 700, 22, 9]) {
      for (const nnodes of [1, 2]) {
        const { batch, microBatchPerGpu } = effectiveBatch("query", rows, nnodes);
        expect(batch).toBeGreaterThan(0);
        expect(batch).toBeLessThanOrEqual(Math.min(rows, 512));
        expect(((batch * 8) / (8 * nnodes)) % microBatchPerGpu).toBe(0);
      }
    }
  });
});

describe("the SFT bundle", () => {
  it("holds Alg. 1's targets exactly as the lexical backend builds them, and known SFT keys", async () => {
    const out = join(root, "jobs", "sft");
    writeSftBundle(dataset, readRound(0, root), { out, model: "Qwen/Qwen3-1.7B", servedName: "sft", rayNodes: 1 });
    const data = prepareData(dataset, readRound(0, root));
    const targets = sftQueryTargets(data, data.baseItemSets);
    const q = (await read(join(out, "data", "sft-query-train.parquet"))) as Array<{ prompt: string; response: string }>;
    expect(q).toHaveLength(data.train.length);
    q.forEach((row, j) => {
      expect(row.prompt).toBe(queryPrompt(PROMPTS, data.train[j]?.text ?? ""));
      expect(parseKeywords(row.response)).toEqual([...(targets[j] ?? [])]);
      expect(parseKeywords(row.response).length).toBeLessThanOrEqual(15);
    });
    const i = (await read(join(out, "data", "sft-item-train.parquet"))) as Array<{ prompt: string; response: string }>;
    expect(i.map((r) => JSON.parse(r.response))).toEqual(data.baseItemSets.map((s) => [...s]));
    expect(Math.max(...i.map((r) => JSON.parse(r.response).length))).toBeLessThanOrEqual(10);
    for (const side of ["query", "item"]) {
      const text = readFileSync(join(out, `run-sft-${side}.sh`), "utf8");
      expect(text).toContain("verl.trainer.fsdp_sft_trainer");
      for (const [k] of parseOverrides(text)) expect(SFT_KEYS.has(k), k).toBe(true);
      expect(spawnSync("bash", ["-n", join(out, `run-sft-${side}.sh`)]).status).toBe(0);
    }
  });
});

describe("a bundle's shim against npm run reward-service", () => {
  it("scores the service's sample row exactly as core does", async () => {
    const env = { ...process.env, COGR_DATA: synth.dir, COGR_ARTIFACTS: root, COGR_REWARD_TOKEN: "bundle-token" };
    const out = join(root, "jobs", "e2e-q0");
    expect(runScript("train.ts", ["--backend", "verl", "--side", "query", "--round", "0", "--out", out], env).status).toBe(0);
    const port = await freePort();
    const service = spawn(join("node_modules", ".bin", "tsx"), ["scripts/reward-service.ts", "--side", "query", "--round", "0", "--port", String(port)], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      await waitFor(service, /reward service \(query side, round 0/, 60_000);
      const check = spawnSync("python3", [join(out, "cogr_reward.py"), "--check"], {
        encoding: "utf8",
        env: { ...env, COGR_REWARD_URL: `http://127.0.0.1:${port}` },
      });
      expect(check.stderr).toBe("");
      const health = JSON.parse(/reward service: (.*)/.exec(check.stdout)?.[1] ?? "{}") as { sample: { solution_str: string; ground_truth: string } };
      const score = Number(/sample score: (.*)/.exec(check.stdout)?.[1]);
      const round = readRound(0, root);
      const environment = loadEnvironment(dataset, "query", 0, root);
      expect(score).toBe(environment.score({ data_source: "cogr/query", ...health.sample }, 0));
      // …and that is eq. 2.2 over the frozen item index, recomputed here from core.
      const train = trainingQueries(dataset, round.manifest.split, round.index.ids);
      const byId = new Map(round.items.map((i) => [i.id, i]));
      const fn = queryRewardFn(
        new FrozenIndex(round.index.ids.map((id) => itemKeywordSet({ name: byId.get(id)?.name ?? "", keywords: byId.get(id)?.keywords ?? [] }))),
        train.map((t) => ({ text: t.query.text, relevant: t.relevant })),
      );
      const q = train.findIndex((t) => t.query.id === health.sample.ground_truth);
      expect(score).toBe(fn(q, parseKeywords(health.sample.solution_str, Infinity)));
      expect(score).toBeGreaterThan(0);
    } finally {
      service.kill("SIGTERM");
    }
  }, 120_000);
});

describe("npm run train -- --backend verl", () => {
  it("writes a bundle, and refuses bad options in one line", () => {
    const env = { COGR_DATA: synth.dir, COGR_ARTIFACTS: root };
    const out = join(root, "jobs", "cli-q0");
    const ok = runScript("train.ts", ["--backend", "verl", "--side", "query", "--round", "0", "--out", out], env);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "bundle.json"), "utf8"))).toMatchObject({
      format: "cogr-verl-bundle",
      version: 1,
      kind: "grpo",
      side: "query",
      round: 0,
    });
    expect(readFileSync(join(out, "cogr_reward.py"), "utf8")).toBe(readFileSync(SHIM_SOURCE, "utf8"));
    const again = runScript("train.ts", ["--backend", "verl", "--side", "query", "--round", "0", "--out", out], env);
    expect(again.status).toBe(1);
    expect(again.stderr.split("\n")[0]).toMatch(/exists and is not empty/);
    const side = runScript("train.ts", ["--backend", "verl", "--side", "both", "--out", join(root, "x")], env);
    expect(side.status).toBe(1);
    expect(side.stderr.split("\n")[0]).toBe("error: --side must be query, item or sft");
  }, 120_000);
});
