/**
 * `npm run events:export` against real local D1 state the test builds (the
 * state `npm start` uses, migrated by wrangler, rows written through the
 * bindings): the line format, searches each followed by their feedback, the
 * drops it reports, --since, resuming a cut file, and the wrangler CLI path.
 */
import { mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { applyMigrations, localBindings } from "../../publish/node/targets.js";
import { runScriptAsync } from "../cli.js";

const state = mkdtempSync(join(tmpdir(), "cogr-events-state-"));
const out = mkdtempSync(join(tmpdir(), "cogr-events-out-"));
const T0 = Date.UTC(2026, 3, 1);
const SEARCHES = 57;

type D1 = { prepare(sql: string): { bind(...p: unknown[]): { run(): Promise<unknown> } } };

beforeAll(async () => {
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir: state });
  const proxy = await localBindings(config, state);
  try {
    const db = proxy.env[config.events.binding] as D1;
    for (let j = 0; j < SEARCHES; j++) {
      // Two searches share each millisecond, so the (at, request_id) keyset is exercised on ties.
      const at = T0 + Math.floor(j / 2) * 60_000;
      const shown = JSON.stringify([
        [`item-${j % 5}`, 1],
        [`item-${(j + 1) % 5}`, 2, "treatment"],
      ]);
      const query = j === 3 ? null : `oak desk ${j % 4}`;
      await db
        .prepare(
          `INSERT INTO searches (request_id, at, round, other_round, experiment_id, arm, user_key, query, latency_ms, total, zero_result, error, keyword_source, fallback, shown)
           VALUES (?, ?, 0, ?, ?, ?, ?, ?, 1, 2, 0, 0, 'policy', 0, ?)`,
        )
        .bind(`r-${String(j).padStart(3, "0")}`, at, j % 2 ? 1 : null, j % 2 ? "e1" : null, j % 2 ? "interleave" : null, `user${j % 7}`, query, shown)
        .run();
      if (j % 3 === 0) {
        await db
          .prepare("INSERT INTO feedback (request_id, item_id, type, at) VALUES (?, ?, 'click', ?)")
          .bind(`r-${String(j).padStart(3, "0")}`, `item-${j % 5}`, at + 5)
          .run();
        await db
          .prepare("INSERT INTO feedback (request_id, item_id, type, at) VALUES (?, ?, 'purchase', ?)")
          .bind(`r-${String(j).padStart(3, "0")}`, `item-${j % 5}`, at + 9)
          .run();
      }
      // Feedback on an item the search did not show: dropped and reported.
      if (j === 10)
        await db
          .prepare("INSERT INTO feedback (request_id, item_id, type, at) VALUES (?, 'item-x', 'click', ?)")
          .bind("r-010", at + 5)
          .run();
    }
  } finally {
    await proxy.dispose();
  }
});

const exportTo = (file: string, extra: string[] = []) => runScriptAsync("events-export.ts", ["--local", "--state", state, "--out", file, ...extra]);
const lastJson = (stderr: string) => JSON.parse(stderr.trim().split("\n").at(-1) as string);

describe("npm run events:export", () => {
  it("writes each search followed by its feedback, in (at, request_id) order, and reports what it dropped and why", async () => {
    const file = join(out, "all.jsonl");
    const r = await exportTo(file, ["--page", "10"]);
    expect(r.status).toBe(0);
    const lines = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const searches = lines.filter((l) => l.type === "search");
    expect(searches).toHaveLength(SEARCHES - 1);
    expect(searches.map((s) => s.requestId)).toEqual([...searches.map((s) => s.requestId)].sort());
    expect(searches[1]).toEqual({
      type: "search",
      requestId: "r-001",
      at: T0,
      userHash: "user1",
      query: "oak desk 1",
      round: 0,
      otherRound: 1,
      experimentId: "e1",
      arm: "interleave",
      shown: [
        { itemId: "item-1", position: 1 },
        { itemId: "item-2", position: 2, team: "treatment" },
      ],
    });
    expect(searches[0]).not.toHaveProperty("otherRound");
    // Feedback follows its search, with the search's user key hash.
    const first = lines.findIndex((l) => l.requestId === "r-006" && l.type === "search");
    expect(lines[first + 1]).toEqual({ type: "feedback", requestId: "r-006", itemId: "item-1", kind: "click", at: T0 + 3 * 60_000 + 5, userHash: "user6" });
    expect(lines[first + 2]).toMatchObject({ type: "feedback", kind: "purchase" });
    const report = lastJson(r.stderr);
    expect(report.written).toEqual({ searches: SEARCHES - 1, feedback: 2 * 19 - 2 });
    expect(report.dropped).toEqual({ "search-without-query-text": 1, "search-with-unreadable-shown": 0, "feedback-on-an-item-not-shown": 1 });
    expect(report.file.searches).toBe(SEARCHES - 1);
    expect(r.stderr).toMatch(/dropped at export: 1 search-without-query-text/);
  });

  it("--since keeps the searches at or after it", async () => {
    const file = join(out, "since.jsonl");
    const r = await exportTo(file, ["--since", new Date(T0 + 20 * 60_000).toISOString()]);
    expect(r.status).toBe(0);
    expect(lastJson(r.stderr).written.searches).toBe(SEARCHES - 40);
  });

  it("resumes a cut file: the result is the full export, and a re-run on a complete file changes nothing", async () => {
    const full = readFileSync(join(out, "all.jsonl"), "utf8");
    const file = join(out, "cut.jsonl");
    // Cut in the middle of a line, as a killed export leaves it.
    writeFileSync(file, full.slice(0, Math.floor(full.length * 0.6)));
    const r = await exportTo(file, ["--page", "7"]);
    expect(r.status).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(full);
    expect(lastJson(r.stderr).kept).toBeGreaterThan(0);
    const again = await exportTo(file);
    expect(again.status).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(full);
    truncateSync(file, 0);
    expect(statSync(file).size).toBe(0);
    expect((await exportTo(file)).status).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(full);
  });

  it("through the wrangler CLI (the --remote path, here against local state) writes the same file", async () => {
    const file = join(out, "wrangler.jsonl");
    const r = await exportTo(file, ["--via-wrangler", "--page", "40"]);
    expect(r.stderr.split("\n")[0]).not.toMatch(/^error/);
    expect(r.status).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(readFileSync(join(out, "all.jsonl"), "utf8"));
  });

  it("answers bad input with one line and a non-zero exit", async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [["--local", "--state", state], 1, /^error: --out FILE is required/],
      [["--out", join(out, "x.jsonl")], 1, /^error: --local or --remote is required/],
      [["--local", "--remote", "--out", join(out, "x.jsonl")], 1, /^error: choose one of --local and --remote/],
      [["--local", "--state", state, "--since", "yesterday", "--out", join(out, "x.jsonl")], 1, /^error: --since must be an ISO date/],
      [["--local", "--state", join(out, "nope"), "--out", join(out, "x.jsonl")], 2, /^error: no local state at .*nope/],
    ];
    for (const [args, status, message] of cases) {
      const r = await runScriptAsync("events-export.ts", args);
      expect(r.status).toBe(status);
      expect(r.stderr).toMatch(message);
    }
  });
});
