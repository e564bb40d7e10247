/** Small timing helpers for the benchmarks (never used by tests). */
import { performance } from "node:perf_hooks";

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Per-call latencies in ms, after one warm-up pass. */
export async function timeEach<T>(inputs: readonly T[], fn: (x: T) => unknown): Promise<number[]> {
  for (const x of inputs) await fn(x);
  const out: number[] = [];
  for (const x of inputs) {
    const t = performance.now();
    await fn(x);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

export function printTable(rows: ReadonlyArray<Record<string, string>>): void {
  const head = Object.keys(rows[0] ?? {});
  const width = head.map((h) => Math.max(h.length, ...rows.map((r) => (r[h] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, j) => c.padEnd(width[j] as number)).join(" | ")} |`;
  console.log(line(head));
  console.log(`|${width.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(head.map((h) => r[h] ?? "")));
}
