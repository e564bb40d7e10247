/**
 * The co-evolution orchestration (Alg. 2 across verl jobs) as a state
 * machine, with a fake runner: a failure at any step stops the run with the
 * step recorded, and a rerun resumes there, running every step exactly once
 * in the end. `--dry-run` prints the full plan.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadState, planCoevolve, runPlan, type Step, StepFailed } from "../../training/verl/coevolve.js";
import { runScript } from "../cli.js";

const options = { rounds: 2, fromRound: 0, baseModel: "Qwen/Qwen3-1.7B", runner: "fake-runner {script}", jobsDir: "jobs/t", queryPort: 8000, itemPort: 8001 };

describe("the co-evolution plan", () => {
  it("is SFT, then per iteration query then item: bundle, reward, run, merge, serve, index, evaluate", () => {
    const steps = planCoevolve(options);
    const ids = steps.map((s) => s.id);
    expect(ids.slice(0, 9)).toEqual([
      "sft/bundle",
      "sft/query/run",
      "sft/query/merge",
      "sft/item/run",
      "sft/item/merge",
      "sft/serve",
      "r1/index",
      "sft/stop",
      "r1/eval",
    ]);
    for (let i = 1; i <= 2; i++) {
      for (const side of ["query", "item"]) {
        for (const s of ["bundle", "reward-up", "run", "reward-down", "merge", "serve", "stop"]) expect(ids).toContain(`i${i}/${side}/${s}`);
      }
    }
    expect(ids.filter((id) => id.endsWith("/eval"))).toEqual(["r1/eval", "r2/eval", "r3/eval", "r4/eval", "r5/eval"]);
    expect(new Set(ids).size).toBe(ids.length);
    // Jobs go through the runner; the query phase keeps the items, the item phase trains against round 2's query index.
    const jobs = steps.filter((s) => s.kind === "job");
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.filter((s) => !s.command.startsWith("fake-runner jobs/t/"))).toEqual([]);
    expect(steps.find((s) => s.id === "r2/index")?.command).toMatch(/--keep-items .*--query-model cogr-query-1 --round 2 --from-round 1/);
    expect(steps.find((s) => s.id === "i1/item/bundle")?.command).toMatch(/--side item --round 2 .*--model jobs\/t\/models\/item-0/);
    expect(steps.find((s) => s.id === "i2/query/bundle")?.command).toMatch(/--side query --round 3 .*--model jobs\/t\/models\/query-1/);
  });

  it("resumes after a failure at every step, running each step once in the end", async () => {
    const steps = planCoevolve(options);
    for (let failAt = 0; failAt < steps.length; failAt++) {
      const dir = mkdtempSync(join(tmpdir(), "cogr-coevolve-"));
      const state = join(dir, "state.json");
      const ran: string[] = [];
      const exec = (s: Step) => {
        ran.push(s.id);
        return s.id === steps[failAt]?.id && ran.filter((x) => x === s.id).length === 1 ? 3 : 0;
      };
      await expect(runPlan(steps, state, exec)).rejects.toBeInstanceOf(StepFailed);
      expect(loadState(state, steps)).toMatchObject({ failed: { id: steps[failAt]?.id, exitCode: 3 }, done: steps.slice(0, failAt).map((s) => s.id) });
      const final = await runPlan(steps, state, exec);
      expect(final.done).toEqual(steps.map((s) => s.id));
      expect(final.failed).toBeNull();
      // Every step ran once, the failed one twice.
      expect(ran).toEqual([...steps.slice(0, failAt + 1).map((s) => s.id), ...steps.slice(failAt).map((s) => s.id)]);
      rmSync(dir, { recursive: true });
    }
  });

  it("refuses a state written for another plan", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-coevolve-"));
    const state = join(dir, "state.json");
    await runPlan(planCoevolve({ ...options, rounds: 1 }), state, () => 0);
    expect(existsSync(state)).toBe(true);
    expect(() => loadState(state, planCoevolve(options))).toThrow(/another plan/);
    expect(JSON.parse(readFileSync(state, "utf8")).format).toBe("cogr-coevolve-state");
  });

  it("prints the full plan with --dry-run", () => {
    const r = runScript("coevolve.ts", ["--backend", "verl", "--rounds", "5", "--dry-run", "--runner", "ray job submit --no-wait -- bash {script}"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const steps = planCoevolve({
      ...options,
      rounds: 5,
      runner: "ray job submit --no-wait -- bash {script}",
      jobsDir: "jobs/coevolve",
      baseModel: "Qwen/Qwen3-4B-Instruct-2507",
    });
    expect(r.stdout).toContain(`# ${steps.length} steps`);
    for (const s of steps) expect(r.stdout).toContain(s.command);
    expect(r.stdout).toContain("r11/eval");
    const bad = runScript("coevolve.ts", ["--backend", "verl", "--runner", "bash"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr.split("\n")[0]).toBe("error: --runner must hold {script}, where the job script goes");
  }, 60_000);
});
