/**
 * For the serving benchmarks: WANDS round 0 built into a temporary
 * artifacts folder, published into fresh local state (timed), and served by
 * `wrangler dev`; plus the worker's memory, read from the OS (the resident
 * set of the workerd processes wrangler started), not estimated.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type ExtractorGeneratorSpec, llmGeneratorSpec } from "../../core/query-generator.js";
import { publishTo } from "../../publish/node/artifact.js";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { applyMigrations, localTarget } from "../../publish/node/targets.js";
import { memorySource } from "../../publish/source.js";
import { dataDir, loadDataset } from "../../training/data/dataset.js";
import type { Dataset } from "../../training/data/types.js";
import { readRound, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import { type DevServer, startDevServer } from "../dev-server.js";

export interface ServedRound {
  readonly dataset: Dataset;
  readonly server: DevServer;
  /** The local state the round was published into (another dev server may serve it after this one stops). */
  readonly stateDir: string;
  readonly publish: { readonly migrationsS: number; readonly dataS: number; readonly items: number; readonly postings: number };
  /** Stops the server and removes the temporary folders. */
  close(): Promise<void>;
}

/**
 * `twin`: round 0's content is published again as round 1 (after the timed
 * publish), so an experiment has two rounds to serve; `vars` go to wrangler dev.
 */
export async function serveWandsRound0(port: number, opts: { twin?: boolean; vars?: Record<string, string>; llmModel?: string } = {}): Promise<ServedRound> {
  const dataset = await loadDataset(dataDir());
  const artifacts = mkdtempSync(join(tmpdir(), "cogr-bench-art-"));
  const state = mkdtempSync(join(tmpdir(), "cogr-bench-state-"));
  const r0 = buildRound0(dataset);
  // `llmModel`: round 0's index with an LLM query side that falls back to round 0's extractor.
  writeRound(opts.llmModel ? { ...r0, queryGenerator: llmGeneratorSpec(opts.llmModel, r0.queryGenerator as ExtractorGeneratorSpec) } : r0, artifacts);
  const config = readDeployConfig();
  const t0 = performance.now();
  await applyMigrations(config, { mode: "local", stateDir: state });
  const t1 = performance.now();
  const { manifest } = await publishTo(await localTarget(config, state), 0, { root: artifacts });
  const t2 = performance.now();
  if (opts.twin) {
    const r0 = readRound(0, artifacts);
    await publishTo(await localTarget(config, state), memorySource({ ...r0, manifest: { ...r0.manifest, round: 1 } }), { root: artifacts });
  }
  const server = await startDevServer(port, state, "ignore", opts.vars, { benchLimits: true });
  return {
    dataset,
    server,
    stateDir: state,
    publish: {
      migrationsS: (t1 - t0) / 1000,
      dataS: (t2 - t1) / 1000,
      items: manifest.counts.items,
      postings: manifest.counts.keywords + manifest.counts.words,
    },
    async close() {
      server.stop();
      await server.exited;
      rmSync(artifacts, { recursive: true, force: true });
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** Resident memory of the workerd processes in the dev server's process group, in MiB (Linux `ps`). */
export function workerRssMiB(server: DevServer): number {
  const pgid = server.child.pid;
  const rows = execFileSync("ps", ["-eo", "pgid=,rss=,comm="], { encoding: "utf8" }).split("\n");
  let kib = 0;
  for (const row of rows) {
    const [group, rss, comm] = row.trim().split(/\s+/);
    if (Number(group) === pgid && comm?.startsWith("workerd")) kib += Number(rss);
  }
  return kib / 1024;
}
