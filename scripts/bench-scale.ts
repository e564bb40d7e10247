/**
 * `npm run bench:scale -- --items N [--seed S] [--keep DIR]`: the pipeline at
 * catalogue size N on a synthetic WANDS-format catalogue (npm run synth):
 * synth, build-round, eval and publish (time, peak RSS), the artifact's size,
 * D1 rows per shard and the largest rows, an incremental publish of a round
 * that changes 1 % of the items, the common queries' ranking in-process
 * (block-max top-k against the exhaustive reference, scripts/bench/topk-scale.ts),
 * and search latency through `wrangler dev`
 * for common and rare queries (cold and warm; plain, with facets=class, and
 * with a filter too; one client and 16: scripts/bench/scale-search.ts) against /healthz, with the
 * workerd process's memory read from /proc; with --equal N, the worker's
 * answers to N queries against the trainer's (scripts/bench/equality.ts).
 * A benchmark, not a test.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readDeployConfig } from "../publish/node/deploy-config.js";
import { applyMigrations, localTarget } from "../publish/node/targets.js";
import { dataDir } from "../training/data/dataset.js";
import { loadQueries, WANDS_FILES } from "../training/data/wands.js";
import { compareWithWorker } from "./bench/equality.js";
import { healthBaselines, measureQueries, SEARCH_BENCH } from "./bench/scale-search.js";
import { deriveRound, postingFigures, step, storageFigures } from "./bench/scale-steps.js";
import { printTable } from "./bench/stats.js";
import { rankingFigures } from "./bench/topk-scale.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";
import { startDevServer } from "./dev-server.js";
import { assertPortFree } from "./port.js";

const USAGE = "npm run bench:scale -- --items N [--seed S] [--keep DIR [--search-only]] [--equal N]";
const BENCH = { port: 8795, rareQueries: 20, changedShare: 0.01 } as const;
const COMMON = ["chair", "wall", "gray sofa", "wood table", "bed"] as const;

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const duBytes = (dir: string) => Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0]);

/** RSS and peak RSS (MB) of the workerd processes in the dev server's process group. */
function workerdMemory(pgid: number): { rssMb: number; peakMb: number } {
  const pids = execFileSync("ps", ["-o", "pid=,comm=", "-g", String(pgid)], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes("workerd"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
  let rss = 0;
  let peak = 0;
  for (const pid of pids) {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    peak += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return { rssMb: rss / 1024, peakMb: peak / 1024 };
}

runCli(async () => {
  const args = parseCli(
    { items: { type: "string" }, seed: { type: "string" }, keep: { type: "string" }, "search-only": { type: "boolean" }, equal: { type: "string" } },
    USAGE,
  );
  if (args["search-only"] && !args.keep) throw new UsageError(`--search-only measures the searches of a run kept with --keep DIR\nusage: ${USAGE}`);
  const items = intOption("items", args.items, 100_000, 1);
  const seed = intOption("seed", args.seed, 42);
  const equal = intOption("equal", args.equal, 0);
  await assertPortFree(BENCH.port);
  const work = args.keep ?? mkdtempSync(join(tmpdir(), "cogr-scale-"));
  const data = join(work, "data");
  const artifacts = join(work, "artifacts");
  const state = join(work, "state");
  const env = { COGR_DATA: data, COGR_ARTIFACTS: artifacts };
  const rows: Array<Record<string, string>> = [];
  const row = (what: string, r: { seconds: number; peakRssMb: number }, note = "") =>
    rows.push({ step: what, seconds: r.seconds.toFixed(1), "peak RSS MB": Number.isNaN(r.peakRssMb) ? "" : r.peakRssMb.toFixed(0), note });
  try {
    if (!args["search-only"]) await pipeline();
    await searches();
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }

  async function pipeline() {
    row("synth", await step("synth", ["--items", String(items), "--seed", String(seed), "--out", data], { COGR_DATA: dataDir() }));
    row("build-round --round 0", await step("build-round", ["--round", "0"], env), `artifact ${mb(duBytes(join(artifacts, "rounds", "0")))} MB`);
    const ev = await step("eval", ["--method", "keywords", "--round", "0", "--json"], env);
    const f1 = (JSON.parse(ev.out.split("\n").at(-1) as string) as { f1: number }).f1;
    row("eval --method keywords (dev)", ev, `F1 ${f1.toFixed(4)}`);
    const m0 = performance.now();
    await applyMigrations(readDeployConfig(), { mode: "local", stateDir: state });
    row("migrations (fresh local state, once)", { seconds: (performance.now() - m0) / 1000, peakRssMb: Number.NaN });
    const pub = await step("publish", ["--round", "0", "--local", "--state", state], env);
    row("publish --round 0 (full)", pub, pub.out.replace(/^.*: /, ""));
    const noop = await step("publish", ["--round", "0", "--local", "--state", state], env);
    row("publish --round 0 again (no-op)", noop);
    const t0 = performance.now();
    const { changed } = deriveRound(artifacts, BENCH.changedShare);
    row(
      "derive round 1 (1% of items changed)",
      { seconds: (performance.now() - t0) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 },
      `${changed} items changed`,
    );
    const inc = await step("publish", ["--round", "1", "--local", "--state", state], env);
    row("publish --round 1 (incremental)", inc, inc.out.replace(/^.*: /, ""));
    printTable(rows);

    const written = (out: string) => {
      const m = /wrote (\d+) rows and (\d+) blocks/.exec(out);
      return m ? Number(m[1]) + Number(m[2]) : Number.NaN;
    };
    const share = written(inc.out) / written(pub.out);
    console.log(
      `\nincremental publish of a 1%-changed round: ${written(inc.out)} of a full publish's ${written(pub.out)} rows (${(share * 100).toFixed(1)} %)`,
    );

    const storage = await storageFigures(readDeployConfig(), state);
    console.log(`\nD1 after both rounds: ${storage.itemRows} item rows (largest ${storage.largestItemRowBytes} B)`);
    printTable(
      storage.shards.map((s, j) => ({
        shard: String(j),
        "directory rows": String(s.directoryRows),
        blocks: String(s.blocks),
        "block MB": mb(s.blockBytes),
        "largest row B": String(s.largestBlockBytes),
      })),
    );
  }

  async function searches() {
    const figures = postingFigures(artifacts, 1, COMMON);
    const l = figures.largest;
    console.log(`\nlargest posting ${l.key}: ${l.entries} entries, ${(l.bytes / 1024).toFixed(0)} KB in ${l.blocks} blocks`);
    printTable(
      figures.queries.map((q) => ({
        query: q.query,
        "posting keys": String(q.keys),
        entries: String(q.entries),
        "encoded KB (all blocks)": (q.bytes / 1024).toFixed(0),
      })),
    );

    // A kept state published before facet columns existed gets them now (a no-op publish writes only what is missing).
    const cols = await step("publish", ["--round", "1", "--local", "--state", state], env);
    console.log(`\npublish --round 1 (no-op; facet columns written if missing): ${cols.seconds.toFixed(1)} s`);
    const ranking = rankingFigures(artifacts, 1, COMMON);
    if (ranking) {
      console.log(
        "\nranking a page of 10 in-process (round 1's blocks; median of 31 warm runs): executeTopK as the worker ranks (block-max for one-word plans, else the exhaustive path from blocks) against the exhaustive reference",
      );
      printTable(
        ranking.map((r) => ({
          query: r.query,
          "|I_ret|": String(r.retrieved),
          postings: String(r.postings),
          "decoded or scored": r.scored === null ? "(exhaustive path)" : String(r.scored),
          "executeTopK ms": r.blockMaxMs.toFixed(2),
          "exhaustive ms": r.exhaustiveMs.toFixed(2),
          "executeTopK ns/posting": ((r.blockMaxMs * 1e6) / r.postings).toFixed(1),
          "exhaustive ns/posting": ((r.exhaustiveMs * 1e6) / r.postings).toFixed(1),
        })),
      );
    }

    // Cold means cold: no cached postings or keywords in KV (a kept state may hold some from an earlier run), and a fresh isolate.
    const kv = await localTarget(readDeployConfig(), state);
    const dropped = (await kv.kv.deletePrefix("p:")) + (await kv.kv.deletePrefix("kw:"));
    await kv.dispose();
    if (dropped > 0) console.log(`(dropped ${dropped} cached KV values of an earlier run)`);
    const server = await startDevServer(BENCH.port, state, "ignore", {}, { benchLimits: true });
    try {
      const pgid = server.child.pid as number;
      const idle = workerdMemory(pgid);
      const health = await healthBaselines(server.url);
      const queries = await loadQueries(join(data, WANDS_FILES.queries));
      const rare = queries
        .filter((_, j) => j % Math.floor(queries.length / BENCH.rareQueries) === 3)
        .slice(0, BENCH.rareQueries)
        .map((q) => q.text);
      const table = [
        ...(await measureQueries(server.url, `common (${COMMON.join(", ")})`, COMMON, health)),
        ...(await measureQueries(server.url, `rare (${rare.length} WANDS queries)`, rare, health)),
      ];
      const busy = workerdMemory(pgid);
      console.log(
        `\nsearch through wrangler dev (round 1 serving), /healthz p50 ${health.one.toFixed(1)} ms (one client), ${health.many.toFixed(1)} ms (${SEARCH_BENCH.concurrentClients} clients)`,
      );
      printTable(table);
      console.log(
        `\nworkerd memory (measured, /proc): RSS ${idle.rssMb.toFixed(0)} MB after start, ${busy.rssMb.toFixed(0)} MB after the searches, peak ${busy.peakMb.toFixed(0)} MB`,
      );
      if (equal > 0) {
        // After the timings: reading the round whole in this process takes gigabytes at 1M items.
        const asked = [...COMMON, ...queries.map((q) => q.text)].slice(0, equal);
        const eq = await compareWithWorker(server.url, artifacts, 1, asked);
        console.log(`\nworker = trainer (round 1, ${eq.queries} queries, ${eq.hits} results compared): ${eq.differences.length} differences`);
        for (const d of eq.differences.slice(0, 5)) console.log(`  ${d.slice(0, 400)}`);
        if (eq.differences.length > 0) process.exitCode = 2;
      }
    } finally {
      server.stop();
      await server.exited;
    }
  }
});
