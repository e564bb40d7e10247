/**
 * Who may read an experiment's dashboard. An ended experiment (promoted,
 * rolled back, stopped) is public: its arms no longer decide what anyone is
 * served. A live one (running or paused) shows its arms, figures and
 * history only in the admin view (the admin token, as the search API's admin
 * view, middleware/admin-view.ts): knowing which round an arm serves, or
 * watching a verdict form, lets a client steer its own traffic. The salt and
 * the hashed network prefixes are never shown to anyone here (the admin API
 * has them).
 */
import type { Experiment } from "./config.js";
import { ENDED_STATES } from "./store.js";

export const isDisclosed = (e: Experiment, adminView: boolean) => adminView || ENDED_STATES.has(e.state);

export function summaryOf(e: Experiment, adminView: boolean) {
  const disclosed = isDisclosed(e, adminView);
  return {
    id: e.id,
    design: e.design,
    state: e.state,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    disclosed,
    arms: disclosed ? e.arms.map((a) => ({ round: a.round, weight: a.weight })) : null,
    control: disclosed ? e.control : null,
    interleaveShareBp: disclosed && e.design === "interleave" ? e.interleaveShareBp : null,
    winner: disclosed ? (e.winner ?? null) : null,
  };
}
