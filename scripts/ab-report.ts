/**
 * `npm run ab-report [-- --id ID --url URL --json]`: the running (else the
 * newest) experiment's report from the admin API: the per-arm table, each
 * treatment against control (difference with its 95 % interval, z-test p,
 * the always-valid p and confidence sequence, MDE), interleaving
 * preferences, SRM, and the verdict.
 */
import { adminClient, DEFAULT_URL } from "./admin-client.js";
import { printTable } from "./bench/stats.js";
import { parseCli, runCli } from "./cli.js";

const USAGE = "npm run ab-report [-- --id ID --url URL --json]";
const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
const p = (x: number) => (x < 1e-4 ? x.toExponential(1) : x.toFixed(4));
/** A count: weighted counts (per network prefix) are fractional. */
const n = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

type Report = {
  arms: Array<{
    arm: string;
    searches: number;
    users: number;
    counted: { searches: number; users: number };
    ctr: number;
    zeroResultRate: number;
    errorRate: number;
    fallbackRate: number;
    p50LatencyMs: number;
    p95LatencyMs: number;
  }>;
  comparisons: Array<{
    arm: string;
    ctr: { z: { difference: number; ci95: number[]; pValue: number }; sequential: { confidenceSequence: number[] }; alwaysValidP: number; mde: number | null };
    cuped: { varianceReduction: number; sequential: { difference: number; confidenceSequence: number[] }; alwaysValidP: number };
    verdict: string;
  }>;
  interleaving: {
    wins: number;
    losses: number;
    ties: number;
    signTestP: number;
    credited: { wins: number; losses: number };
    users: { decided: number; meanPreference: number };
    sequential: { confidenceSequence: number[] };
    alwaysValidP: number;
    verdict: string;
  } | null;
  srm: { chiSquare: number; pValue: number; mismatch: boolean };
  verdict: string;
  winner: number | null;
};

runCli(async () => {
  const args = parseCli({ id: { type: "string" }, url: { type: "string" }, json: { type: "boolean" } }, USAGE);
  const client = adminClient(args.url ?? DEFAULT_URL);
  let id = args.id;
  if (!id) {
    const list = (await client.call<{ experiments: Array<{ id: string; state: string }> }>("GET", "/admin/experiments")).experiments;
    id = (list.find((e) => e.state === "running") ?? list[0])?.id;
    if (!id) throw new Error("no experiment yet: npm run experiment -- start …");
  }
  const detail = await client.call<{ experiment: { id: string; design: string; state: string; control: number }; report: Report }>(
    "GET",
    `/admin/experiments/${encodeURIComponent(id)}`,
  );
  if (args.json) {
    console.log(JSON.stringify(detail.report, null, 2));
    return;
  }
  const { experiment: e, report: r } = detail;
  console.log(`experiment ${e.id} (${e.design}, ${e.state}), control round ${e.control}\n`);
  printTable(
    r.arms.map((a) => ({
      arm: a.arm,
      users: String(a.users),
      "counted users": n(a.counted.users),
      searches: String(a.searches),
      "counted searches": n(a.counted.searches),
      CTR: pct(a.ctr),
      "zero-result": pct(a.zeroResultRate),
      errors: pct(a.errorRate),
      fallback: pct(a.fallbackRate),
      "p50 ms": a.p50LatencyMs.toFixed(1),
      "p95 ms": a.p95LatencyMs.toFixed(1),
    })),
  );
  if (r.comparisons.length > 0) {
    console.log("\nCTR (searches with a click) against control:");
    printTable(
      r.comparisons.map((c) => ({
        arm: c.arm,
        difference: `${(100 * c.ctr.z.difference).toFixed(2)} pt`,
        "95 % CI": `[${(100 * (c.ctr.z.ci95[0] ?? 0)).toFixed(2)}, ${(100 * (c.ctr.z.ci95[1] ?? 0)).toFixed(2)}] pt`,
        "z-test p": p(c.ctr.z.pValue),
        "always-valid p": p(c.ctr.alwaysValidP),
        "95 % confidence sequence": `[${(100 * (c.ctr.sequential.confidenceSequence[0] ?? 0)).toFixed(2)}, ${(100 * (c.ctr.sequential.confidenceSequence[1] ?? 0)).toFixed(2)}] pt`,
        MDE: c.ctr.mde === null ? "∞" : `${(100 * c.ctr.mde).toFixed(2)} pt`,
      })),
    );
    console.log("\nper user, CUPED-adjusted by the CTR of the queries typed (what the verdict reads):");
    const cs = (c: { confidenceSequence: number[] }) =>
      `[${(100 * (c.confidenceSequence[0] ?? 0)).toFixed(2)}, ${(100 * (c.confidenceSequence[1] ?? 0)).toFixed(2)}] pt`;
    printTable(
      r.comparisons.map((c) => ({
        arm: c.arm,
        difference: `${(100 * c.cuped.sequential.difference).toFixed(2)} pt`,
        "variance removed": pct(c.cuped.varianceReduction),
        "always-valid p": p(c.cuped.alwaysValidP),
        "95 % confidence sequence": cs(c.cuped.sequential),
        verdict: c.verdict,
      })),
    );
  }
  if (r.interleaving) {
    const i = r.interleaving;
    console.log(
      `\ninterleaving (counted): treatment wins ${n(i.wins)}, loses ${n(i.losses)}, ties ${n(i.ties)}; sign test p = ${p(i.signTestP)}` +
        `\ncredited clicks only (items one round alone ranked): wins ${n(i.credited.wins)}, losses ${n(i.credited.losses)}; ` +
        `${n(i.users.decided)} users decided, mean preference ${i.users.meanPreference.toFixed(3)} ` +
        `[${(i.sequential.confidenceSequence[0] ?? 0).toFixed(3)}, ${(i.sequential.confidenceSequence[1] ?? 0).toFixed(3)}]; always-valid p = ${p(i.alwaysValidP)}`,
    );
  }
  console.log("\nrates, tests and SRM count each network prefix for at most a few users and searches (the counted columns).");
  console.log(
    `\nSRM: chi-square ${r.srm.chiSquare.toFixed(2)}, p = ${p(r.srm.pValue)}${r.srm.mismatch ? "  ← MISMATCH (p < 0.001): the split is broken" : ""}`,
  );
  console.log(`verdict: ${r.verdict}${r.winner !== null ? ` (round ${r.winner})` : ""}`);
});
