/** Writes a trained round of the `lexical` backend: its item sets, served index, query policy and both policies. */

import { HINT_LIMITS } from "../core/hints.js";
import type { MetricSummary } from "../core/metrics.js";
import { policySpec } from "../core/policy-spec.js";
import { policyGeneratorSpec } from "../core/query-generator.js";
import { KEYWORD_RANKER } from "../core/ranker.js";
import { REWARD_LIMITS } from "../core/reward.js";
import { saveParams } from "./checkpoint.js";
import { CLICK_GRADES } from "./clicks/relevance.js";
import { SPAM_RULES } from "./clicks/spam.js";
import { roundItems, type TrainData } from "./lexical-data.js";
import { type State, TRAIN_DEFAULTS, type TrainOptions } from "./lexical-options.js";
import { itemVocabulary, servedIndex } from "./lexical-phases.js";
import { writeRound } from "./round-artifact.js";
import { PSEUDO_QUERY_BUDGETS } from "./supervision/catalog-queries.js";
import type { SupervisedQueries } from "./supervision/supervision.js";

export function writeTrainedRound(
  data: TrainData,
  state: State,
  itemSets: string[][],
  round: number,
  split: Parameters<typeof writeRound>[0]["split"],
  opts: TrainOptions,
  summary: { dev: MetricSummary; train: MetricSummary },
  queries?: Pick<SupervisedQueries, "pseudo" | "clicks">,
): void {
  const pseudo = queries?.pseudo;
  const clicks = queries?.clicks;
  const vocab = itemVocabulary(data, itemSets);
  const supervision = opts.supervision ?? "labels";
  // What the F1 after each phase was scored on, when it is not the hand-labelled dev split.
  const heldOut = supervision === "catalog" ? "Pseudo" : clicks && clicks.heldOut > 0 ? "Clicks" : null;
  const phases = state.checkpoint.phaseMetrics.filter((m) => m.round === round);
  writeRound(
    {
      round,
      split,
      config: {
        generator: "lexical-policy",
        backend: "lexical",
        seed: opts.seed,
        fromRound: opts.fromRound,
        epochs: opts.epochs,
        ablations: opts.ablations,
        hyper: TRAIN_DEFAULTS,
        ranker: opts.ranker ?? KEYWORD_RANKER,
        queryDecoding: opts.queryDecoding ?? "independent",
        supervision,
        // Data-parallel item phases (training/parallel/): recorded without the worker count, which does not change the round.
        ...(opts.workers !== undefined ? { itemPhase: "map-reduce" } : {}),
        ...(pseudo ? { pseudoQueries: { ...pseudo, budgets: PSEUDO_QUERY_BUDGETS } } : {}),
        ...(clicks ? { clicks: { ...clicks, grades: CLICK_GRADES, spam: SPAM_RULES } } : {}),
      },
      items: roundItems(data, itemSets),
      index: servedIndex(data, itemSets, opts),
      queryGenerator: policyGeneratorSpec(
        policySpec("query", state.query, vocab, REWARD_LIMITS.kMax, opts.ablations.noHints ? undefined : { topK: HINT_LIMITS.topK }),
      ),
      // Catalogue-only rounds never saw a hand label: what training scored them on is held-out pseudo-queries, recorded
      // under its own name so nothing (the experiment CLI's offline gate) takes it for dev F1 on the labelled split.
      // Click rounds without labels likewise record held-out click queries.
      metrics: heldOut
        ? {
            supervision,
            [`heldOut${heldOut}`]: summary.dev,
            [`train${heldOut}`]: summary.train,
            phases: phases.map((m) => ({ phase: m.phase, round: m.round, [`heldOut${heldOut}`]: m.dev, [`train${heldOut}`]: m.train })),
          }
        : { supervision, dev: summary.dev, train: summary.train, phases },
      extraFiles: { "policies.json": JSON.stringify({ query: saveParams(state.query), item: saveParams(state.item) }) },
    },
    opts.artifactsRoot,
  );
}
