/**
 * `npm run train -- --supervision clicks --events FILE [--with-catalog]` on a
 * synthetic catalogue the test builds (no WANDS): rounds trained from derived
 * click relevance, recorded as such; and a bot that clicks one item
 * thousands of times leaves the trained round exactly as it was.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type SynthQuery, synthEvents } from "../../scripts/bench/synth-events.js";
import { loadWands } from "../../training/data/wands.js";
import { readRound } from "../../training/round-artifact.js";
import { CLICK_SUPERVISION } from "../../training/supervision/clicks.js";
import { runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

const ARGS = ["--backend", "lexical", "--rounds", "1", "--epochs-query", "2", "--epochs-item", "1", "--seed", "7"];

async function fixture() {
  const synth = writeSyntheticWands(150);
  const data = await loadWands(synth.dir);
  const grades = new Map<string, Map<string, "Exact" | "Partial">>();
  for (const line of readFileSync(join(synth.dir, "label.csv"), "utf8").split("\n").slice(1)) {
    const [, qid, pid, label] = line.split("\t");
    if (label !== "Exact" && label !== "Partial") continue;
    const text = data.queries.find((q) => q.id === qid)?.text as string;
    if (!grades.has(text)) grades.set(text, new Map());
    grades.get(text)?.set(pid as string, label);
  }
  const queries: SynthQuery[] = [...grades].map(([text, g]) => ({ text, grades: g }));
  return { synth, queries, items: data.products.map((p) => p.id) };
}

function writeEvents(file: string, lines: Iterable<string>): string {
  writeFileSync(file, `${[...lines].join("\n")}\n`);
  return file;
}

describe("--supervision clicks", async () => {
  const { synth, queries, items } = await fixture();
  const dir = mkdtempSync(join(tmpdir(), "cogr-clicks-"));
  const base = { queries, items, searches: 3000, users: 300, seed: 11 };
  const events = writeEvents(join(dir, "events.jsonl"), synthEvents(base));

  it("trains rounds from the derived relevance, records it, and keeps dev on the labelled split", () => {
    const art = mkdtempSync(join(tmpdir(), "cogr-clicks-art-"));
    const r = runScript("train.ts", [...ARGS, "--supervision", "clicks", "--events", events], { COGR_DATA: synth.dir, COGR_ARTIFACTS: art });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^supervision: clicks$/m);
    expect(r.stdout).toMatch(/^events: 3000 searches, \d+ clicks/m);
    expect(r.stdout).toMatch(/^examination propensity by position \(PBM, EM\): 1:1\.000 2:0\.\d+/m);
    const round = readRound(1, art);
    expect(round.manifest.config.supervision).toBe("clicks");
    const clicks = round.manifest.config.clicks as { train: number; heldOut: number; unknownWeight: number; devTexts: number };
    expect(clicks.train).toBeGreaterThan(10);
    expect(clicks.unknownWeight).toBe(CLICK_SUPERVISION.unknownWeight);
    // Dev queries typed by users are left out of training; dev stays the hand-labelled split.
    expect(clicks.devTexts).toBeGreaterThan(0);
    expect(clicks.heldOut).toBe(0);
    expect(round.manifest.metrics).toHaveProperty("dev.f1");
  });

  it("--with-catalog adds pseudo-queries, and without labels holds out click queries for the F1 it prints", () => {
    const noLabels = writeSyntheticWands(150).dir;
    rmSync(join(noLabels, "query.csv"));
    rmSync(join(noLabels, "label.csv"));
    const art = mkdtempSync(join(tmpdir(), "cogr-clicks-art-"));
    const r = runScript("train.ts", [...ARGS, "--supervision", "clicks", "--events", events, "--with-catalog"], { COGR_DATA: noLabels, COGR_ARTIFACTS: art });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const round = readRound(1, art);
    expect(round.manifest.config.supervision).toBe("clicks+catalog");
    expect((round.manifest.config.pseudoQueries as { train: number }).train).toBeGreaterThan(0);
    expect(round.manifest.metrics).toHaveProperty("heldOutClicks.f1");
    expect(round.manifest.metrics).not.toHaveProperty("dev");
  });

  it("a bot clicking one item thousands of times does not move it: the trained round is the same", () => {
    const bot = { query: queries[0]?.text as string, item: items.find((i) => !queries[0]?.grades.has(i)) as string, searches: 3000 };
    const botted = writeEvents(join(dir, "events-bot.jsonl"), synthEvents({ ...base, bot }));
    const train = (file: string) => {
      const art = mkdtempSync(join(tmpdir(), "cogr-clicks-art-"));
      const r = runScript("train.ts", [...ARGS, "--supervision", "clicks", "--events", file], { COGR_DATA: synth.dir, COGR_ARTIFACTS: art });
      expect(r.status).toBe(0);
      return { round: readRound(1, art), stdout: r.stdout };
    };
    const clean = train(events);
    const withBot = train(botted);
    expect(withBot.stdout).toMatch(/discounted: 1 keys for repeated-feedback \(3000 feedback events\)/);
    expect(withBot.round.manifest.checksums).toEqual(clean.round.manifest.checksums);
    expect(withBot.round.manifest.contentHash).toBe(clean.round.manifest.contentHash);
  });

  it("refuses --supervision clicks without --events, and --events without clicks, in one line", () => {
    const a = runScript("train.ts", [...ARGS, "--supervision", "clicks"], { COGR_DATA: synth.dir });
    expect(a.status).toBe(1);
    expect(a.stderr.split("\n")[0]).toMatch(/^error: --supervision clicks needs --events FILE/);
    const b = runScript("train.ts", [...ARGS, "--events", events], { COGR_DATA: synth.dir });
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/^error: --events, --with-catalog and --unknown go with --supervision clicks/);
    const c = runScript("train.ts", [...ARGS, "--supervision", "clicks", "--events", join(dir, "nope.jsonl")], { COGR_DATA: synth.dir });
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/^error: .*nope\.jsonl: no such event file/);
  });
});
