/** Simulated users until the running experiment's report reaches a verdict (or a user budget runs out). */
import type { AdminClient } from "../admin-client.js";
import { type SimulationCounts, type SimulationData, simulateUsers } from "./traffic.js";

export interface VerdictOutcome {
  readonly users: number;
  readonly verdict: string;
  readonly winner: number | null;
  readonly counts: SimulationCounts;
}

const UNDECIDED = "no detectable difference yet";

export type RunOptions = { seed: number; maxUsers: number; searchesPerUser: number; concurrency: number; checkEvery: number; growth?: number };

/** The report as the bench reads it: the verdict, and each statistic's own (comparisons' plain CTR and CUPED, interleaving's). */
export interface ReportView {
  readonly verdict: string;
  readonly winner: number | null;
  readonly comparisons: ReadonlyArray<{
    ctr: { alwaysValidP: number; z: { difference: number } };
    cuped: { alwaysValidP: number; sequential: { difference: number } };
  }>;
  readonly interleaving: { alwaysValidP: number; sequential: { difference: number } } | null;
}

/** A statistic's verdict from its always-valid p (the report keeps the running minimum) and its difference's sign. */
export const verdictFrom = (p: number, difference: number, alpha = 0.05) => (p >= alpha ? UNDECIDED : difference > 0 ? "treatment better" : "treatment worse");

/**
 * Users until each reader's verdict (a reader maps the report to a verdict),
 * looking every `checkEvery` users or (growth > 1) at users × growth: the
 * same relative resolution at any sample size. A reader keeps the first
 * verdict it reached (the p-values are always valid, so a later look never
 * takes it back); the run stops when every reader has one or the budget ends.
 */
export async function untilVerdicts<K extends string>(
  admin: AdminClient,
  url: string,
  data: SimulationData,
  opts: RunOptions,
  readers: Record<K, (r: ReportView) => string>,
): Promise<{ outcomes: Record<K, { users: number; verdict: string }>; last: ReportView | null; counts: SimulationCounts }> {
  const list = (await admin.call<{ experiments: Array<{ id: string; state: string }> }>("GET", "/admin/experiments")).experiments;
  const running = list.find((e) => e.state === "running");
  if (!running) throw new Error("no running experiment: start one with npm run experiment -- start …");
  const counts: SimulationCounts = { searches: 0, clicks: 0, failed: 0 };
  const names = Object.keys(readers) as K[];
  const decided = new Map<K, { users: number; verdict: string }>();
  let users = 0;
  let last: ReportView | null = null;
  while (users < opts.maxUsers && decided.size < names.length) {
    const step = opts.growth && opts.growth > 1 ? Math.max(opts.checkEvery, Math.ceil(users * (opts.growth - 1))) : opts.checkEvery;
    const to = Math.min(opts.maxUsers, users + step);
    await simulateUsers(url, data, { seed: opts.seed, from: users, to, searchesPerUser: opts.searchesPerUser, concurrency: opts.concurrency }, counts);
    users = to;
    await new Promise((r) => setTimeout(r, 100)); // the last events land
    last = (await admin.call<{ report: ReportView }>("GET", `/admin/experiments/${running.id}`)).report;
    for (const k of names) {
      const verdict = readers[k](last);
      if (!decided.has(k) && verdict !== UNDECIDED) decided.set(k, { users, verdict });
    }
  }
  const outcomes = Object.fromEntries(names.map((k) => [k, decided.get(k) ?? { users, verdict: UNDECIDED }])) as Record<K, { users: number; verdict: string }>;
  return { outcomes, last, counts };
}

/** Users until the report's own verdict. */
export async function untilVerdict(admin: AdminClient, url: string, data: SimulationData, opts: RunOptions): Promise<VerdictOutcome> {
  let winner: number | null = null;
  const { outcomes, counts } = await untilVerdicts(admin, url, data, opts, {
    report: (r) => {
      winner = r.winner;
      return r.verdict;
    },
  });
  return { users: outcomes.report.users, verdict: outcomes.report.verdict, winner: outcomes.report.verdict === UNDECIDED ? null : winner, counts };
}
