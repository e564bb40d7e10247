/** The derivation's report as lines for a terminal: what events:export and train --supervision clicks print. */
import type { DeriveReport } from "./derive.js";

export function formatDeriveReport(r: DeriveReport): string {
  const bad = Object.entries(r.bad).map(([why, n]) => `${n} ${why}`);
  const dropped = Object.entries(r.dropped).map(([why, n]) => `${n} ${why}`);
  const discounted = Object.entries(r.discounted).map(([why, d]) => `${d.keys} keys for ${why} (${d.feedback} feedback events)`);
  const theta = r.propensity
    .slice(0, 10)
    .map((t, k) => `${k + 1}:${t.toFixed(3)}`)
    .join(" ");
  return [
    `events: ${r.searches} searches, ${r.feedback.click} clicks, ${r.feedback.add_to_cart} add-to-cart, ${r.feedback.purchase} purchases from ${r.keys} user keys (median click rate ${r.medianClickRate.toFixed(3)} a search)`,
    `dropped: ${[...bad, ...dropped].join(", ") || "none"}`,
    `discounted: ${discounted.join(", ")}`,
    `examination propensity by position (PBM, EM): ${theta || "none (no impressions)"}`,
    `relevance: ${r.pairs} (query, item) pairs shown, ${r.judged} judged: ${r.grades.Exact} Exact, ${r.grades.Partial} Partial, ${r.grades.Irrelevant} Irrelevant; the rest unknown`,
  ].join("\n");
}
