/** Small timing helpers for the benchmarks (never used by tests). */
import { performance } from "node:perf_hooks";

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Per-call latencies in ms over `passes` passes, after one warm-up pass, sorted. */
export async function timeEach<T>(inputs: readonly T[], fn: (x: T) => unknown, passes = 1): Promise<number[]> {
  for (const x of inputs) await fn(x);
  const out: number[] = [];
  for (let p = 0; p < passes; p++) {
    for (const x of inputs) {
      const t = performance.now();
      await fn(x);
      out.push(performance.now() - t);
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * The slowest input by its median over `runs` back-to-back calls: what an
 * input costs once warm, with one-off pauses (GC, JIT, the VM) left out.
 */
export function slowestMedian<T>(inputs: readonly T[], fn: (x: T) => unknown, runs = 11): { input: T; ms: number } {
  let worst = { input: inputs[0] as T, ms: 0 };
  for (const x of inputs) {
    const ts: number[] = [];
    for (let r = 0; r < runs; r++) {
      const t = performance.now();
      fn(x);
      ts.push(performance.now() - t);
    }
    const med = ts.sort((a, b) => a - b)[runs >> 1] as number;
    if (med > worst.ms) worst = { input: x, ms: med };
  }
  return worst;
}

export function printTable(rows: ReadonlyArray<Record<string, string>>): void {
  const head = Object.keys(rows[0] ?? {});
  const width = head.map((h) => Math.max(h.length, ...rows.map((r) => (r[h] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, j) => c.padEnd(width[j] as number)).join(" | ")} |`;
  console.log(line(head));
  console.log(`|${width.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(head.map((h) => r[h] ?? "")));
}
