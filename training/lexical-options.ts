/**
 * The `lexical` backend's options, defaults and run state, and its phases as
 * values: Phase 1 (`sft`), then a query and an item phase per round.
 */
import type { MetricSummary } from "../core/metrics.js";
import type { PolicyParams } from "../core/policy-features.js";
import type { RankerSpec } from "../core/ranker.js";
import type { Checkpoint } from "./checkpoint.js";
import type { Supervision } from "./supervision/supervision.js";

export const TRAIN_DEFAULTS = {
  rounds: 5,
  seed: 42,
  epochs: { sft: 3, query: 20, item: 5 },
  batch: { sft: 256, query: 64, item: 256 },
  groupSize: 8,
  lr: { sft: 0.1, query: 0.05, item: 0.05 },
  evalEverySteps: 10,
  /**
   * The most items an item-side phase's steps visit (Phase 1's and the item
   * phase's, training/lexical-phases.ts trainedItems): a larger catalogue
   * trains on a seeded sample of this many and still decodes every item. The
   * item policy is a few dozen shared feature weights (and keyword weights), so
   * 100k items' steps fit it as well as a million's at a tenth of the time.
   */
  itemsTrainedMax: 100_000,
  /** Seeded misspelled copies of each training query in the query phase (training/lexical-phases.ts withTypoCopies). */
  typoCopies: 1,
} as const;

export interface Ablations {
  readonly noSft: boolean;
  readonly sharedGenerator: boolean;
  readonly itemReward: "marginal" | "transposed-f1";
  readonly freezeItems: boolean;
  /** Train and ship a query policy without search hints (§4.5's "+ Search Results" off). */
  readonly noHints: boolean;
}

export interface TrainOptions {
  readonly rounds: number;
  readonly seed: number;
  readonly fromRound: number;
  readonly epochs: { readonly sft: number; readonly query: number; readonly item: number };
  readonly ablations: Ablations;
  readonly artifactsRoot: string;
  /** The ranker the written rounds' word postings hold (core/ranker.ts); `--cv` chooses it. Default: the keyword bag. */
  readonly ranker?: RankerSpec;
  /**
   * How the query policy's rollouts decide (core/set-policy.ts): each
   * candidate alone (default: 5-fold cross-validation at seed 42 preferred
   * it, held-out F1 0.5204 against 0.5042), or in sequence, seeing the set so far.
   */
  readonly queryDecoding?: "independent" | "sequential";
  /**
   * Where the queries and relevance come from (training/supervision/supervision.ts):
   * hand labels (default), pseudo-queries from the catalogue alone, or both.
   */
  readonly supervision?: Supervision;
  /** Click supervision: the event file (npm run events:export) the relevance is derived from. */
  readonly clickEvents?: string;
  /** Click supervision: what an unjudged retrieved item weighs in |I_ret| (default CLICK_SUPERVISION.unknownWeight). */
  readonly clickUnknownWeight?: number;
  /**
   * Run the item phase's GRPO data-parallel on this many worker threads
   * (training/parallel/): chunked map and ordered reduce, so the rounds are
   * the same for any number ≥ 1 (they differ from the serial default's in
   * the last bits: other seeds per chunk and another order of the sums).
   */
  readonly workers?: number;
  /** The most items an item-side phase's steps visit (default TRAIN_DEFAULTS.itemsTrainedMax; `--items-trained N`). */
  readonly itemsTrainedMax?: number;
}

export interface TrainProgress {
  phaseStart(phase: string, steps: number): void;
  step(stats: { meanReward?: number; loss?: number; devF1?: number }): void;
  phaseEnd(phase: string, summary: { dev: MetricSummary; train: MetricSummary }): void;
  /** Called once a phase's checkpoint is on disk. */
  checkpointed?(phase: string): void;
  /** A step inside a phase's set-up is done (bench:train reports the time and memory between two). */
  mark?(what: string): void;
}

export interface State {
  query: PolicyParams;
  item: PolicyParams;
  checkpoint: Checkpoint;
}

export type Phase = { readonly side: "sft" } | { readonly side: "query" | "item"; readonly round: number };

/** A phase's name in checkpoints, history and progress: "sft", "query-3", "item-3". */
export const phaseName = (p: Phase) => (p.side === "sft" ? "sft" : `${p.side}-${p.round}`);

/** The round a phase belongs to (Phase 1 belongs to the starting round). */
export const phaseRound = (p: Phase, opts: TrainOptions) => (p.side === "sft" ? opts.fromRound : p.round);

/** A round is complete (and written) after its item phase, or its query phase when the items are frozen. */
export const writesRound = (p: Phase, opts: TrainOptions) => p.side === "item" || (p.side === "query" && opts.ablations.freezeItems);

export function phasesOf(opts: TrainOptions): Phase[] {
  const out: Phase[] = opts.ablations.noSft || opts.fromRound > 0 ? [] : [{ side: "sft" }];
  for (let r = opts.fromRound + 1; r <= opts.fromRound + opts.rounds; r++) {
    out.push({ side: "query", round: r });
    if (!opts.ablations.freezeItems) out.push({ side: "item", round: r });
  }
  return out;
}
