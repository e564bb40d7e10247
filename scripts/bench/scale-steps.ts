/** The steps of bench:scale: CLI children timed with their peak RSS, a derived round, and what local D1 holds. */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { IndexBuilder } from "../../core/inverted-index.js";
import { loadQueryGenerator } from "../../core/query-generator.js";
import { planQuery } from "../../core/retrieve.js";
import { fnv1a32, keywordKey, wordKey } from "../../core/shard.js";
import type { DeployConfig } from "../../publish/node/deploy-config.js";
import { localTarget } from "../../publish/node/targets.js";
import { LineWriter } from "../../training/jsonl.js";
import { readManifest, readRoundIndex, roundDir, roundItems, roundPostings, wholeQueryGenerator, writeRound } from "../../training/round-artifact.js";

export interface StepResult {
  readonly seconds: number;
  readonly peakRssMb: number;
  /** The child's user + system CPU time (NaN when it did not report it). */
  readonly cpuSeconds: number;
  readonly out: string;
  /** The child's stderr and exit code (a failure is only returned with `allowFailure`). */
  readonly err: string;
  readonly code: number | null;
}

/** Runs `npm run <script> -- …args` (as a user would, package.json's node flags included) and reads its peak RSS (scripts/cli.ts prints it). */
export function step(script: string, args: readonly string[], env: Record<string, string>, opts: { allowFailure?: boolean } = {}): Promise<StepResult> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "-s", script, "--", ...args], {
      env: { ...process.env, ...env, COGR_REPORT_RSS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("exit", (code) => {
      const rss = Number(/peak-rss-kb (\d+) cpu-ms/.exec(err)?.[1] ?? Number.NaN);
      const cpuMs = Number(/cpu-ms (\d+)/.exec(err)?.[1] ?? Number.NaN);
      if (code !== 0 && !opts.allowFailure) reject(new Error(`${script} ${args.join(" ")} exited ${code}: ${err.trim().split("\n").slice(-3).join(" | ")}`));
      else resolve({ seconds: (performance.now() - t0) / 1000, peakRssMb: rss / 1024, cpuSeconds: cpuMs / 1000, out: out.trim(), err, code });
    });
  });
}

/**
 * Round 1 = round 0 with `share` of the items' keyword sets changed (their
 * last keyword dropped), streamed like a build: what an incremental publish
 * of a round that changes 1 % of the items writes is measured on it.
 */
export function deriveRound(root: string, share: number): { changed: number } {
  const dir = roundDir(0, root);
  const m = readManifest(dir);
  const builder = new IndexBuilder();
  const file = `${root}/rounds/.items-derived.jsonl`;
  const out = new LineWriter(file);
  let changed = 0;
  for (const it of roundItems(dir, m)) {
    const pick = it.keywords.length > 1 && fnv1a32(`change:${it.id}`) / 2 ** 32 < share;
    const item = pick ? { ...it, keywords: it.keywords.slice(0, -1) } : it;
    if (pick) changed++;
    builder.add(item);
    out.line(JSON.stringify(item));
  }
  out.close();
  writeRound(
    {
      round: 1,
      split: m.split,
      config: { ...m.config, derived: `round 0 with ${share * 100}% of the item keyword sets changed` },
      items: [],
      itemsFile: file,
      index: builder.finish(),
      queryGenerator: wholeQueryGenerator(dir, m),
    },
    root,
  );
  return { changed };
}

export interface StorageFigures {
  readonly itemRows: number;
  readonly largestItemRowBytes: number;
  readonly shards: Array<{ directoryRows: number; blocks: number; blockBytes: number; largestBlockBytes: number }>;
}

/** What local D1 holds after the publishes: rows per database and the largest rows (text as stored: base64 for blocks). */
export async function storageFigures(config: DeployConfig, state: string): Promise<StorageFigures> {
  const t = await localTarget(config, state);
  try {
    const num = async (db: (typeof t)["catalog"], sql: string) => Number(await db.scalar(sql));
    const shards = [];
    for (const s of t.shards) {
      shards.push({
        directoryRows: await num(s, "SELECT COUNT(*) FROM postings"),
        blocks: await num(s, "SELECT COUNT(*) FROM blocks"),
        blockBytes: await num(s, "SELECT COALESCE(SUM(length(data)), 0) FROM blocks"),
        largestBlockBytes: await num(s, "SELECT COALESCE(MAX(length(data)), 0) FROM blocks"),
      });
    }
    return {
      itemRows: await num(t.catalog, "SELECT COUNT(*) FROM items"),
      largestItemRowBytes: await num(
        t.catalog,
        "SELECT COALESCE(MAX(length(id) + length(name) + length(class) + length(category) + length(keywords)), 0) FROM items",
      ),
      shards,
    };
  } finally {
    await t.dispose();
  }
}

export interface PostingFigures {
  readonly largest: { key: string; entries: number; bytes: number; blocks: number };
  /** Per query: the encoded bytes and entries of every posting its plan names (what a search fetches at most). */
  readonly queries: Array<{ query: string; keys: number; bytes: number; entries: number }>;
}

/** One streamed pass over a round's postings: the largest posting, and what each query's plan would fetch. */
export function postingFigures(root: string, round: number, queries: readonly string[]): PostingFigures {
  const dir = roundDir(round, root);
  const m = readManifest(dir);
  // A trained round's hinted policy runs a first pass over the round's index: read it then (gigabytes at 1M items).
  const spec = wholeQueryGenerator(dir, m);
  const hinted = spec.kind === "lexical-policy" && spec.policy.hints !== undefined;
  const generate = loadQueryGenerator(spec, hinted ? readRoundIndex(round, root).index : undefined) ?? (() => []);
  const { header, postings } = roundPostings(dir, m);
  const plans = queries.map((q) => {
    const plan = planQuery(generate(q), q, header.queryTerms);
    return { query: q, keys: new Set([...plan.keywords.map(keywordKey), ...plan.words.map(wordKey)]) };
  });
  const wanted = new Map<string, { bytes: number; entries: number }>();
  for (const p of plans) for (const k of p.keys) wanted.set(k, { bytes: 0, entries: 0 });
  let largest = { key: "", entries: 0, bytes: 0, blocks: 0 };
  for (const e of postings) {
    const bytes = e.blocks.reduce((s, b) => s + b.data.length, 0);
    if (bytes > largest.bytes) largest = { key: e.key, entries: e.count, bytes, blocks: e.blocks.length };
    const w = wanted.get(e.key);
    if (w) wanted.set(e.key, { bytes, entries: e.count });
  }
  return {
    largest,
    queries: plans.map((p) => {
      let bytes = 0;
      let entries = 0;
      for (const k of p.keys) {
        bytes += wanted.get(k)?.bytes ?? 0;
        entries += wanted.get(k)?.entries ?? 0;
      }
      return { query: p.query, keys: p.keys.size, bytes, entries };
    }),
  };
}
