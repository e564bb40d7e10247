/**
 * The `lexical` backend's phase runners (Alg. 1 and 2): Phase 1's supervised
 * init of both policies, the query phase's GRPO against the frozen item index
 * (eq. 2.2), the item phase's GRPO against the frozen query index (eq. 2.3,
 * App. B.3), and the evaluation after each phase.
 */
import { getOrInsert } from "../core/collections.js";
import { HINT_LIMITS, type HintSource, indexHintSource } from "../core/hints.js";
import type { KeywordIndex } from "../core/inverted-index.js";
import { decode } from "../core/policy.js";
import { type PolicyVocabulary, queryCandidates } from "../core/policy-candidates.js";
import type { PolicyParams } from "../core/policy-features.js";
import type { QueryGenerator } from "../core/query-generator.js";
import { KEYWORD_RANKER, rankerName } from "../core/ranker.js";
import { ItemRewardContext, REWARD_LIMITS } from "../core/reward.js";
import { itemRewardTables } from "../core/reward-tables.js";
import { Rng } from "../core/rng.js";
import { decodeQuery } from "../core/set-policy.js";
import { type HistoryPoint, loadParams, saveParams } from "./checkpoint.js";
import { type EvalQuery, evaluateKeywords } from "./evaluate.js";
import {
  buildItemIndex,
  carryOver,
  DATA_LIMITS,
  decodeItemSets,
  decodeQueries,
  internSets,
  itemCandidateInput,
  itemCandidates,
  itemIndexSet,
  itemSetsOf,
  itemSideVocabulary,
  keptCandidates,
  queryCandidateSets,
  queryIndexSets,
  querySideVocabulary,
  sftQueryTargets,
  type TrainData,
} from "./lexical-data.js";
import { phasesOf, type State, TRAIN_DEFAULTS, type TrainOptions, type TrainProgress } from "./lexical-options.js";
import { ParallelCandidates } from "./parallel/candidates.js";
import { ParallelItemPhase } from "./parallel/item-phase.js";
import { epochBatches, grpoStep, sftStep } from "./phase.js";
import { FrozenIndex, itemRewardFn, queryRewardFn, transposedItemRewardFn } from "./rewards.js";
import { type Round, readRound } from "./round-artifact.js";
import { misspellQuery } from "./typos.js";

/**
 * Built once per item sets: a phase's index and item-side vocabulary are
 * those the evaluation after the previous phase built (and the round writer
 * reuses the evaluation's). Keyed by the item sets' identity, so a new
 * decoding builds anew and the old ones go with their item sets.
 */
interface Built {
  index?: KeywordIndex;
  ranker?: string;
  vocab?: PolicyVocabulary;
}
const perItemSets = new WeakMap<object, Built>();
const memo = (itemSets: ReadonlyArray<readonly string[]>): Built => getOrInsert(perItemSets, itemSets, (): Built => ({}));

/** The index a round over these item sets ships: its word postings are opts.ranker's. */
export const servedIndex = (data: TrainData, itemSets: ReadonlyArray<readonly string[]>, opts: TrainOptions): KeywordIndex => {
  const m = memo(itemSets);
  const ranker = opts.ranker ?? KEYWORD_RANKER;
  if (!m.index || m.ranker !== rankerName(ranker)) {
    m.index = buildItemIndex(data, itemSets, ranker);
    m.ranker = rankerName(ranker);
  }
  return m.index;
};

/** The item-side vocabulary of these item sets (training/vocabulary.ts), once. */
export const itemVocabulary = (data: TrainData, itemSets: ReadonlyArray<readonly string[]>): PolicyVocabulary => {
  const m = memo(itemSets);
  m.vocab ??= itemSideVocabulary(data, itemSets);
  return m.vocab;
};

/**
 * The query policy's search hints over a served index (core/hints.ts), so
 * training sees the hints serving computes. None under --no-hints.
 */
export const hintsOver = (index: KeywordIndex, opts: TrainOptions): HintSource | undefined =>
  opts.ablations.noHints ? undefined : indexHintSource(index, HINT_LIMITS.topK);

/**
 * The item policy's candidates: the item's n-grams plus keywords of the query
 * index the current query policy produces (decoded against round 0's item
 * vocabulary, a fixed reference, so the same recipe serves training,
 * decoding and resuming).
 */
function currentQueryVocabulary(data: TrainData, state: Pick<State, "query">, opts: TrainOptions): PolicyVocabulary {
  const querySets = decodeQueries(state.query, baseQueryCandidates(data, opts));
  return querySideVocabulary(data, queryIndexSets(data, querySets));
}

/**
 * The items an item-side phase's steps visit: all of them, or past
 * TRAIN_DEFAULTS.itemsTrainedMax a sample of that many (item ordinals in
 * order), drawn from the run's seed and the phase alone, so that the main
 * RNG's stream, and every catalogue below the budget, are as before.
 */
export function trainedItems(count: number, seed: number, phase: string, max: number = TRAIN_DEFAULTS.itemsTrainedMax): number[] | null {
  if (count <= max) return null;
  let h = seed >>> 0;
  for (const ch of phase) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  const all = new Rng(h).shuffle(Array.from({ length: count }, (_, j) => j));
  return all.slice(0, max).sort((a, b) => a - b);
}

/**
 * With --workers N, item candidates are built on N worker threads
 * (training/parallel/candidates.ts), started when a pass needs them and kept
 * for the next; closeWorkers ends them before an item-side phase's GRPO
 * workers start, and at the end of the run. (Starting them for every pass
 * instead was measured at 1M items with the main thread's live heap about
 * 740 MB larger from Phase 1 on, cause not traced, and no lower peak.)
 */
const candidateWorkers = new WeakMap<TrainData, ParallelCandidates>();
const parallelCandidates = (data: TrainData, opts: TrainOptions): ParallelCandidates | null =>
  opts.workers === undefined ? null : getOrInsert(candidateWorkers, data, () => new ParallelCandidates(data, opts.workers as number));
export function closeWorkers(data: TrainData): void {
  candidateWorkers.get(data)?.close();
  candidateWorkers.delete(data);
}

/** Every item's candidates against `vocab` (or `items`'), those `keep` holds (all without it), in a store (training/candidate-store.ts). */
function storeCandidates(
  data: TrainData,
  vocab: PolicyVocabulary,
  keep: ReadonlySet<string> | null,
  opts: TrainOptions,
  budget?: number,
  items: readonly number[] | null = null,
) {
  const par = parallelCandidates(data, opts);
  if (par) return par.store(vocab, keep, items);
  return itemCandidates(data, vocab, keep, budget, items);
}

/** Every item's decoded set, each item's candidates (those `keep` holds) built, decoded and dropped in turn. */
function decodeAll(data: TrainData, vocab: PolicyVocabulary, params: PolicyParams, keep: ReadonlySet<string> | null, opts: TrainOptions): string[][] {
  const par = parallelCandidates(data, opts);
  if (par) return internSets(data, par.decode(vocab, params, REWARD_LIMITS.kMax, DATA_LIMITS.itemMinLogit, keep));
  return internSets(
    data,
    data.items.map((_, j) => decode(params, keptCandidates(vocab, itemCandidateInput(data, j), keep), REWARD_LIMITS.kMax, DATA_LIMITS.itemMinLogit)),
  );
}

/**
 * The training queries' candidates against round 0's item sets, memoised:
 * the reference never changes within a run, and a TrainData belongs to one
 * run (prepareData per trainLexical call), so to one set of options.
 */
const baseCandidates = new WeakMap<TrainData, ReturnType<typeof queryCandidateSets>>();
const baseQueryCandidates = (data: TrainData, opts: TrainOptions) =>
  getOrInsert(baseCandidates, data, () =>
    queryCandidateSets(
      data.train,
      itemSideVocabulary(data, data.baseItemSets),
      hintsOver(buildItemIndex(data, data.baseItemSets, opts.ranker ?? KEYWORD_RANKER), opts),
    ),
  );

/** The items' decoded sets, each item's candidates built, decoded and dropped in turn. */
const itemSetsFrom = (data: TrainData, policies: Pick<State, "query" | "item">, opts: TrainOptions): string[][] => {
  return decodeAll(data, currentQueryVocabulary(data, policies, opts), policies.item, null, opts);
};

/** Item sets decoded from the current policies (not read from a round), recording which policies decoded them. */
export function decodeItems(data: TrainData, state: State, opts: TrainOptions): string[][] {
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
export function initialItemSets(data: TrainData, state: State, start: Round, opts: TrainOptions): string[][] {
  const phases = phasesOf(opts);
  if (phases.some((p) => p.side === "sft") && !state.checkpoint.completed.includes("sft")) return [];
  const itemRoundsDone = phases.flatMap((p) => (p.side === "item" && state.checkpoint.completed.includes(`item-${p.round}`) ? [p.round] : []));
  const lastItemRound = Math.max(-1, ...itemRoundsDone);
  if (lastItemRound >= 0) return internSets(data, itemSetsOf(data, readRound(lastItemRound, opts.artifactsRoot)));
  if (opts.fromRound > 0) return internSets(data, itemSetsOf(data, start));
  const was = state.checkpoint.itemsDecodedWith;
  if (was) return itemSetsFrom(data, { query: loadParams(was.query), item: loadParams(was.item) }, opts);
  return decodeItems(data, state, opts);
}

/** The query policy as serving runs it, against an item index's vocabulary and hints. */
export const queryGenerator =
  (state: State, vocab: PolicyVocabulary, hints: HintSource | undefined): QueryGenerator =>
  (q) =>
    decodeQuery(state.query, queryCandidates(vocab, q, hints?.(q)), REWARD_LIMITS.kMax);

export function evaluate(data: TrainData, state: State, itemSets: ReadonlyArray<readonly string[]>, opts: TrainOptions) {
  const index = servedIndex(data, itemSets, opts);
  const gen = queryGenerator(state, itemVocabulary(data, itemSets), hintsOver(index, opts));
  return { dev: evaluateKeywords(index, gen, data.dev, data.devLeftOut), train: evaluateKeywords(index, gen, data.train, data.trainLeftOut) };
}

export function runSft(data: TrainData, state: State, rng: Rng, opts: TrainOptions, progress: TrainProgress): void {
  const qCands = baseQueryCandidates(data, opts);
  const qTargets = sftQueryTargets(data, data.baseItemSets);
  // Past the budget, the item side's steps visit a sample of the items (store position p is item at(p)).
  const items = trainedItems(data.items.length, opts.seed, "sft", opts.itemsTrainedMax);
  const at = (p: number) => (items ? (items[p] as number) : p);
  const qVocab = querySideVocabulary(
    data,
    queryIndexSets(
      data,
      qTargets.map((t) => [...t]),
    ),
  );
  const iCands = storeCandidates(data, qVocab, null, opts, undefined, items);
  const steps = opts.epochs.sft * (Math.ceil(qCands.length / TRAIN_DEFAULTS.batch.sft) + Math.ceil(iCands.count / TRAIN_DEFAULTS.batch.sft));
  // --workers N: the item side's steps as map (a chunk's cross-entropy gradient sums) and reduce (training/parallel/).
  // (Not with a shared generator: the query side's steps move the same weights between the workers' item steps.)
  const parallel = opts.workers !== undefined && !opts.ablations.sharedGenerator;
  if (parallel) closeWorkers(data); // idle through the steps: their heaps freed (see runItemPhase)
  const workers = parallel ? new ParallelItemPhase(opts.workers as number, iCands, null, state.item, TRAIN_DEFAULTS.groupSize) : null;
  progress.phaseStart("sft", steps);
  for (let e = 0; e < opts.epochs.sft; e++) {
    for (const b of epochBatches(qCands.length, TRAIN_DEFAULTS.batch.sft, rng)) {
      progress.step({ loss: sftStep(state.query, state.checkpoint.query.adam, qCands, qTargets, b, TRAIN_DEFAULTS.lr.sft) });
    }
    for (const b of epochBatches(iCands.count, TRAIN_DEFAULTS.batch.sft, rng)) {
      if (workers) {
        progress.step({ loss: workers.sftStep(state.item, state.checkpoint.item.adam, b, (p) => data.baseItemSets[at(p)] ?? [], TRAIN_DEFAULTS.lr.sft) });
        continue;
      }
      // The batch's candidates and targets at local positions 0..|b|−1, in batch order: the same sums as indexing the whole.
      const local = b.map((_, j) => j);
      const targets = b.map((p) => new Set(data.baseItemSets[at(p)]));
      progress.step({
        loss: sftStep(
          state.item,
          state.checkpoint.item.adam,
          b.map((i) => iCands.get(i)),
          targets,
          local,
          TRAIN_DEFAULTS.lr.sft,
        ),
      });
    }
  }
  workers?.close();
  iCands.close();
}

/**
 * The query phase's queries: the training queries and, for each, seeded
 * misspelled copies judged by the same labels (training/typos.ts). On clean
 * queries alone a correction fires only on words the items never spell
 * (brand names), where it is mostly wrong, and the policy learns never to
 * trust one; the copies teach it when to (issue 25 §1).
 */
function withTypoCopies(train: readonly EvalQuery[], seed: number, round: number): EvalQuery[] {
  const rng = new Rng((seed ^ Math.imul(round + 1, 0x9e3779b1)) >>> 0);
  const out = [...train];
  for (let c = 0; c < TRAIN_DEFAULTS.typoCopies; c++) {
    for (const q of train) {
      const text = misspellQuery(q.text, rng);
      if (text !== null) out.push({ ...q, text });
    }
  }
  return out;
}

export function runQueryPhase(data: TrainData, state: State, itemSets: string[][], rng: Rng, opts: TrainOptions, round: number, progress: TrainProgress): void {
  const vocab = itemVocabulary(data, itemSets);
  // One index for the hints and the phase's dev F1 (F1 is over I_ret(q), which the ranker does not move).
  const index = servedIndex(data, itemSets, opts);
  const hints = hintsOver(index, opts);
  const queries = withTypoCopies(data.train, opts.seed, round);
  const cands = queryCandidateSets(queries, vocab, hints);
  // Eq. 2.2 against the frozen item index: the served index's keyword postings are S_i ∪ {i} already.
  const reward = queryRewardFn(FrozenIndex.fromIndex(index, data.ids), queries);
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

export function runItemPhase(
  data: TrainData,
  state: State,
  itemSets: string[][],
  rng: Rng,
  opts: TrainOptions,
  round: number,
  progress: TrainProgress,
): string[][] {
  // The frozen query index (Alg. 2, line 4): the current query policy against the current item index.
  const qIndexSets = queryIndexSets(
    data,
    decodeQueries(state.query, queryCandidateSets(data.train, itemVocabulary(data, itemSets), hintsOver(servedIndex(data, itemSets, opts), opts))),
  );
  const visible = new Set(qIndexSets.flat());
  // The current item sets' index and vocabulary served only that decoding: the phase makes new sets, which get
  // their own. Dropped now, they are not held beside the phase's candidates, reward tables and workers (at 1M items
  // they are gigabytes).
  perItemSets.delete(itemSets);
  progress.mark?.(`item-${round}: query index decoded`);
  // Data-parallel (--workers N, the default reward only): the workers read the candidates from a file.
  const parallel = opts.workers !== undefined && opts.ablations.itemReward !== "transposed-f1" && !opts.ablations.sharedGenerator;
  // Past the budget, the steps visit a sample of the items (store position p is item at(p)); every item is decoded after.
  const items = trainedItems(data.items.length, opts.seed, `item-${round}`, opts.itemsTrainedMax);
  const at = (p: number) => (items ? (items[p] as number) : p);
  const qVocab = currentQueryVocabulary(data, state, opts);
  const cands = storeCandidates(data, qVocab, visible, opts, parallel ? 0 : undefined, items);
  // The candidate workers sit idle through the steps, each with its heap (the n-gram df, its shard): ended here, so
  // that they and the GRPO workers never hold memory at once, nor they and the reward tables' making; the decoding
  // pass after starts them again (the same shards, so the same sets).
  if (parallel) closeWorkers(data);
  progress.mark?.(`item-${round}: candidates stored`);
  // App. B.3's tables, built once (core/reward-tables.ts): only what the frozen query index can match, each item's
  // S_i ∪ {i} made and filtered in turn. With workers, on SharedArrayBuffers: every GRPO worker reads this one copy.
  // Click supervision: the judged items per query (the item reward leaves an unjudged pair at weight 0: missing).
  // The transposed-F1 ablation scores items without them, so it builds none.
  const transposed = opts.ablations.itemReward === "transposed-f1";
  const rewardTables = transposed
    ? null
    : itemRewardTables(
        {
          itemNames: data.names,
          querySets: qIndexSets,
          relevant: data.train.map((q) => q.relevant),
          judged: data.train.map((q) => q.judged),
        },
        (i) => itemIndexSet(data, itemSets, i),
        parallel ? (bytes) => new SharedArrayBuffer(bytes) : undefined,
      );
  if (rewardTables) progress.mark?.(`item-${round}: reward tables`);
  let reward: (i: number, k: readonly string[]) => number = () => 0;
  if (!rewardTables) {
    const relQ = new Map<number, Set<number>>();
    data.train.forEach((q, j) => {
      for (const i of q.relevant) relQ.set(i, (relQ.get(i) ?? new Set()).add(j));
    });
    reward = transposedItemRewardFn(new FrozenIndex(qIndexSets), data.names, relQ);
  } else if (!parallel) reward = itemRewardFn(new ItemRewardContext(rewardTables));
  const workers =
    parallel && rewardTables ? new ParallelItemPhase(opts.workers as number, cands, rewardTables, state.item, TRAIN_DEFAULTS.groupSize, items) : null;
  const perEpoch = Math.ceil(cands.count / TRAIN_DEFAULTS.batch.item);
  progress.phaseStart(`item-${round}`, opts.epochs.item * perEpoch);
  try {
    for (let e = 0; e < opts.epochs.item; e++) {
      for (const b of epochBatches(cands.count, TRAIN_DEFAULTS.batch.item, rng)) {
        // Rollouts and rewards per batch: the batch's candidates at local positions, the reward told each one's item.
        const batchReward = (j: number, k: readonly string[]) => reward(at(b[j] as number), k);
        const lr = TRAIN_DEFAULTS.lr.item;
        const s = workers
          ? workers.step(state.item, state.checkpoint.item.adam, b, rng, lr)
          : grpoStep(
              state.item,
              state.checkpoint.item.adam,
              b.map((i) => cands.get(i)),
              b.map((_, j) => j),
              batchReward,
              rng,
              { lr, groupSize: TRAIN_DEFAULTS.groupSize },
            );
        state.checkpoint.history.push({ step: ++state.checkpoint.step, phase: `item-${round}`, round, side: "item", meanReward: s.meanReward });
        if (state.checkpoint.history.at(-2)?.phase !== `item-${round}`) progress.mark?.(`item-${round}: first step`);
        progress.step({ meanReward: s.meanReward });
      }
    }
  } finally {
    workers?.close();
  }
  const fromStore = items ? null : internSets(data, decodeItemSets(state.item, cands));
  cands.close();
  const decided = fromStore ?? decodeAll(data, qVocab, state.item, visible, opts);
  return carryOver(decided, itemSets, visible);
}
