/**
 * `npm run train` on the synthetic catalogue: rounds in the round format,
 * determinism for a seed, and resume after a kill.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadQueryGenerator } from "../../core/query-generator.js";
import { readRound } from "../../training/round-artifact.js";
import { runEntry, runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

const ARGS = ["--backend", "lexical", "--rounds", "2", "--epochs-query", "2", "--epochs-item", "1", "--seed", "7"];
const synth = writeSyntheticWands(150);

function checksums(root: string, round: number) {
  return readRound(round, root).manifest.checksums;
}

describe("npm run train (lexical, synthetic data)", () => {
  it("writes rounds that eval reads, deterministically for a seed", () => {
    const a = mkdtempSync(join(tmpdir(), "cogr-train-a-"));
    const b = mkdtempSync(join(tmpdir(), "cogr-train-b-"));
    const ra = runScript("train.ts", ARGS, { COGR_DATA: synth.dir, COGR_ARTIFACTS: a });
    expect(ra.stderr).toBe("");
    expect(ra.stdout).toMatch(/sft: dev F1/);
    expect(ra.stdout).toMatch(/rounds 1, 2 written/);
    expect(runScript("train.ts", ARGS, { COGR_DATA: synth.dir, COGR_ARTIFACTS: b }).status).toBe(0);
    expect(checksums(a, 2)).toEqual(checksums(b, 2));
    expect(checksums(a, 1)).toEqual(checksums(b, 1));

    const round = readRound(2, a);
    expect(round.queryGenerator.kind).toBe("lexical-policy");
    expect(round.manifest.metrics).toHaveProperty("dev.f1");
    const gen = loadQueryGenerator(round.queryGenerator, round.index);
    expect(gen?.("wood chair").length).toBeGreaterThan(0);
    const evald = runScript("eval.ts", ["--method", "keywords", "--round", "2", "--json"], { COGR_DATA: synth.dir, COGR_ARTIFACTS: a });
    expect(evald.status).toBe(0);
    expect(JSON.parse(evald.stdout).round).toBe(2);

    // A finished run, rerun, has nothing left to do.
    const again = runScript("train.ts", ARGS, { COGR_DATA: synth.dir, COGR_ARTIFACTS: a });
    expect(again.stdout).not.toMatch(/dev F1/);
    expect(checksums(a, 2)).toEqual(checksums(b, 2));
  });

  it("resumes a killed run from its last completed phase and ends where an uninterrupted run does", () => {
    const ref = mkdtempSync(join(tmpdir(), "cogr-train-ref-"));
    const killed = mkdtempSync(join(tmpdir(), "cogr-train-kill-"));
    // The killed runs' temporary files (products' text, candidate files) go to their own run folder under TMPDIR.
    const tmp = mkdtempSync(join(tmpdir(), "cogr-train-tmp-"));
    const ours = () => readdirSync(tmp).filter((f) => f.startsWith("cogr-")); // tsx keeps its own folder there too
    expect(runScript("train.ts", ARGS, { COGR_DATA: synth.dir, COGR_ARTIFACTS: ref }).status).toBe(0);
    const killing = join("test", "support", "train-killed.ts"); // npm run train with a real SIGKILL after a phase
    const dead = runEntry(killing, ARGS, { COGR_DATA: synth.dir, COGR_ARTIFACTS: killed, COGR_TEST_KILL_AFTER: "query-1", TMPDIR: tmp });
    expect([null, 137]).toContain(dead.status); // SIGKILL right after query-1 was checkpointed
    expect(dead.stdout).toMatch(/query-1: dev F1/);
    expect(dead.stdout).not.toMatch(/item-1: dev F1/);
    // SIGKILL runs no exit hook: the run's folder, with its products' text, is left behind.
    const left = ours();
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^cogr-run-[0-9]+@/);
    expect(readdirSync(join(tmp, left[0] as string)).some((f) => f.startsWith("cogr-products-"))).toBe(true);
    // Killed again after an item phase: the resumed run must start from that round's carried-over item sets.
    const again = runEntry(killing, ARGS, { COGR_DATA: synth.dir, COGR_ARTIFACTS: killed, COGR_TEST_KILL_AFTER: "item-1", TMPDIR: tmp });
    expect([null, 137]).toContain(again.status);
    expect(again.stdout).not.toMatch(/sft: dev F1|query-1: dev F1/);
    expect(again.stdout).toMatch(/item-1: dev F1/);
    // The next run removed the dead run's folder; it left its own.
    expect(ours()).toHaveLength(1);
    expect(ours()).not.toContain(left[0]);
    const resumed = runScript("train.ts", ARGS, { COGR_DATA: synth.dir, COGR_ARTIFACTS: killed, TMPDIR: tmp });
    expect(resumed.status).toBe(0);
    expect(ours()).toEqual([]); // its own removed at exit, the dead one's before it began
    rmSync(tmp, { recursive: true, force: true });
    expect(resumed.stdout).not.toMatch(/sft: dev F1|query-1: dev F1|item-1: dev F1/);
    expect(resumed.stdout).toMatch(/query-2: dev F1/);
    expect(checksums(killed, 2)).toEqual(checksums(ref, 2));
  });

  it("rejects bad options with one line", () => {
    for (const args of [
      ["--backend", "gpu"],
      ["--item-reward", "magic"],
      ["--rounds", "0"],
    ]) {
      const r = runScript("train.ts", args, { COGR_DATA: synth.dir });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^error: /);
    }
  });
});
