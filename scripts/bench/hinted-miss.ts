/**
 * For `npm run bench:serve`: what a hinted query policy's first pass
 * (core/hints.ts) costs a search. The newest trained round in artifacts/ is
 * published into fresh local state and served by `wrangler dev`; every WANDS
 * query is asked once as a query no cache has seen (a keyword-cache miss: the
 * first pass over D1/KV, one catalogue read, then the policy), then again
 * (a hit: the keywords come from the isolate's cache). One request at a
 * time, so the figures are latencies, not queueing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { firstPassOf } from "../../core/query-generator.js";
import { publishTo } from "../../publish/node/artifact.js";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { applyMigrations, localTarget } from "../../publish/node/targets.js";
import { dataDir, loadDataset } from "../../training/data/dataset.js";
import { artifactsDir, listRounds, readRound } from "../../training/round-artifact.js";
import { startDevServer } from "../dev-server.js";
import { percentile } from "./stats.js";

export interface HintedMissReport {
  readonly round: number;
  readonly topK: number;
  readonly queries: number;
  readonly miss: { readonly p50Ms: number; readonly p99Ms: number };
  readonly hit: { readonly p50Ms: number; readonly p99Ms: number };
}

/** Null when artifacts/ holds no trained round with a hinted policy. */
export async function benchHintedMiss(port: number): Promise<HintedMissReport | null> {
  const round = listRounds()
    .filter((r) => r > 0)
    .reverse()
    .find((r) => firstPassOf(readRound(r).queryGenerator) !== null);
  return round === undefined ? null : benchKeywordMiss(port, artifactsDir(), round);
}

/** The same measurement for any trained round (topK 0: a policy without hints, for comparison). */
export async function benchKeywordMiss(port: number, root: string, round: number): Promise<HintedMissReport> {
  const topK = firstPassOf(readRound(round, root).queryGenerator)?.topK ?? 0;
  const dataset = await loadDataset(dataDir());
  const state = mkdtempSync(join(tmpdir(), "cogr-bench-hints-"));
  const config = readDeployConfig();
  await applyMigrations(config, { mode: "local", stateDir: state });
  await publishTo(await localTarget(config, state), round, { root });
  const server = await startDevServer(port, state, "ignore", {}, { benchLimits: true });
  try {
    // A run-unique suffix makes every query one no cache holds (publish warms the round's own queries).
    const nonce = Date.now().toString(36);
    const paths = dataset.queries.map((q, j) => `/v1/search?q=${encodeURIComponent(`${q.text} ${nonce}${j}`)}&limit=10`);
    let user = 0;
    const time = async (path: string) => {
      const t0 = performance.now();
      // A user key per request: the rate limit (300 per 10 s per client) is not what is measured.
      const res = await fetch(server.url + path, { headers: { "x-cogr-user": `bench-hints-${++user}` } });
      const body = (await res.json()) as { keywordSource?: string };
      if (res.status !== 200 || body.keywordSource !== "policy") throw new Error(`${path}: status ${res.status}, keywordSource ${body.keywordSource}`);
      return performance.now() - t0;
    };
    await time(`/v1/search?q=warm-up-${nonce}`); // the isolate loads the round and its policy once
    const miss: number[] = [];
    for (const p of paths) miss.push(await time(p));
    const hit: number[] = [];
    for (const p of paths) hit.push(await time(p));
    const summary = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
    };
    return { round, topK, queries: paths.length, miss: summary(miss), hit: summary(hit) };
  } finally {
    server.stop();
    await server.exited;
    rmSync(state, { recursive: true, force: true });
  }
}
