/**
 * Click supervision (`npm run train -- --supervision clicks --events FILE`):
 * the queries users typed, each with the items its clicks, carts and
 * purchases graded relevant (training/clicks/), and the items judged at all.
 *
 * - Relevant: Exact and Partial. Judged: every item with a grade, Irrelevant
 *   included. An item never shown for the query, or shown where nobody looks,
 *   is unknown: the rewards count a retrieved unjudged item as a fraction
 *   of a false positive (`unknownWeight`, training/rewards.ts and
 *   core/reward.ts): 0 would make it free (the policy then retrieves
 *   everything), 1 irrelevant (a round is punished for relevant items the
 *   old round never showed); README "Learning from clicks" measures both.
 * - Clicks have no dev split: every clicked query trains. Dev stays the
 *   hand-labelled dev split when the folder has labels, and a query typed
 *   exactly as a dev query is left out of training (data discipline: dev is
 *   evaluated, never trained on). Without labels, a seeded tenth of the click
 *   queries is held out for the F1 printed after each phase.
 */
import { existsSync, statSync } from "node:fs";
import { normalizeKeyword } from "../../core/normalize.js";
import { Rng } from "../../core/rng.js";
import { type ClickRelevance, deriveClickRelevance } from "../clicks/derive.js";
import { DataError, type Query } from "../data/types.js";
import { readLines } from "../jsonl.js";

export interface ClickQueries {
  readonly train: Query[];
  readonly heldOut: Query[];
  readonly relevant: Map<string, Set<string>>;
  readonly judged: Map<string, Set<string>>;
  readonly stats: { readonly queries: number; readonly withoutRelevant: number; readonly devTexts: number; readonly unknownItems: number };
}

export const CLICK_SUPERVISION = {
  heldOutShare: 0.1,
  idPrefix: "click:",
  /**
   * What an unjudged retrieved item weighs in |I_ret| (0: missing, 1: irrelevant). Chosen on the WANDS training
   * queries' labels, which the click-trained rounds never saw (README "Learning from clicks"); dev not consulted.
   */
  unknownWeight: 0.5,
} as const;

const derived = new Map<string, ClickRelevance>();

/** Derives relevance from an event file (two streamed passes), once per file version in a process. */
export function clickRelevanceOf(file: string): ClickRelevance {
  if (!existsSync(file)) throw new DataError(`${file}: no such event file (npm run events:export writes one)`);
  const st = statSync(file);
  const key = `${file}\u0000${st.size}\u0000${st.mtimeMs}`;
  let r = derived.get(key);
  if (!r) {
    r = deriveClickRelevance(() => readLines(file));
    derived.set(key, r);
  }
  return r;
}

export function clickQueries(
  rel: ClickRelevance,
  productIds: ReadonlySet<string>,
  devTexts: ReadonlySet<string>,
  holdOut: boolean,
  seed: number,
): ClickQueries {
  const relevant = new Map<string, Set<string>>();
  const judged = new Map<string, Set<string>>();
  const queries: Query[] = [];
  let withoutRelevant = 0;
  let dev = 0;
  let unknownItems = 0;
  let j = 0;
  while (j < rel.pairs.length) {
    const text = (rel.pairs[j] as { query: string }).query;
    const r = new Set<string>();
    const g = new Set<string>();
    for (; j < rel.pairs.length && rel.pairs[j]?.query === text; j++) {
      const p = rel.pairs[j] as ClickRelevance["pairs"][number];
      if (p.grade === null) continue;
      if (!productIds.has(p.itemId)) {
        unknownItems++;
        continue;
      }
      g.add(p.itemId);
      if (p.grade !== "Irrelevant") r.add(p.itemId);
    }
    if (devTexts.has(normalizeKeyword(text))) {
      dev++;
      continue;
    }
    if (r.size === 0) {
      withoutRelevant++;
      continue;
    }
    const id = `${CLICK_SUPERVISION.idPrefix}${queries.length}`;
    queries.push({ id, text, class: "" });
    relevant.set(id, r);
    judged.set(id, g);
  }
  let train = queries;
  let heldOut: Query[] = [];
  if (holdOut && queries.length >= 10) {
    const shuffled = new Rng(seed).shuffle(queries);
    const n = Math.max(1, Math.round(queries.length * CLICK_SUPERVISION.heldOutShare));
    const out = new Set(shuffled.slice(0, n).map((q) => q.id));
    heldOut = queries.filter((q) => out.has(q.id));
    train = queries.filter((q) => !out.has(q.id));
  }
  return { train, heldOut, relevant, judged, stats: { queries: queries.length, withoutRelevant, devTexts: dev, unknownItems } };
}
