/**
 * The `lexical` backend: Phase 1 (Alg. 1, supervised init of both policies)
 * then alternating GRPO rounds (Alg. 2): the query policy against the frozen
 * item index (eq. 2.2), then the item policy against the frozen query index
 * (eq. 2.3, App. B.3). Each round writes artifacts/rounds/N in the round format.
 */
import { join } from "node:path";
import { getOrInsert } from "../core/collections.js";
import { HINT_LIMITS, type HintSource, indexHintSource } from "../core/hints.js";
import type { KeywordIndex } from "../core/inverted-index.js";
import type { MetricSummary } from "../core/metrics.js";
import { FEATURES, newParams, POLICY_VERSION, type PolicyParams, type PolicyVocabulary, queryCandidates } from "../core/policy.js";
import { policySpec } from "../core/policy-spec.js";
import { policyGeneratorSpec, type QueryGenerator } from "../core/query-generator.js";
import { KEYWORD_RANKER, type RankerSpec } from "../core/ranker.js";
import { ItemRewardContext, REWARD_LIMITS } from "../core/reward.js";
import { Rng } from "../core/rng.js";
import { decodeQuery } from "../core/set-policy.js";
import { type Checkpoint, type HistoryPoint, loadParams, readCheckpoint, saveParams, writeCheckpoint } from "./checkpoint.js";
import type { Dataset } from "./data/wands.js";
import { evaluateKeywords } from "./evaluate.js";
import {
  buildItemIndex,
  carryOver,
  decodeItemSets,
  decodeQueries,
  itemCandidates,
  itemIndexSets,
  itemSetsOf,
  itemSideVocabulary,
  prepareData,
  queryCandidateSets,
  queryIndexSets,
  querySideVocabulary,
  roundItems,
  sftQueryTargets,
  type TrainData,
} from "./lexical-data.js";
import { newAdamState } from "./optimizer.js";
import { epochBatches, grpoStep, sftStep } from "./phase.js";
import { FrozenIndex, itemRewardFn, queryRewardFn, transposedItemRewardFn } from "./rewards.js";
import { type Round, readRound, readRoundFile, writeRound } from "./round-artifact.js";

export const TRAIN_DEFAULTS = {
  rounds: 5,
  seed: 42,
  epochs: { sft: 3, query: 20, item: 5 },
  batch: { sft: 256, query: 64, item: 256 },
  groupSize: 8,
  lr: { sft: 0.1, query: 0.05, item: 0.05 },
  evalEverySteps: 10,
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
}

export interface TrainProgress {
  phaseStart(phase: string, steps: number): void;
  step(stats: { meanReward?: number; loss?: number; devF1?: number }): void;
  phaseEnd(phase: string, summary: { dev: MetricSummary; train: MetricSummary }): void;
  /** Called once a phase's checkpoint is on disk. */
  checkpointed?(phase: string): void;
}

interface State {
  query: PolicyParams;
  item: PolicyParams;
  checkpoint: Checkpoint;
}

/** A round is complete (and written) after its item phase, or its query phase when the items are frozen. */
const writesRound = (phase: string, opts: TrainOptions) => phase.startsWith("item-") || (phase.startsWith("query-") && opts.ablations.freezeItems);
const roundOf = (phase: string) => Number(phase.split("-")[1]);

function phasesOf(opts: TrainOptions): string[] {
  const out = opts.ablations.noSft || opts.fromRound > 0 ? [] : ["sft"];
  for (let r = opts.fromRound + 1; r <= opts.fromRound + opts.rounds; r++) {
    out.push(`query-${r}`);
    if (!opts.ablations.freezeItems) out.push(`item-${r}`);
  }
  return out;
}

/** The index a round over these item sets ships: its word postings are opts.ranker's. */
const servedIndex = (data: TrainData, itemSets: ReadonlyArray<readonly string[]>, opts: TrainOptions) =>
  buildItemIndex(data, itemSets, opts.ranker ?? KEYWORD_RANKER);

/**
 * The query policy's search hints over a served index (core/hints.ts), so
 * training sees the hints serving computes. None under --no-hints.
 */
const hintsOver = (index: KeywordIndex, opts: TrainOptions): HintSource | undefined =>
  opts.ablations.noHints ? undefined : indexHintSource(index, HINT_LIMITS.topK);

/** A hand-set prior standing in for an un-tuned base model (--no-sft): keep the input's strongest n-grams. */
function basePrior(): PolicyParams {
  const p = newParams(-2);
  p.weights[FEATURES.indexOf("ngram")] = 1.5;
  p.weights[FEATURES.indexOf("wholeInput")] = 2;
  p.weights[FEATURES.indexOf("tfidf")] = 2;
  return p;
}

export function trainLexical(dataset: Dataset, opts: TrainOptions, progress: TrainProgress): { rounds: number[]; history: HistoryPoint[] } {
  const start = readRound(opts.fromRound, opts.artifactsRoot);
  const data = prepareData(dataset, start);
  // A checkpoint resumes only the same run: options, data, starting round and policy format (a new feature set restarts).
  const policy = { version: POLICY_VERSION, features: FEATURES };
  const configKey = JSON.stringify({ opts: { ...opts, artifactsRoot: undefined }, data: dataset.dir, start: start.manifest.checksums, policy });
  const ckptPath = join(opts.artifactsRoot, "train", "lexical", "checkpoint.json");
  const state = restore(ckptPath, configKey, opts);
  const rng = new Rng(state.checkpoint.rng);
  const written: number[] = [];
  let itemSets = initialItemSets(data, state, start, opts);

  for (const phase of phasesOf(opts)) {
    if (state.checkpoint.completed.includes(phase)) {
      if (writesRound(phase, opts)) written.push(roundOf(phase));
      continue;
    }
    const round = phase === "sft" ? opts.fromRound : roundOf(phase);
    if (phase === "sft") runSft(data, state, rng, opts, progress);
    else if (phase.startsWith("query-")) runQueryPhase(data, state, itemSets, rng, opts, round, progress);
    else itemSets = runItemPhase(data, state, itemSets, rng, opts, round, progress);
    if (phase === "sft") itemSets = decodeItems(data, state, opts);
    const summary = evaluate(data, state, itemSets, opts);
    state.checkpoint.history.push({
      step: state.checkpoint.step,
      phase,
      round,
      side: phase === "sft" ? "sft" : phase.startsWith("query-") ? "query" : "item",
      devF1: summary.dev.f1,
      trainF1: summary.train.f1,
    });
    state.checkpoint.phaseMetrics.push({ phase, round, dev: summary.dev, train: summary.train });
    progress.phaseEnd(phase, summary);
    if (writesRound(phase, opts)) {
      writeTrainedRound(data, state, itemSets, round, start.manifest.split, opts, summary);
      written.push(round);
    }
    state.checkpoint.completed.push(phase);
    state.checkpoint.rng = rng.state;
    state.checkpoint.query = { ...state.checkpoint.query, params: saveParams(state.query) };
    state.checkpoint.item = { ...state.checkpoint.item, params: saveParams(state.item) };
    writeCheckpoint(ckptPath, state.checkpoint);
    progress.checkpointed?.(phase);
  }
  return { rounds: written, history: state.checkpoint.history };
}

function restore(path: string, configKey: string, opts: TrainOptions): State {
  const saved = readCheckpoint(path, configKey);
  if (saved) {
    // JSON keeps two copies of a shared optimiser; make them one object again.
    if (opts.ablations.sharedGenerator) saved.item.adam = saved.query.adam;
    const query = loadParams(saved.query.params);
    return { query, item: opts.ablations.sharedGenerator ? query : loadParams(saved.item.params), checkpoint: saved };
  }
  let query: PolicyParams;
  let item: PolicyParams;
  if (opts.fromRound > 0) {
    const policies = JSON.parse(readRoundFile(opts.fromRound, "policies.json", opts.artifactsRoot)) as {
      query: Checkpoint["query"]["params"];
      item: Checkpoint["item"]["params"];
    };
    query = loadParams(policies.query);
    item = opts.ablations.sharedGenerator ? query : loadParams(policies.item);
  } else {
    query = opts.ablations.noSft ? basePrior() : newParams(-1);
    item = opts.ablations.sharedGenerator ? query : opts.ablations.noSft ? basePrior() : newParams(-1);
  }
  const adam = newAdamState();
  return {
    query,
    item,
    checkpoint: {
      version: 1,
      configKey,
      completed: [],
      rng: opts.seed,
      step: 0,
      query: { params: saveParams(query), adam },
      // A shared generator shares one optimiser too.
      item: { params: saveParams(item), adam: opts.ablations.sharedGenerator ? adam : newAdamState() },
      history: [],
      phaseMetrics: [],
    },
  };
}

/**
 * The item policy's candidates: the item's n-grams plus keywords of the query
 * index the current query policy produces (decoded against round 0's item
 * vocabulary, a fixed reference, so the same recipe serves training,
 * decoding and resuming).
 */
function currentItemCandidates(data: TrainData, state: Pick<State, "query">, opts: TrainOptions) {
  const querySets = decodeQueries(state.query, baseQueryCandidates(data, opts));
  return itemCandidates(data, querySideVocabulary(data, queryIndexSets(data, querySets)));
}

/**
 * The training queries' candidates against round 0's item sets, memoised:
 * the reference never changes within a run, and a TrainData belongs to one
 * run (prepareData per trainLexical call), so to one set of options.
 */
const baseCandidates = new WeakMap<TrainData, ReturnType<typeof queryCandidateSets>>();
const baseQueryCandidates = (data: TrainData, opts: TrainOptions) =>
  getOrInsert(baseCandidates, data, () =>
    queryCandidateSets(data.train, itemSideVocabulary(data, data.baseItemSets), hintsOver(servedIndex(data, data.baseItemSets, opts), opts)),
  );

const itemSetsFrom = (data: TrainData, policies: Pick<State, "query" | "item">, opts: TrainOptions): string[][] =>
  decodeItemSets(policies.item, currentItemCandidates(data, policies, opts));

/** Item sets decoded from the current policies (not read from a round), recording which policies decoded them. */
function decodeItems(data: TrainData, state: State, opts: TrainOptions): string[][] {
  state.checkpoint.itemsDecodedWith = { query: saveParams(state.query), item: saveParams(state.item) };
  return itemSetsFrom(data, state, opts);
}

/**
 * The item sets a run (or a resumed run) starts from: the last written round's
 * after an item phase (they carry keywords over, see runItemPhase), the
 * starting round's when continuing from one, none while Phase 1 is still to
 * run (it decodes them), else those the policies decoded before the
 * interruption (after Phase 1), else the current policies'.
 */
function initialItemSets(data: TrainData, state: State, start: Round, opts: TrainOptions): string[][] {
  if (phasesOf(opts).includes("sft") && !state.checkpoint.completed.includes("sft")) return [];
  const lastItemRound = Math.max(-1, ...state.checkpoint.completed.filter((p) => p.startsWith("item-")).map(roundOf));
  if (lastItemRound >= 0) return itemSetsOf(data, readRound(lastItemRound, opts.artifactsRoot));
  if (opts.fromRound > 0) return itemSetsOf(data, start);
  const was = state.checkpoint.itemsDecodedWith;
  if (was) return itemSetsFrom(data, { query: loadParams(was.query), item: loadParams(was.item) }, opts);
  return decodeItems(data, state, opts);
}

/** The query policy as serving runs it, against an item index's vocabulary and hints. */
const queryGenerator =
  (state: State, vocab: PolicyVocabulary, hints: HintSource | undefined): QueryGenerator =>
  (q) =>
    decodeQuery(state.query, queryCandidates(vocab, q, hints?.(q)), REWARD_LIMITS.kMax);

function evaluate(data: TrainData, state: State, itemSets: ReadonlyArray<readonly string[]>, opts: TrainOptions) {
  const index = servedIndex(data, itemSets, opts);
  const gen = queryGenerator(state, itemSideVocabulary(data, itemSets), hintsOver(index, opts));
  return { dev: evaluateKeywords(index, gen, data.dev, data.devLeftOut), train: evaluateKeywords(index, gen, data.train, data.trainLeftOut) };
}

function runSft(data: TrainData, state: State, rng: Rng, opts: TrainOptions, progress: TrainProgress): void {
  const qCands = baseQueryCandidates(data, opts);
  const qTargets = sftQueryTargets(data, data.baseItemSets);
  const iCands = itemCandidates(
    data,
    querySideVocabulary(
      data,
      queryIndexSets(
        data,
        qTargets.map((t) => [...t]),
      ),
    ),
  );
  const iTargets = data.baseItemSets.map((s) => new Set(s));
  const steps = opts.epochs.sft * (Math.ceil(qCands.length / TRAIN_DEFAULTS.batch.sft) + Math.ceil(iCands.length / TRAIN_DEFAULTS.batch.sft));
  progress.phaseStart("sft", steps);
  for (let e = 0; e < opts.epochs.sft; e++) {
    for (const b of epochBatches(qCands.length, TRAIN_DEFAULTS.batch.sft, rng)) {
      progress.step({ loss: sftStep(state.query, state.checkpoint.query.adam, qCands, qTargets, b, TRAIN_DEFAULTS.lr.sft) });
    }
    for (const b of epochBatches(iCands.length, TRAIN_DEFAULTS.batch.sft, rng)) {
      progress.step({ loss: sftStep(state.item, state.checkpoint.item.adam, iCands, iTargets, b, TRAIN_DEFAULTS.lr.sft) });
    }
  }
}

function runQueryPhase(data: TrainData, state: State, itemSets: string[][], rng: Rng, opts: TrainOptions, round: number, progress: TrainProgress): void {
  const vocab = itemSideVocabulary(data, itemSets);
  // One index for the hints and the phase's dev F1 (F1 is over I_ret(q), which the ranker does not move).
  const index = servedIndex(data, itemSets, opts);
  const hints = hintsOver(index, opts);
  const cands = queryCandidateSets(data.train, vocab, hints);
  const reward = queryRewardFn(new FrozenIndex(itemIndexSets(data, itemSets)), data.train);
  const perEpoch = Math.ceil(cands.length / TRAIN_DEFAULTS.batch.query);
  progress.phaseStart(`query-${round}`, opts.epochs.query * perEpoch);
  for (let e = 0; e < opts.epochs.query; e++) {
    for (const b of epochBatches(cands.length, TRAIN_DEFAULTS.batch.query, rng)) {
      const s = grpoStep(state.query, state.checkpoint.query.adam, cands, b, reward, rng, {
        lr: TRAIN_DEFAULTS.lr.query,
        groupSize: TRAIN_DEFAULTS.groupSize,
        // Independent rollouts leave every set weight at 0, and then serving's sequential decoder decides exactly as independent decisions do.
        ...(opts.queryDecoding === "sequential" ? { sequentialKMax: REWARD_LIMITS.kMax } : {}),
      });
      const step = ++state.checkpoint.step;
      const point: HistoryPoint = { step, phase: `query-${round}`, round, side: "query", meanReward: s.meanReward };
      if (step % TRAIN_DEFAULTS.evalEverySteps === 0) {
        state.checkpoint.history.push({ ...point, devF1: evaluateKeywords(index, queryGenerator(state, vocab, hints), data.dev, data.devLeftOut).f1 });
      } else state.checkpoint.history.push(point);
      progress.step({ meanReward: s.meanReward });
    }
  }
}

function runItemPhase(data: TrainData, state: State, itemSets: string[][], rng: Rng, opts: TrainOptions, round: number, progress: TrainProgress): string[][] {
  // The frozen query index (Alg. 2, line 4): the current query policy against the current item index.
  const qIndexSets = queryIndexSets(
    data,
    decodeQueries(state.query, queryCandidateSets(data.train, itemSideVocabulary(data, itemSets), hintsOver(servedIndex(data, itemSets, opts), opts))),
  );
  const visible = new Set(qIndexSets.flat());
  const cands = currentItemCandidates(data, state, opts).map((c) => c.filter((x) => visible.has(x.keyword)));
  const itemSetsWithNames = itemIndexSets(data, itemSets);
  let reward: (i: number, k: readonly string[]) => number;
  if (opts.ablations.itemReward === "transposed-f1") {
    const relQ = new Map<number, Set<number>>();
    data.train.forEach((q, j) => {
      for (const i of q.relevant) relQ.set(i, (relQ.get(i) ?? new Set()).add(j));
    });
    reward = transposedItemRewardFn(new FrozenIndex(qIndexSets), data.names, relQ);
  } else {
    reward = itemRewardFn(
      new ItemRewardContext({ itemSets: itemSetsWithNames, itemNames: data.names, querySets: qIndexSets, relevant: data.train.map((q) => q.relevant) }),
    );
  }
  const perEpoch = Math.ceil(cands.length / TRAIN_DEFAULTS.batch.item);
  progress.phaseStart(`item-${round}`, opts.epochs.item * perEpoch);
  for (let e = 0; e < opts.epochs.item; e++) {
    for (const b of epochBatches(cands.length, TRAIN_DEFAULTS.batch.item, rng)) {
      const s = grpoStep(state.item, state.checkpoint.item.adam, cands, b, reward, rng, { lr: TRAIN_DEFAULTS.lr.item, groupSize: TRAIN_DEFAULTS.groupSize });
      state.checkpoint.history.push({ step: ++state.checkpoint.step, phase: `item-${round}`, round, side: "item", meanReward: s.meanReward });
      progress.step({ meanReward: s.meanReward });
    }
  }
  return carryOver(decodeItemSets(state.item, cands), itemSets, visible);
}

function writeTrainedRound(
  data: TrainData,
  state: State,
  itemSets: string[][],
  round: number,
  split: Parameters<typeof writeRound>[0]["split"],
  opts: TrainOptions,
  summary: { dev: MetricSummary; train: MetricSummary },
): void {
  const vocab = itemSideVocabulary(data, itemSets);
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
      },
      items: roundItems(data, itemSets),
      index: servedIndex(data, itemSets, opts),
      queryGenerator: policyGeneratorSpec(
        policySpec("query", state.query, vocab, REWARD_LIMITS.kMax, opts.ablations.noHints ? undefined : { topK: HINT_LIMITS.topK }),
      ),
      metrics: { dev: summary.dev, train: summary.train, phases: state.checkpoint.phaseMetrics.filter((m) => m.round === round) },
      extraFiles: { "policies.json": JSON.stringify({ query: saveParams(state.query), item: saveParams(state.item) }) },
    },
    opts.artifactsRoot,
  );
}
