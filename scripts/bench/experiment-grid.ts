/**
 * bench:experiments' sensitivity grid: for each effect size (a `--drop`
 * share of the control's keyword postings removed) and seed, one A/B 50/50
 * experiment read by two statistics (plain per-search CTR, and per-user CTR
 * with CUPED) and one interleaving experiment; then A/A runs (control
 * against an identical copy of itself). Users until each statistic's
 * verdict, and the median ratios.
 */
import type { AdminClient } from "../admin-client.js";
import { type ReportView, type RunOptions, untilVerdicts, verdictFrom } from "../simulate/experiment-run.js";
import type { SimulationData } from "../simulate/traffic.js";
import { printTable } from "./stats.js";

const UNDECIDED = "no detectable difference yet";
export const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Each statistic's verdict, from the report's running-minimum always-valid p-values. */
const READERS = {
  ab: (r: ReportView) => {
    const c = r.comparisons[0];
    return c ? verdictFrom(c.ctr.alwaysValidP, c.ctr.z.difference) : UNDECIDED;
  },
  cuped: (r: ReportView) => {
    const c = r.comparisons[0];
    return c ? verdictFrom(c.cuped.alwaysValidP, c.cuped.sequential.difference) : UNDECIDED;
  },
  il: (r: ReportView) => (r.interleaving ? verdictFrom(r.interleaving.alwaysValidP, r.interleaving.sequential.difference) : UNDECIDED),
} as const;

export interface GridSetup {
  readonly admin: AdminClient;
  readonly url: string;
  readonly data: SimulationData;
  readonly control: number;
  readonly opts: Omit<RunOptions, "seed" | "maxUsers">;
}

async function experiment<K extends keyof typeof READERS>(g: GridSetup, body: Record<string, unknown>, seed: number, maxUsers: number, keys: readonly K[]) {
  const { experiment } = await g.admin.call<{ experiment: { id: string } }>("POST", "/admin/experiments", body);
  const readers = Object.fromEntries(keys.map((k) => [k, READERS[k]])) as Record<K, (r: ReportView) => string>;
  const { outcomes, last } = await untilVerdicts(g.admin, g.url, g.data, { ...g.opts, seed, maxUsers }, readers);
  await g.admin.call("POST", `/admin/experiments/${experiment.id}/rollback`, { reason: "benchmark run over" });
  return { ...outcomes, ctrGap: last?.comparisons[0]?.ctr.z.difference ?? Number.NaN };
}

const ab = (g: GridSetup, treatment: number) => ({
  design: "ab",
  arms: [
    { round: g.control, weight: 5000 },
    { round: treatment, weight: 5000 },
  ],
  control: g.control,
});

const cell = (o: { users: number; verdict: string }, right: string) =>
  o.verdict === UNDECIDED ? `> ${o.users.toLocaleString("en")}` : `${o.users.toLocaleString("en")}${o.verdict === right ? "" : ` (${o.verdict}!)`}`;

/** One effect size: every seed's A/B (both statistics) and interleaving run. The degraded treatment is worse, so "treatment worse" is the right verdict. */
/** The CTR gap is the A/B run's per-search CTR difference (treatment − control) at its last look. */
export async function sensitivity(g: GridSetup, treatment: number, label: string, seeds: readonly number[], maxUsers: number) {
  const right = "treatment worse";
  const rows: Array<Record<string, string>> = [];
  const ratios = { il: [] as number[], cuped: [] as number[] };
  let wrong = 0;
  for (const seed of seeds) {
    const a = await experiment(g, ab(g, treatment), seed, maxUsers, ["ab", "cuped"]);
    const i = await experiment(g, { design: "interleave", control: g.control, treatment }, seed + 1000, maxUsers, ["il"]);
    for (const o of [a.ab, a.cuped, i.il]) if (o.verdict !== UNDECIDED && o.verdict !== right) wrong++;
    // An undecided run counts at its budget: the ratio is then a bound, and said so in the row.
    ratios.il.push(a.ab.users / i.il.users);
    ratios.cuped.push(a.ab.users / a.cuped.users);
    rows.push({
      effect: label,
      seed: String(seed),
      "CTR gap": `${(100 * a.ctrGap).toFixed(1)} pt`,
      "A/B": cell(a.ab, right),
      "A/B + CUPED": cell(a.cuped, right),
      interleaving: cell(i.il, right),
      "A/B ÷ CUPED": (a.ab.users / a.cuped.users).toFixed(2),
      "A/B ÷ interleaving": (a.ab.users / i.il.users).toFixed(1),
    });
    console.log(
      `${label}, seed ${seed}: CTR gap ${(100 * a.ctrGap).toFixed(2)} pt; A/B ${a.ab.users} (${a.ab.verdict}), CUPED ${a.cuped.users} (${a.cuped.verdict}), interleaving ${i.il.users} (${i.il.verdict})`,
    );
  }
  return { rows, ratios, wrong, undecided: rows.filter((r) => Object.values(r).some((v) => v.startsWith(">"))).length };
}

/** A/A: control against an identical copy, to `users` users: any verdict is a false positive. */
export async function aa(g: GridSetup, copy: number, seeds: readonly number[], users: number, withInterleaving: boolean) {
  const fp = { ab: 0, cuped: 0, il: 0 };
  for (const seed of seeds) {
    const a = await experiment(g, ab(g, copy), seed + 2000, users, ["ab", "cuped"]);
    if (a.ab.verdict !== UNDECIDED) fp.ab++;
    if (a.cuped.verdict !== UNDECIDED) fp.cuped++;
    let il = "not run";
    if (withInterleaving) {
      const i = await experiment(g, { design: "interleave", control: g.control, treatment: copy }, seed + 3000, users, ["il"]);
      if (i.il.verdict !== UNDECIDED) fp.il++;
      il = `${i.il.verdict} after ${i.il.users}`;
    }
    console.log(`A/A seed ${seed}: A/B ${a.ab.verdict} after ${a.ab.users}, CUPED ${a.cuped.verdict} after ${a.cuped.users}, interleaving ${il}`);
  }
  return fp;
}

export function printGrid(rows: ReadonlyArray<Record<string, string>>): void {
  printTable(rows);
}
