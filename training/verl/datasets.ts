/**
 * The rows of a verl bundle, built from the training split only.
 *
 *   query side: one row per training query with a relevant item in the
 *     round's index; ground_truth = the query id the reward service scores;
 *   item side: one row per item of the round; ground_truth = the item id;
 *   SFT (Alg. 1): item targets are the M = 10 base keywords of round 0's
 *     extractor, query targets the top-N = 15 keywords pooled over the
 *     relevant items' targets: exactly the `lexical` backend's targets
 *     (training/lexical-data.ts baseItemSets and sftQueryTargets).
 *
 * Validation rows are a fixed sample of the training rows (monitoring only):
 * the dev queries are never rewarded during training.
 */
import { formatKeywords } from "../../core/keyword-answer.js";
import { itemPrompt, PROMPTS, queryPrompt } from "../../core/prompts.js";
import { Rng } from "../../core/rng.js";
import type { Dataset } from "../data/types.js";
import { prepareData, sftQueryTargets } from "../lexical-data.js";
import { DATA_SOURCES, trainingQueries } from "../reward-service/environment.js";
import type { Round } from "../round-artifact.js";
import type { RlRow, SftRow } from "./parquet.js";

export const VAL_ROWS = { query: 32, item: 64, sft: 32 } as const;
const ABILITY = "keyword-generation";

export function queryRows(dataset: Dataset, round: Round): RlRow[] {
  return trainingQueries(dataset, round.manifest.split, round.index.ids).map(({ query }, index) => ({
    data_source: DATA_SOURCES.query,
    prompt: [{ role: "user", content: queryPrompt(PROMPTS, query.text) }],
    ability: ABILITY,
    reward_model: { style: "rule", ground_truth: query.id },
    extra_info: { side: "query", round: round.manifest.round, id: query.id, index },
  }));
}

export function itemRows(dataset: Dataset, round: Round): RlRow[] {
  const byId = new Map(dataset.products.map((p) => [p.id, p]));
  return round.index.ids.map((id, index) => {
    const p = byId.get(id);
    if (!p) throw new Error(`round ${round.manifest.round} indexes product ${id}, which COGR_DATA lacks`);
    return {
      data_source: DATA_SOURCES.item,
      prompt: [{ role: "user", content: itemPrompt(PROMPTS, { title: p.name, description: p.description }) }],
      ability: ABILITY,
      reward_model: { style: "rule", ground_truth: id },
      extra_info: { side: "item", round: round.manifest.round, id, index },
    };
  });
}

/** Alg. 1's SFT pairs, from round 0 (the extractor's round). */
export function sftRows(dataset: Dataset, round0: Round): { query: SftRow[]; item: SftRow[] } {
  const data = prepareData(dataset, round0);
  const targets = sftQueryTargets(data, data.baseItemSets);
  return {
    query: data.train.map((q, j) => ({ prompt: queryPrompt(PROMPTS, q.text), response: formatKeywords([...(targets[j] ?? [])]) })),
    item: data.items.map((it, j) => ({
      prompt: itemPrompt(PROMPTS, { title: it.product.name, description: it.product.description }),
      response: formatKeywords(data.baseItemSets[j] ?? []),
    })),
  };
}

/** A fixed sample (seeded) of rows for verl's validation pass. */
export function validationSample<T>(rows: readonly T[], n: number, seed = 1): T[] {
  return new Rng(seed)
    .shuffle(rows.map((_, j) => j))
    .slice(0, Math.min(n, rows.length))
    .sort((a, b) => a - b)
    .map((j) => rows[j] as T);
}
