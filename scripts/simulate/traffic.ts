/**
 * Simulated users against a running worker: WANDS queries, and a
 * position-biased cascade click model over the results shown, with click
 * chances by WANDS label (Exact > Partial > Irrelevant). Each click is sent
 * to POST /v1/feedback, as the search page does. Each user searches from a
 * network of its own (a synthetic CF-Connecting-IP, which local wrangler
 * passes through and Cloudflare would set): the experiment statistics cap
 * what one network counts for, so users all on 127.0.0.1 would count as one
 * household.
 */
import { Rng } from "../../core/rng.js";
import { fnv1a32 } from "../../core/shard.js";
import { dataSource, hasLabels, loadSourceGrades, loadSourceQueries } from "../../training/data/dataset.js";
import { DataError, type Grade } from "../../training/data/types.js";

/** The click model: examine top-down; at each position click with the label's chance; stop after a click or by fatigue. */
export const CLICK_MODEL = {
  clickChance: { Exact: 0.5, Partial: 0.2, Irrelevant: 0.03 } satisfies Record<Grade, number>,
  /** Chance of going on to the next result without a click (position bias: lower results are seen less). */
  continueChance: 0.8,
  /** Chance of going on after a click. */
  continueAfterClick: 0.2,
  resultsShown: 10,
} as const;

export interface SimulationData {
  readonly queries: ReadonlyArray<{ id: string; text: string }>;
  readonly grades: ReadonlyMap<string, ReadonlyMap<string, Grade>>;
}

export async function loadSimulationData(dir: string): Promise<SimulationData> {
  const src = dataSource(dir);
  if (!hasLabels(src)) throw new DataError(`simulated users click by the labels, and ${dir} has none: import the catalogue with --queries and --labels`);
  const grades = await loadSourceGrades(src);
  // Queries with at least one Exact or Partial label, so a click is possible at all.
  const queries = (await loadSourceQueries(src)).filter((q) => [...(grades.get(q.id)?.values() ?? [])].some((g) => g !== "Irrelevant"));
  return { queries, grades };
}

export interface SimulationCounts {
  searches: number;
  clicks: number;
  /** Searches and clicks the worker did not take. */
  failed: number;
}

/** A simulated user's address: in the IPv6 unique-local range, its /48 (the unit the statistics count) from a hash of the user id. */
export function simulatedIp(userId: string): string {
  const h = fnv1a32(userId);
  return `fd00:${((h >>> 16) & 0xffff).toString(16)}:${(h & 0xffff).toString(16)}::1`;
}

/** A click as the page sends it: from the same user (its key is also the rate-limit key), retried while the search event is still being written. */
export async function sendFeedback(url: string, userId: string, body: unknown): Promise<boolean> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const res = await fetch(`${url}/v1/feedback`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user-id": userId, "cf-connecting-ip": simulatedIp(userId) },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    if (res.status === 202) return true;
    if (res.status !== 404) return false;
    await new Promise((r) => setTimeout(r, 50 * 2 ** attempt)); // the search event is written just after the response
  }
  return false;
}

/** One user's session: `searches` searches, clicks by the model; the clicks are sent as the session ends (after the search events have landed). */
export async function simulateUser(url: string, data: SimulationData, userId: string, searches: number, rng: Rng, counts: SimulationCounts): Promise<void> {
  const clicks: Array<{ requestId: string; itemId: string; type: "click" }> = [];
  for (let s = 0; s < searches; s++) {
    const q = data.queries[Math.floor(rng.next() * data.queries.length)] as { id: string; text: string };
    const res = await fetch(`${url}/v1/search?q=${encodeURIComponent(q.text)}&limit=${CLICK_MODEL.resultsShown}`, {
      headers: { "x-user-id": userId, "cf-connecting-ip": simulatedIp(userId) },
    });
    if (!res.ok) {
      await res.arrayBuffer();
      counts.failed++;
      continue;
    }
    counts.searches++;
    const body = (await res.json()) as { requestId: string; results: Array<{ id: string }> };
    const grades = data.grades.get(q.id);
    for (const r of body.results) {
      const grade = grades?.get(r.id) ?? "Irrelevant";
      if (rng.next() < CLICK_MODEL.clickChance[grade]) {
        clicks.push({ requestId: body.requestId, itemId: r.id, type: "click" });
        if (rng.next() >= CLICK_MODEL.continueAfterClick) break;
      } else if (rng.next() >= CLICK_MODEL.continueChance) {
        break;
      }
    }
  }
  for (const click of clicks) {
    if (await sendFeedback(url, userId, click)) counts.clicks++;
    else counts.failed++;
  }
}

/** Users `from` … `to − 1`, `concurrency` at a time. */
export async function simulateUsers(
  url: string,
  data: SimulationData,
  opts: { seed: number; from: number; to: number; searchesPerUser: number; concurrency: number },
  counts: SimulationCounts,
): Promise<void> {
  let next = opts.from;
  const worker = async () => {
    while (next < opts.to) {
      const u = next++;
      await simulateUser(url, data, `sim-${opts.seed}-${u}`, opts.searchesPerUser, new Rng(opts.seed * 1_000_003 + u), counts);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
}
