/**
 * `npm run bench:serve` (needs COGR_DATA): the time to publish the WANDS
 * round into fresh local state, then autocannon against `wrangler dev` for
 * /healthz and /v1/search (keywords and postings cached by a warm-up pass).
 * A benchmark, not a test: it prints figures.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { dataDir, loadWands } from "../training/data/wands.js";
import { readRound, writeRound } from "../training/round-artifact.js";
import { buildRound0 } from "../training/round0.js";
import { printTable } from "./bench/stats.js";
import { runCli } from "./cli.js";
import { startDevServer } from "./dev-server.js";
import { readDeployConfig } from "./publish/deploy-config.js";
import { planFor, publishTo } from "./publish/local.js";
import { applyMigrations, localTarget } from "./publish/targets.js";

const BENCH = { port: 8797, connections: 8, durationS: 10, searchQueries: 50 } as const;

runCli(async () => {
  const dataset = loadWands(dataDir());
  const artifacts = mkdtempSync(join(tmpdir(), "cogr-bench-art-"));
  const state = mkdtempSync(join(tmpdir(), "cogr-bench-state-"));
  writeRound(buildRound0(dataset), artifacts);
  const round = readRound(0, artifacts);
  const config = readDeployConfig();

  const t0 = performance.now();
  await applyMigrations(config, { mode: "local", stateDir: state });
  const tMigrated = performance.now();
  const plan = planFor(round, config);
  await publishTo(await localTarget(config, state), plan);
  const tPublished = performance.now();

  const server = await startDevServer(BENCH.port, state, "ignore");
  const base = server.url;
  const queries = dataset.queries.slice(0, BENCH.searchQueries).map((q) => `/v1/search?q=${encodeURIComponent(q.text)}&limit=10`);
  // Warm-up: generated keywords land in KV, postings in KV and the isolate's LRU.
  for (let pass = 0; pass < 2; pass++) for (const p of ["/v1/search?q=armchair&limit=10", ...queries]) await (await fetch(base + p)).text();

  const run = (title: string, requests: string[]) =>
    autocannon({
      title,
      url: base,
      connections: BENCH.connections,
      duration: BENCH.durationS,
      requests: requests.map((path) => ({ method: "GET" as const, path })),
    });
  const rows: Array<Record<string, string>> = [];
  const results: Record<string, autocannon.Result> = {};
  for (const [name, reqs] of [
    ["/healthz", ["/healthz"]],
    ["/v1/search?q=armchair", ["/v1/search?q=armchair&limit=10"]],
    [`/v1/search, ${BENCH.searchQueries} WANDS queries`, queries],
  ] as const) {
    const r = await run(name, [...reqs]);
    results[name] = r;
    rows.push({
      endpoint: name,
      p50: `${r.latency.p50} ms`,
      p99: `${r.latency.p99} ms`,
      "req/s": r.requests.average.toFixed(0),
      errors: String(r.errors + r.non2xx),
    });
  }
  server.stop();
  await server.exited;
  rmSync(artifacts, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
  console.log(`autocannon: ${BENCH.connections} connections, ${BENCH.durationS} s each, against wrangler dev (local D1/KV, keywords cached)\n`);
  printTable(rows);
  const ratio = (results["/v1/search?q=armchair"]?.latency.p50 ?? 0) / Math.max(1, results["/healthz"]?.latency.p50 ?? 1);
  console.log(`\nsearch p50 / healthz p50 = ${ratio.toFixed(2)} (goal ≤ 3)`);
  console.log(
    `publish WANDS round 0 to fresh local state: ${((tPublished - t0) / 1000).toFixed(1)} s ` +
      `(migrations ${((tMigrated - t0) / 1000).toFixed(1)} s, data ${((tPublished - tMigrated) / 1000).toFixed(1)} s; ` +
      `${plan.manifest.counts.items} items, ${plan.manifest.counts.keywords + plan.manifest.counts.words} postings)`,
  );
});
