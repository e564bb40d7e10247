/**
 * `npm run bench:train -- --items N [--rounds R] [--seed S] [--workers W] [--keep DIR]`:
 * training rounds at catalogue size N on a synthetic WANDS-format
 * catalogue (npm run synth): synth, build round 0, evaluate it, R lexical
 * training rounds (`train --backend lexical --rounds R`, R = 1 unless
 * given), evaluate each.
 * Each step is a CLI child as a user runs it; the training child reports
 * every phase's wall time, its peak RSS so far and its live heap
 * (scripts/train.ts, COGR_REPORT_RSS). Ends with the dev F1 of every round
 * and the shipped query generator's size. A benchmark, not a test.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROUND_FILES } from "../core/round-format.js";
import { dataDir } from "../training/data/dataset.js";
import { readManifest, roundDir } from "../training/round-artifact.js";
import { type StepResult, step } from "./bench/scale-steps.js";
import { printTable } from "./bench/stats.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";

const USAGE = "npm run bench:train -- --items N [--rounds R] [--seed S] [--workers W] [--keep DIR [--reuse]]";

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** The training child's phase lines: `phase-stats NAME s SECONDS peak-rss-kb KB heap-mb MB`. */
export function phaseLines(err: string): Array<{ phase: string; seconds: number; peakRssMb: number; heapMb: number }> {
  return [...err.matchAll(/phase-stats (\S+) s ([0-9.]+) peak-rss-kb (\d+) heap-mb (\d+)/g)].map((m) => ({
    phase: m[1] as string,
    seconds: Number(m[2]),
    peakRssMb: Number(m[3]) / 1024,
    heapMb: Number(m[4]),
  }));
}

/** The worker threads' heaps (training/parallel/pool.ts `worker-heap` lines): each thread's largest, and when. */
export function workerHeaps(err: string): Array<Record<string, string>> {
  const byThread = new Map<string, { at: number; used: number; total: number; lines: number }>();
  for (const m of err.matchAll(/worker-heap thread (\d+) .*? at (\d+) used-mb (\d+) total-mb (\d+)/g)) {
    const [thread, at, used, total] = [m[1] as string, Number(m[2]), Number(m[3]), Number(m[4])];
    const seen = byThread.get(thread);
    if (!seen || total > seen.total) byThread.set(thread, { at, used, total, lines: (seen?.lines ?? 0) + 1 });
    else seen.lines++;
  }
  return [...byThread].map(([thread, h]) => ({
    thread,
    "largest heap MB (total)": String(h.total),
    "used then MB": String(h.used),
    "at (unix ms)": String(h.at),
    reports: String(h.lines),
  }));
}

/** The shipped query generator: its bytes in the round (what KV holds under qgen:) and its tables' sizes. */
function policySize(dir: string): Record<string, string> {
  const m = readManifest(dir);
  const text = readFileSync(join(dir, ROUND_FILES.queryGenerator), "utf8");
  const spec = JSON.parse(text) as { policy?: Record<string, unknown[]> & { tail?: { words: number; buckets: number } } };
  const p = spec.policy ?? {};
  // An extractor's df tail or a policy's vocabulary tail: what ships apart, in KV buckets read per query.
  const tailFile = [ROUND_FILES.queryDf, ROUND_FILES.queryTail].find((f) => m.checksums[f]);
  const tail = tailFile ? statSync(join(dir, tailFile)).size : 0;
  const n = (k: string) => String((p[k] as unknown[] | undefined)?.length ?? 0);
  return {
    "query-generator.json MB": mb(text.length),
    "tail (KV buckets) MB": mb(tail),
    "tail words / buckets": p.tail ? `${p.tail.words} / ${p.tail.buckets}` : "-",
    "df entries": n("oppositeDf"),
    expansions: n("expansions"),
    profiles: n("profiles"),
    "keyword weights": n("keywordWeights"),
  };
}

runCli(async () => {
  const args = parseCli(
    {
      items: { type: "string" },
      rounds: { type: "string" },
      seed: { type: "string" },
      workers: { type: "string" },
      keep: { type: "string" },
      reuse: { type: "boolean" },
    },
    USAGE,
  );
  if (args.reuse && !args.keep) throw new UsageError(`--reuse trains again on a catalogue and round 0 kept with --keep DIR\nusage: ${USAGE}`);
  const items = intOption("items", args.items, 100_000, 1);
  const rounds = intOption("rounds", args.rounds, 1, 1);
  const seed = intOption("seed", args.seed, 42);
  const workers = args.workers === undefined ? [] : ["--workers", String(intOption("workers", args.workers, 1, 1))];
  const work = args.keep ?? mkdtempSync(join(tmpdir(), "cogr-train-"));
  const data = join(work, "data");
  const artifacts = join(work, "artifacts");
  const env = { COGR_DATA: data, COGR_ARTIFACTS: artifacts };
  const rows: Array<Record<string, string>> = [];
  const row = (what: string, r: Pick<StepResult, "seconds" | "peakRssMb">, note = "", heap = "") =>
    rows.push({ step: what, seconds: r.seconds.toFixed(1), "peak RSS MB": r.peakRssMb.toFixed(0), "heap MB": heap, note });
  const f1Of = (r: StepResult) => (JSON.parse(r.out.split("\n").at(-1) as string) as { f1: number }).f1;
  try {
    if (args.reuse && existsSync(join(roundDir(0, artifacts), "manifest.json"))) {
      // The kept catalogue and round 0 again: only the training (and its checkpoint and round) start over.
      for (const old of [join(artifacts, "train"), ...Array.from({ length: rounds }, (_, r) => roundDir(r + 1, artifacts))])
        rmSync(old, { recursive: true, force: true });
    } else {
      row("synth", await step("synth", ["--items", String(items), "--seed", String(seed), "--out", data], { COGR_DATA: dataDir() }));
      row("build-round --round 0", await step("build-round", ["--round", "0", "--seed", String(seed)], env));
    }
    const ev0 = await step("eval", ["--method", "keywords", "--round", "0", "--json"], env);
    row("eval round 0 (dev)", ev0, `F1 ${f1Of(ev0).toFixed(4)}`);
    // --expose-gc: the phase lines report the live heap after a full collection.
    const train = await step(
      "train",
      ["--backend", "lexical", "--rounds", String(rounds), "--seed", String(seed), ...workers],
      // The caller's NODE_OPTIONS (a larger heap, say) go on to the training child.
      { ...env, NODE_OPTIONS: `--expose-gc ${process.env.NODE_OPTIONS ?? ""}`.trim() },
      {
        allowFailure: true,
      },
    );
    for (const p of phaseLines(train.err)) row(`  train: ${p.phase}`, p, "", String(p.heapMb));
    const heaps = workerHeaps(train.err);
    if (train.code !== 0) {
      row(`train --rounds ${rounds}`, train, `FAILED (exit ${train.code}): ${train.err.trim().split("\n").slice(-2).join(" | ").slice(0, 200)}`);
      printTable(rows);
      process.exitCode = 2;
      return;
    }
    row(`train --rounds ${rounds} (whole)`, train, `CPU ${train.cpuSeconds.toFixed(0)} s`);
    const f1s = [f1Of(ev0)];
    for (let r = 1; r <= rounds; r++) {
      const ev = await step("eval", ["--method", "keywords", "--round", String(r), "--json"], env);
      row(`eval round ${r} (dev)`, ev, `F1 ${f1Of(ev).toFixed(4)}`);
      f1s.push(f1Of(ev));
    }
    printTable(rows);
    if (heaps.length > 0) {
      console.log("\nworker threads (candidates, then GRPO), each one's largest heap:");
      printTable(heaps);
    }
    console.log(
      `\ndev F1: ${f1s.map((f, r) => `round ${r} ${f.toFixed(4)}`).join(", ")} (round 1 − round 0: ${((f1s[1] as number) - (f1s[0] as number)).toFixed(4)})`,
    );
    console.log(`\nshipped query generator (round ${rounds}):`);
    printTable([policySize(roundDir(rounds, artifacts))]);
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
});
