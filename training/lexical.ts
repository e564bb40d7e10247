/**
 * The `lexical` backend: Phase 1 (Alg. 1, supervised init of both policies)
 * then alternating GRPO rounds (Alg. 2): the query policy against the frozen
 * item index (eq. 2.2), then the item policy against the frozen query index
 * (eq. 2.3, App. B.3). Each round writes artifacts/rounds/N in the round format.
 *
 * This file runs the phases in order and checkpoints after each (a killed run
 * resumes after its last completed phase); the phases are in
 * training/lexical-phases.ts, round writing in training/lexical-round.ts, the
 * options and phase values in training/lexical-options.ts.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { POLICY_VERSION } from "../core/policy.js";
import { FEATURES, newParams, type PolicyParams } from "../core/policy-features.js";
import { Rng } from "../core/rng.js";
import { type Checkpoint, type HistoryPoint, loadParams, readCheckpoint, saveParams, writeCheckpoint } from "./checkpoint.js";
import type { Dataset } from "./data/wands.js";
import { prepareData } from "./lexical-data.js";
import { phaseName, phaseRound, phasesOf, type State, type TrainOptions, type TrainProgress, writesRound } from "./lexical-options.js";
import { closeWorkers, decodeItems, evaluate, initialItemSets, runItemPhase, runQueryPhase, runSft } from "./lexical-phases.js";
import { writeTrainedRound } from "./lexical-round.js";
import { newAdamState } from "./optimizer.js";
import { type Round, readRound, readRoundFile } from "./round-artifact.js";
import { CLICK_SUPERVISION, clickRelevanceOf } from "./supervision/clicks.js";
import { supervisedQueries } from "./supervision/supervision.js";

/** A hand-set prior standing in for an un-tuned base model (--no-sft): keep the input's strongest n-grams. */
function basePrior(): PolicyParams {
  const p = newParams(-2);
  p.weights[FEATURES.indexOf("ngram")] = 1.5;
  p.weights[FEATURES.indexOf("wholeInput")] = 2;
  p.weights[FEATURES.indexOf("tfidf")] = 2;
  return p;
}

export function trainLexical(dataset: Dataset, opts: TrainOptions, progress: TrainProgress): { rounds: number[]; history: HistoryPoint[] } {
  // The starting round whole (its items and index) only until the training view and the first item sets are made.
  let start: Round | null = readRound(opts.fromRound, opts.artifactsRoot);
  const startManifest = start.manifest;
  const supervision = opts.supervision ?? "labels";
  const clicks =
    supervision.startsWith("clicks") && opts.clickEvents
      ? { relevance: clickRelevanceOf(opts.clickEvents), unknownWeight: opts.clickUnknownWeight ?? CLICK_SUPERVISION.unknownWeight }
      : undefined;
  const queries = supervisedQueries(dataset, startManifest.split, supervision, opts.seed, clicks);
  const data = prepareData(dataset, start, queries);
  // A checkpoint resumes only the same run: options, data, starting round and policy format (a new feature set restarts);
  // with pseudo-queries, the same ones (a changed construction restarts).
  const policy = { version: POLICY_VERSION, features: FEATURES };
  const asked = [...queries.train, ...queries.dev].map((q) => [q.text, [...(queries.relevant.get(q.id) ?? [])], [...(queries.judged?.get(q.id) ?? [])]]);
  const pseudo = queries.pseudo || queries.clicks ? { pseudo: createHash("sha256").update(JSON.stringify(asked)).digest("hex") } : {};
  // The worker count is left out (any count ≥ 1 trains the same rounds), so a killed run may resume with another.
  const workers = opts.workers === undefined ? undefined : "map-reduce";
  const configKey = JSON.stringify({
    opts: { ...opts, artifactsRoot: undefined, workers },
    data: dataset.dir,
    start: startManifest.checksums,
    policy,
    ...pseudo,
  });
  const ckptPath = join(opts.artifactsRoot, "train", "lexical", "checkpoint.json");
  const state = restore(ckptPath, configKey, opts);
  const rng = new Rng(state.checkpoint.rng);
  const written: number[] = [];
  let itemSets = initialItemSets(data, state, start, opts);
  start = null;

  try {
    for (const p of phasesOf(opts)) {
      const phase = phaseName(p);
      const round = phaseRound(p, opts);
      if (state.checkpoint.completed.includes(phase)) {
        if (writesRound(p, opts)) written.push(round);
        continue;
      }
      if (p.side === "sft") {
        runSft(data, state, rng, opts, progress);
        itemSets = decodeItems(data, state, opts);
      } else if (p.side === "query") runQueryPhase(data, state, itemSets, rng, opts, round, progress);
      else itemSets = runItemPhase(data, state, itemSets, rng, opts, round, progress);
      const summary = evaluate(data, state, itemSets, opts);
      state.checkpoint.history.push({
        step: state.checkpoint.step,
        phase,
        round,
        side: p.side,
        devF1: summary.dev.f1,
        trainF1: summary.train.f1,
      });
      state.checkpoint.phaseMetrics.push({ phase, round, dev: summary.dev, train: summary.train });
      progress.phaseEnd(phase, summary);
      if (writesRound(p, opts)) {
        writeTrainedRound(data, state, itemSets, round, startManifest.split, opts, summary, queries);
        written.push(round);
      }
      state.checkpoint.completed.push(phase);
      state.checkpoint.rng = rng.state;
      state.checkpoint.query = { ...state.checkpoint.query, params: saveParams(state.query) };
      state.checkpoint.item = { ...state.checkpoint.item, params: saveParams(state.item) };
      writeCheckpoint(ckptPath, state.checkpoint);
      progress.checkpointed?.(phase);
    }
  } finally {
    // The candidate workers of --workers N (training/parallel/candidates.ts) end with the run.
    closeWorkers(data);
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
