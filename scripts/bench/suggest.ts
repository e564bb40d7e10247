/**
 * For `npm run bench:serve`: GET /v1/suggest as a user types. Every WANDS
 * query's prefixes (2, 3, 5 and 8 characters, and the whole query) are asked
 * one request at a time: a first pass (cold: the keyword buckets come from
 * KV), then a warm pass (the isolate's bucket cache), beside /healthz asked
 * as often. Latencies are measured by the client, so they include HTTP.
 */
import { performance } from "node:perf_hooks";
import { percentile } from "./stats.js";

export interface SuggestBenchReport {
  readonly requests: number;
  readonly cold: { readonly p50Ms: number; readonly p99Ms: number };
  readonly warm: { readonly p50Ms: number; readonly p99Ms: number };
  readonly health: { readonly p50Ms: number; readonly p99Ms: number };
  /** Share of warm requests with at least one suggestion. */
  readonly answered: number;
}

const PREFIX_CHARS = [2, 3, 5, 8] as const;

export function typedPrefixes(queries: readonly string[]): string[] {
  const out = new Set<string>();
  for (const q of queries) {
    for (const n of PREFIX_CHARS) if (q.length > n) out.add(q.slice(0, n));
    out.add(q);
  }
  return [...out];
}

async function timed(base: string, paths: readonly string[]): Promise<{ ms: number[]; answered: number }> {
  const ms: number[] = [];
  let answered = 0;
  for (const p of paths) {
    const t = performance.now();
    const res = await fetch(base + p, { headers: { "x-user-id": "bench-suggest" } });
    const body = (await res.json()) as { suggestions?: unknown[] };
    ms.push(performance.now() - t);
    if (!res.ok) throw new Error(`${p}: ${res.status}`);
    if ((body.suggestions?.length ?? 0) > 0) answered++;
  }
  return { ms: ms.sort((a, b) => a - b), answered };
}

const summary = (ms: readonly number[]) => ({ p50Ms: percentile(ms, 50), p99Ms: percentile(ms, 99) });

export async function benchSuggest(base: string, queries: readonly string[]): Promise<SuggestBenchReport> {
  const paths = typedPrefixes(queries).map((q) => `/v1/suggest?q=${encodeURIComponent(q)}&limit=8`);
  const cold = await timed(base, paths);
  const warm = await timed(base, paths);
  const health = await timed(
    base,
    paths.map(() => "/healthz"),
  );
  return { requests: paths.length, cold: summary(cold.ms), warm: summary(warm.ms), health: summary(health.ms), answered: warm.answered / paths.length };
}
