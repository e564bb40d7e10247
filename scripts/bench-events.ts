/**
 * `npm run bench:events -- [--events 1000000] [--seed S] [--keep DIR]`: a
 * synthetic event log of about N events (searches and feedback,
 * scripts/bench/synth-events.ts: 20,000 queries over 200,000 items from
 * 100,000 users, and one bot) written into a fresh local D1 state, then
 * `npm run events:export` of all of it (paged, then read back through the
 * click model) and the derivation alone (`--supervision clicks` reads the
 * file the same way), each timed with its peak RSS (goal: 1M events in
 * bounded memory). A benchmark, not a test.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readDeployConfig } from "../publish/node/deploy-config.js";
import { applyMigrations, localBindings } from "../publish/node/targets.js";
import { type StepResult, step } from "./bench/scale-steps.js";
import { printTable } from "./bench/stats.js";
import { type SynthQuery, synthEvents } from "./bench/synth-events.js";
import { intOption, parseCli, runCli } from "./cli.js";

const USAGE = "npm run bench:events -- [--events 1000000] [--seed S] [--keep DIR]";
const BENCH = { queries: 20_000, items: 200_000, users: 100_000, relevantPerQuery: 8, botSearches: 5_000, insertBatch: 400 } as const;

type D1 = { prepare(sql: string): { bind(...p: unknown[]): { run(): Promise<unknown> } } };

runCli(async () => {
  const args = parseCli({ events: { type: "string" }, seed: { type: "string" }, keep: { type: "string" } }, USAGE);
  const target = intOption("events", args.events, 1_000_000, 1);
  const seed = intOption("seed", args.seed, 42);
  const work = args.keep ?? mkdtempSync(join(tmpdir(), "cogr-bench-events-"));
  try {
    await bench(work, target, seed);
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
});

function* syntheticLog(target: number, seed: number): Generator<string> {
  const items = Array.from({ length: BENCH.items }, (_, j) => `sku-${j}`);
  const queries: SynthQuery[] = Array.from({ length: BENCH.queries }, (_, q) => ({
    text: `query ${q}`,
    grades: new Map(
      Array.from({ length: BENCH.relevantPerQuery }, (_, r) => [`sku-${(q * 37 + r * 101) % BENCH.items}`, r < 3 ? "Exact" : "Partial"] as const),
    ),
  }));
  // About 1.25 lines a search (a quarter of the searches carry feedback): searches sized so the log reaches `target` lines.
  const searches = Math.max(1, Math.round(target / 1.25) - BENCH.botSearches);
  let n = 0;
  for (const line of synthEvents({
    queries,
    items,
    searches,
    users: BENCH.users,
    seed,
    bot: { query: "query 0", item: "sku-7", searches: BENCH.botSearches },
  })) {
    if (n++ >= target) return;
    yield line;
  }
}

/** Writes the log into the state's events database through the bindings, in json_each batches. */
async function load(state: string, target: number, seed: number): Promise<{ searches: number; feedback: number }> {
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir: state });
  const proxy = await localBindings(config, state);
  const db = proxy.env[config.events.binding] as D1;
  const counts = { searches: 0, feedback: 0 };
  let searches: unknown[] = [];
  let feedback: unknown[] = [];
  const flush = async () => {
    if (searches.length > 0)
      await db
        .prepare(
          `INSERT INTO searches (request_id, at, round, user_key, query, latency_ms, total, zero_result, error, keyword_source, fallback, shown)
           SELECT value ->> '$.requestId', value ->> '$.at', 0, value ->> '$.userHash', value ->> '$.query', 1, 10, 0, 0, 'policy', 0, value ->> '$.shown' FROM json_each(?1)`,
        )
        .bind(JSON.stringify(searches))
        .run();
    if (feedback.length > 0)
      await db
        .prepare(
          `INSERT OR IGNORE INTO feedback (request_id, item_id, type, at) SELECT value ->> '$.requestId', value ->> '$.itemId', value ->> '$.kind', value ->> '$.at' FROM json_each(?1)`,
        )
        .bind(JSON.stringify(feedback))
        .run();
    searches = [];
    feedback = [];
  };
  try {
    for (const line of syntheticLog(target, seed)) {
      const e = JSON.parse(line);
      if (e.type === "search") {
        counts.searches++;
        searches.push({ ...e, shown: JSON.stringify(e.shown.map((s: { itemId: string; position: number }) => [s.itemId, s.position])) });
      } else {
        counts.feedback++;
        feedback.push(e);
      }
      if (searches.length + feedback.length >= BENCH.insertBatch) await flush();
    }
    await flush();
  } finally {
    await proxy.dispose();
  }
  return counts;
}

/** The derivation alone in a child of its own (no wrangler loaded), with its peak RSS as scripts/cli.ts reports it. */
function derive(file: string): Promise<StepResult> {
  const t0 = performance.now();
  const r = spawnSync(join("node_modules", ".bin", "tsx"), [join("scripts", "bench", "derive-events.ts"), file], {
    encoding: "utf8",
    env: { ...process.env, COGR_REPORT_RSS: "1" },
  });
  if (r.status !== 0) throw new Error(`derivation exited ${r.status}: ${r.stderr.trim().split("\n").at(-1)}`);
  return Promise.resolve({
    seconds: (performance.now() - t0) / 1000,
    peakRssMb: Number(/peak-rss-kb (\d+)/.exec(r.stderr)?.[1]) / 1024,
    cpuSeconds: Number(/cpu-ms (\d+)/.exec(r.stderr)?.[1]) / 1000,
    out: r.stdout.trim(),
    err: r.stderr,
    code: r.status,
  });
}

async function bench(work: string, target: number, seed: number): Promise<void> {
  const state = join(work, "state");
  const t0 = performance.now();
  const loaded = await load(state, target, seed);
  console.log(`loaded ${loaded.searches} searches and ${loaded.feedback} feedback events into local D1 in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const file = join(work, "events.jsonl");
  const exp = await step("events:export", ["--local", "--state", state, "--out", file], {});
  const der = await derive(file);
  const events = loaded.searches + loaded.feedback;
  const row = (name: string, r: typeof exp) => ({
    step: name,
    events: events.toLocaleString("en"),
    "wall s": r.seconds.toFixed(1),
    "CPU s": r.cpuSeconds.toFixed(1),
    "peak RSS MB": r.peakRssMb.toFixed(0),
    "events/s": Math.round(events / r.seconds).toLocaleString("en"),
  });
  printTable([
    row("events:export (pages, then the file read back through the click model)", exp),
    row("derivation alone (what --supervision clicks reads)", der),
  ]);
  console.log(der.out);
  console.log(
    JSON.stringify({
      events,
      searches: loaded.searches,
      feedback: loaded.feedback,
      fileMb: Math.round(statSync(file).size / 2 ** 20),
      export: { seconds: Number(exp.seconds.toFixed(1)), cpuSeconds: Number(exp.cpuSeconds.toFixed(1)), peakRssMb: Math.round(exp.peakRssMb) },
      derive: { seconds: Number(der.seconds.toFixed(1)), cpuSeconds: Number(der.cpuSeconds.toFixed(1)), peakRssMb: Math.round(der.peakRssMb) },
    }),
  );
}
