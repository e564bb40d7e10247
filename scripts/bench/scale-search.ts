/**
 * bench:scale's search timings through `wrangler dev`: common and rare
 * queries, plain, with `facets=class`, and with `facets=class` and a filter,
 * each against /healthz, warm, one client at a time and 16 at once.
 */
import { performance } from "node:perf_hooks";
import { percentile } from "./stats.js";

export const SEARCH_BENCH = { warmRepeats: 15, healthRepeats: 50, concurrentClients: 16, concurrentRequests: 320 } as const;

/** The variants each query is timed in: what the URL adds. */
export const VARIANTS = [
  { label: "plain", suffix: "" },
  { label: "facets=class", suffix: "&facets=class" },
  { label: "facets=class + category=Furniture", suffix: "&facets=class&category=Furniture" },
] as const;

let users = 0;

/** One request, from a user key of its own (as bench:serve does), so the per-user rate limit never answers instead of the search. */
export async function timed(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { "x-cogr-user": `bench-scale-${users++}` } });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - t0;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** `clients` loops at once, `total` requests in all, cycling through the URLs: each request's latency. */
async function concurrent(urls: readonly string[], clients: number, total: number): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const j = next++;
        out.push(await timed(urls[j % urls.length] as string));
      }
    }),
  );
  return out;
}

/** /healthz p50 alone and under 16 clients: the baselines the searches are divided by. */
export async function healthBaselines(base: string): Promise<{ one: number; many: number }> {
  const one: number[] = [];
  for (let j = 0; j < SEARCH_BENCH.healthRepeats; j++) one.push(await timed(`${base}/healthz`));
  const many = await concurrent([`${base}/healthz`], SEARCH_BENCH.concurrentClients, SEARCH_BENCH.concurrentRequests);
  return { one: percentile(sorted(one), 50), many: percentile(sorted(many), 50) };
}

/**
 * One row per variant: cold (the first request of each query, variants in
 * order, so only the first variant meets cold postings), warm one client
 * (the variants interleaved request by request, so none gains from running
 * after another), then warm with 16 clients.
 */
export async function measureQueries(
  base: string,
  label: string,
  queries: readonly string[],
  health: { one: number; many: number },
): Promise<Array<Record<string, string>>> {
  const urls = VARIANTS.map((v) => queries.map((q) => `${base}/v1/search?q=${encodeURIComponent(q)}&limit=10${v.suffix}`));
  const cold = VARIANTS.map(() => [] as number[]);
  const warm = VARIANTS.map(() => [] as number[]);
  for (let v = 0; v < VARIANTS.length; v++) for (const url of urls[v] ?? []) cold[v]?.push(await timed(url));
  for (let r = 0; r < SEARCH_BENCH.warmRepeats; r++) {
    for (let j = 0; j < queries.length; j++) for (let v = 0; v < VARIANTS.length; v++) warm[v]?.push(await timed(urls[v]?.[j] as string));
  }
  const rows: Array<Record<string, string>> = [];
  for (let v = 0; v < VARIANTS.length; v++) {
    const many = await concurrent(urls[v] ?? [], SEARCH_BENCH.concurrentClients, SEARCH_BENCH.concurrentRequests);
    const p = (xs: number[], q: number) => percentile(sorted(xs), q);
    const w = warm[v] ?? [];
    rows.push({
      queries: label,
      variant: VARIANTS[v]?.label ?? "",
      "cold p50 ms": p(cold[v] ?? [], 50).toFixed(1),
      "warm p50 ms": p(w, 50).toFixed(1),
      "warm p99 ms": p(w, 99).toFixed(1),
      "p50 / healthz": (p(w, 50) / health.one).toFixed(2),
      "16 clients p50 ms": p(many, 50).toFixed(1),
      "16: p50 / healthz": (p(many, 50) / health.many).toFixed(2),
    });
  }
  return rows;
}
