/**
 * Data-parallel training (`npm run train -- --workers N`, training/parallel/):
 * the item phase's GRPO as chunked map and ordered reduce over worker
 * threads gives the same rounds, checksum for checksum, with 1 and 2 workers;
 * the map and reduce are checked in-process against each other too.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decode } from "../../core/policy.js";
import type { Candidate } from "../../core/policy-candidates.js";
import { buildCandidates } from "../../core/policy-candidates.js";
import { FEATURE_COUNT, newParams } from "../../core/policy-features.js";
import { Rng } from "../../core/rng.js";
import { loadWands } from "../../training/data/wands.js";
import { itemCandidateInput, prepareData, queryIndexSets, querySideVocabulary } from "../../training/lexical-data.js";
import { ParallelCandidates } from "../../training/parallel/candidates.js";
import { chunkTasks, mapChunk, reduceChunks } from "../../training/parallel/grpo-map.js";
import { readRound, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import { runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

const ARGS = ["--backend", "lexical", "--rounds", "2", "--epochs-query", "2", "--epochs-item", "2", "--seed", "7"];

function candidates(item: number): Candidate[] {
  return Array.from({ length: 3 + (item % 4) }, (_, j) => {
    const features = new Array<number>(FEATURE_COUNT).fill(0);
    features[0] = 1;
    features[1 + ((item + j) % 5)] = 0.25 + j / 10;
    return { keyword: `k${(item * 7 + j) % 11}`, features };
  });
}

describe("data-parallel item phase", () => {
  it("reduces to the same gradient whatever the order the chunks' results arrive in", () => {
    const params = newParams(-0.5);
    const batch = [5, 2, 9, 0, 7, 3, 8, 1, 6, 4];
    const decisions = 8 * batch.reduce((s, i) => s + candidates(i).length, 0);
    const tasks = chunkTasks(batch, decisions, new Rng(3), 3);
    expect(tasks.map((t) => t.items.length)).toEqual([3, 3, 3, 1]);
    const reward = (i: number, k: readonly string[]) => (k.includes(`k${i % 11}`) ? 1 : 0) - k.length / 10;
    const results = tasks.map((t) => mapChunk(params, candidates, reward, t, 8));
    const inOrder = reduceChunks(results);
    const shuffled = reduceChunks([results[2], results[0], results[3], results[1]].filter((r) => r !== undefined));
    expect([...shuffled.grad.dense]).toEqual([...inOrder.grad.dense]);
    expect([...shuffled.grad.sparse]).toEqual([...inOrder.grad.sparse]);
    expect(inOrder.grad.dense.some((g) => g !== 0)).toBe(true);
    expect(inOrder.meanReward).toBe(shuffled.meanReward);
  });

  it("writes the same rounds with 1 and 2 worker threads", () => {
    const synth = writeSyntheticWands(150);
    const one = mkdtempSync(join(tmpdir(), "cogr-par-1-"));
    const two = mkdtempSync(join(tmpdir(), "cogr-par-2-"));
    const r1 = runScript("train.ts", [...ARGS, "--workers", "1"], { COGR_DATA: synth.dir, COGR_ARTIFACTS: one });
    expect(r1.stderr).toBe("");
    expect(r1.stdout).toMatch(/rounds 1, 2 written/);
    const r2 = runScript("train.ts", [...ARGS, "--workers", "2"], { COGR_DATA: synth.dir, COGR_ARTIFACTS: two });
    expect(r2.status).toBe(0);
    for (const round of [1, 2]) {
      const a = readRound(round, one).manifest;
      const b = readRound(round, two).manifest;
      expect(a.config).toHaveProperty("itemPhase", "map-reduce");
      expect(b.checksums).toEqual(a.checksums);
      expect(b.contentHash).toBe(a.contentHash);
    }
    // The item phases did learn: round 2's item keyword sets are not round 0's.
    const items0 = readRound(0, one).items.map((it) => it.keywords.join("|"));
    const items2 = readRound(2, one).items.map((it) => it.keywords.join("|"));
    expect(items2).not.toEqual(items0);
  });

  it("decodes item candidates on worker threads exactly as one thread does", () => {
    // No Phase 1 and frozen items: the decoding pass is all that runs on the workers, so every difference would be theirs.
    const synth = writeSyntheticWands(150);
    const args = ["--backend", "lexical", "--rounds", "1", "--epochs-query", "1", "--seed", "3", "--no-sft", "--freeze-items"];
    const serial = mkdtempSync(join(tmpdir(), "cogr-par-s-"));
    const threads = mkdtempSync(join(tmpdir(), "cogr-par-t-"));
    expect(runScript("train.ts", args, { COGR_DATA: synth.dir, COGR_ARTIFACTS: serial }).status).toBe(0);
    const r = runScript("train.ts", [...args, "--workers", "2"], { COGR_DATA: synth.dir, COGR_ARTIFACTS: threads });
    expect(r.stderr).toBe("");
    const a = readRound(1, join(serial, "ablations", "no-sft+freeze-items")).manifest;
    const b = readRound(1, join(threads, "ablations", "no-sft+freeze-items")).manifest;
    expect(Object.keys(b.checksums).length).toBeGreaterThanOrEqual(4);
    expect(b.checksums).toEqual(a.checksums);
  });

  it("trains on a sample of the items past --items-trained, the same rounds with 1 and 2 workers, and decodes every item", () => {
    // 150 items, steps over 60 of them: the sample is drawn per phase from the seed, each worker stores its shard's share.
    const synth = writeSyntheticWands(150);
    const [one, two, serial, all] = ["1", "2", "serial", "all"].map((n) => mkdtempSync(join(tmpdir(), `cogr-par-sample-${n}-`))) as [
      string,
      string,
      string,
      string,
    ];
    const sample = [...ARGS, "--items-trained", "60"];
    const run = (args: string[], root: string) => runScript("train.ts", args, { COGR_DATA: synth.dir, COGR_ARTIFACTS: root });
    expect(run([...sample, "--workers", "1"], one).stderr).toBe("");
    expect(run([...sample, "--workers", "2"], two).status).toBe(0);
    for (const round of [1, 2]) expect(readRound(round, two).manifest.contentHash).toBe(readRound(round, one).manifest.contentHash);
    // One thread, with and without the sample: the sample is what the steps saw.
    expect(run(sample, serial).stderr).toBe("");
    expect(run(ARGS, all).status).toBe(0);
    expect(readRound(2, serial).manifest.contentHash).not.toBe(readRound(2, all).manifest.contentHash);
    // Every item is decoded (not only the 60 trained on): the round indexes all 150, and more than 60 items changed.
    for (const root of [one, serial]) {
      const items0 = readRound(0, root).items;
      const items2 = readRound(2, root).items;
      expect(items2).toHaveLength(150);
      expect(items2.filter((it, j) => it.keywords.join("|") !== items0[j]?.keywords.join("|")).length).toBeGreaterThan(60);
    }
  });

  it("decodes in slices of each shard (as at 1M items) exactly as one thread decodes every item", async () => {
    const dataset = await loadWands(writeSyntheticWands(90).dir);
    const root = mkdtempSync(join(tmpdir(), "cogr-par-slice-"));
    writeRound(buildRound0(dataset, { devQueries: 4 }), root);
    const data = prepareData(dataset, readRound(0, root));
    const vocab = querySideVocabulary(
      data,
      queryIndexSets(
        data,
        data.baseItemSets.slice(0, data.train.length).map((s) => [...s]),
      ),
    );
    const params = newParams(0.5);
    const serial = data.items.map((_, j) => decode(params, buildCandidates(vocab, itemCandidateInput(data, j)), 30, -1));
    expect(serial.flat().length).toBeGreaterThan(90);
    const par = new ParallelCandidates(data, 2);
    try {
      // 90 items on 2 workers in slices of 7: 7 messages each, the last a short one.
      expect(par.decode(vocab, params, 30, -1, null, 7)).toEqual(serial);
      expect(par.decode(vocab, params, 30, -1, null, 1000)).toEqual(serial);
    } finally {
      par.close();
    }
  });

  it("refuses a worker count or a sample size below 1 in one line, before it builds or writes anything", () => {
    const data = writeSyntheticWands(40).dir;
    const root = mkdtempSync(join(tmpdir(), "cogr-par-refuse-"));
    const r = runScript("train.ts", ["--backend", "lexical", "--workers", "0"], { COGR_DATA: data, COGR_ARTIFACTS: root });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: --workers must be an integer ≥ 1/);
    const s = runScript("train.ts", ["--backend", "lexical", "--items-trained", "0"], { COGR_DATA: data, COGR_ARTIFACTS: root });
    expect(s.status).toBe(1);
    expect(s.stderr).toMatch(/^error: --items-trained must be an integer ≥ 1/);
    expect(readdirSync(root)).toEqual([]);
  });
});
