/**
 * The frozen environment one verl phase is rewarded against, loaded once per
 * service (App. B.3: the reference state is cached per item-side phase).
 *
 *   side "query", round R: the item index of round R (S_i ∪ {i}); each
 *     sample's S_q is scored by eq. 2.2 (training/rewards.ts queryRewardFn);
 *   side "item", round R: round R's items as the reference state and its
 *     training queries' S_q ∪ {q} as the frozen query index — from the
 *     round's precomputed query keywords (an LLM round) or its CPU
 *     generator — scored by eq. 2.3 through core's ItemRewardContext.
 *
 * Answers are parsed with core's parser without a cap, so that an answer
 * over K_max gets the budget penalty (0 or −1) instead of being truncated.
 */

import { itemKeywordSet } from "../../core/inverted-index.js";
import { parseKeywords } from "../../core/keyword-answer.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { loadQueryGenerator } from "../../core/query-generator.js";
import { ItemRewardContext } from "../../core/reward.js";
import type { Dataset, Query } from "../data/types.js";
import { readQueryKeywords } from "../llm/query-keywords.js";
import { FrozenIndex, queryRewardFn } from "../rewards.js";
import { artifactsDir, readRound } from "../round-artifact.js";

export type RewardSide = "query" | "item";
export const DATA_SOURCES = { query: "cogr/query", item: "cogr/item" } as const;

export interface RewardSample {
  readonly data_source: string;
  readonly solution_str: string;
  /** The query id (query side) or item id (item side) the bundle's row was built for. */
  readonly ground_truth: unknown;
  readonly extra_info?: unknown;
}

export class SampleError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}

export interface RewardEnvironment {
  readonly side: RewardSide;
  readonly round: number;
  readonly items: number;
  readonly queries: number;
  /** One row of the bundle's dataset, for `cogr_reward.py --check`. */
  readonly sample: RewardSample;
  score(sample: RewardSample, index: number): number;
}

/** The training queries of a round's split that have a relevant item in its index (as the bundles' rows), in split order. */
export function trainingQueries(dataset: Dataset, split: { readonly train: readonly string[] }, ids: readonly string[]) {
  const byId = new Map(dataset.queries.map((q) => [q.id, q]));
  const ordinal = new Map(ids.map((id, j) => [id, j]));
  const out: Array<{ query: Query; relevant: Set<number> }> = [];
  for (const qid of split.train) {
    const query = byId.get(qid);
    if (!query) continue;
    const relevant = new Set<number>();
    for (const pid of dataset.relevant.get(qid) ?? []) {
      const o = ordinal.get(pid);
      if (o !== undefined) relevant.add(o);
    }
    if (relevant.size > 0) out.push({ query, relevant });
  }
  return out;
}

function idOf(sample: RewardSample, index: number): string {
  const g = sample.ground_truth;
  if (typeof g === "string" && g !== "") return g;
  throw new SampleError(index, `samples[${index}].ground_truth must be the row's id (a non-empty string)`);
}

export function loadEnvironment(dataset: Dataset, side: RewardSide, round: number, root = artifactsDir()): RewardEnvironment {
  const r = readRound(round, root);
  const ids = r.index.ids;
  const byItemId = new Map(r.items.map((i) => [i.id, i]));
  const itemSets = ids.map((id) => itemKeywordSet({ name: byItemId.get(id)?.name ?? "", keywords: byItemId.get(id)?.keywords ?? [] }));
  const train = trainingQueries(dataset, r.manifest.split, ids);
  const queryOrdinal = new Map(train.map((t, j) => [t.query.id, j]));
  const check = (sample: RewardSample, index: number) => {
    if (sample.data_source !== DATA_SOURCES[side]) {
      throw new SampleError(index, `samples[${index}].data_source is ${JSON.stringify(sample.data_source)}; this service scores ${DATA_SOURCES[side]}`);
    }
  };
  if (side === "query") {
    const fn = queryRewardFn(
      new FrozenIndex(itemSets),
      train.map((t) => ({ text: t.query.text, relevant: t.relevant })),
    );
    const first = train[0];
    return {
      side,
      round,
      items: ids.length,
      queries: train.length,
      sample: { data_source: DATA_SOURCES.query, solution_str: JSON.stringify([first?.query.text ?? ""]), ground_truth: first?.query.id ?? "" },
      score(sample, index) {
        check(sample, index);
        const id = idOf(sample, index);
        const q = queryOrdinal.get(id);
        if (q === undefined) throw new SampleError(index, `samples[${index}]: ${JSON.stringify(id)} is not a training query of round ${round}`);
        return fn(q, parseKeywords(sample.solution_str, Number.POSITIVE_INFINITY));
      },
    };
  }
  const precomputed = readQueryKeywords(round, root);
  const generate = r.queryGenerator.kind === "llm" ? null : loadQueryGenerator(r.queryGenerator, r.index);
  const querySets = train.map((t) => {
    const norm = normalizeKeyword(t.query.text);
    const line = precomputed.get(norm);
    const s = line ? line.keywords : generate?.(t.query.text);
    if (!s) throw new Error(`round ${round} has no query keywords for training query ${t.query.id}: build it with npm run index -- --queries train (or all)`);
    return [...new Set([...s, norm])].filter((k) => k !== "");
  });
  const ctx = new ItemRewardContext({
    itemSets,
    itemNames: ids.map((id) => normalizeKeyword(byItemId.get(id)?.name ?? "")),
    querySets,
    relevant: train.map((t) => t.relevant),
  });
  const itemOrdinal = new Map(ids.map((id, j) => [id, j]));
  const firstItem = byItemId.get(ids[0] ?? "");
  return {
    side,
    round,
    items: ids.length,
    queries: train.length,
    sample: { data_source: DATA_SOURCES.item, solution_str: JSON.stringify(firstItem?.keywords ?? []), ground_truth: ids[0] ?? "" },
    score(sample, index) {
      check(sample, index);
      const id = idOf(sample, index);
      const i = itemOrdinal.get(id);
      if (i === undefined) throw new SampleError(index, `samples[${index}]: ${JSON.stringify(id)} is not an item of round ${round}`);
      return ctx.reward(i, parseKeywords(sample.solution_str, Number.POSITIVE_INFINITY));
    },
  };
}
