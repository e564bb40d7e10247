/**
 * `npm run simulate-loop` end to end on a catalogue the test builds: a worker
 * of its own, shoppers and a spam bot on round 0, events exported, a round
 * trained from the clicks, interleaved against round 0 and decided, dev F1
 * measured; the last line one JSON object.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../../tools/processes.js";
import { runScriptAsync } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

describe("simulate-loop", () => {
  it("runs the whole loop and ends with one JSON line naming the click-trained round", async () => {
    const synth = writeSyntheticWands(160);
    const artifacts = mkdtempSync(join(tmpdir(), "cogr-loop-art-"));
    const env = { COGR_DATA: synth.dir, COGR_ARTIFACTS: artifacts };
    const port = await freePort();
    const r = await runScriptAsync(
      "simulate-loop.ts",
      ["--searches", "300", "--seed", "3", "--max-verdict-users", "200", "--bot-searches", "150", "--port", String(port), "--json"],
      env,
    );
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1); // --json: progress goes to stderr, the one line to stdout
    const result = JSON.parse(lines[0] as string);
    expect(result.round).toBe(1);
    expect(result.searches).toBeGreaterThan(250);
    expect(result.bot.clicks).toBeGreaterThan(20);
    // The export's report names the bot's key among those discounted (it clicked one item over and over).
    const discounted = Object.values(result.export.file.discounted) as Array<{ keys: number }>;
    expect(discounted.reduce((n, d) => n + d.keys, 0)).toBeGreaterThanOrEqual(1);
    expect(["treatment better", "treatment worse", "no detectable difference yet"]).toContain(result.verdict);
    expect(result.interleaving.users).toBeGreaterThan(0);
    for (const k of ["clicks", "round0", "bm25", "labels"]) {
      expect(result.dev[k]).toBeGreaterThanOrEqual(0);
      expect(result.dev[k]).toBeLessThanOrEqual(1);
    }
    const manifest = JSON.parse(readFileSync(join(artifacts, "rounds", "1", "manifest.json"), "utf8"));
    expect(manifest.config.supervision).toBe("clicks");
    expect(existsSync(join(artifacts, "loop", "curve.jsonl"))).toBe(true);
  }, 400_000);
});
