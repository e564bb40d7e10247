/** Simulated users until the running experiment's report reaches a verdict (or a user budget runs out). */
import type { AdminClient } from "../admin-client.js";
import { type SimulationCounts, type SimulationData, simulateUsers } from "./traffic.js";

export interface VerdictOutcome {
  readonly users: number;
  readonly verdict: string;
  readonly winner: number | null;
  readonly counts: SimulationCounts;
}

export async function untilVerdict(
  admin: AdminClient,
  url: string,
  data: SimulationData,
  opts: { seed: number; maxUsers: number; searchesPerUser: number; concurrency: number; checkEvery: number; growth?: number },
): Promise<VerdictOutcome> {
  const list = (await admin.call<{ experiments: Array<{ id: string; state: string }> }>("GET", "/admin/experiments")).experiments;
  const running = list.find((e) => e.state === "running");
  if (!running) throw new Error("no running experiment: start one with npm run experiment -- start …");
  const counts: SimulationCounts = { searches: 0, clicks: 0, failed: 0 };
  let users = 0;
  while (users < opts.maxUsers) {
    // Looks every `checkEvery` users, or (growth > 1) at users × growth: the same relative resolution at any sample size.
    const step = opts.growth && opts.growth > 1 ? Math.max(opts.checkEvery, Math.ceil(users * (opts.growth - 1))) : opts.checkEvery;
    const to = Math.min(opts.maxUsers, users + step);
    await simulateUsers(url, data, { seed: opts.seed, from: users, to, searchesPerUser: opts.searchesPerUser, concurrency: opts.concurrency }, counts);
    users = to;
    await new Promise((r) => setTimeout(r, 100)); // the last events land
    const { report } = await admin.call<{ report: { verdict: string; winner: number | null } }>("GET", `/admin/experiments/${running.id}`);
    if (report.verdict !== "no detectable difference yet") return { users, verdict: report.verdict, winner: report.winner, counts };
  }
  return { users, verdict: "no detectable difference yet", winner: null, counts };
}
