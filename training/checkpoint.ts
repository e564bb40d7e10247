/**
 * The training run's checkpoint: written atomically after every completed
 * phase, so a killed run resumes from the last one and, being seeded, ends
 * exactly where an uninterrupted run would.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { newParams, type PolicyParams, WEIGHT_COUNT } from "../core/policy-features.js";
import type { AdamState } from "./optimizer.js";

export const CHECKPOINT_VERSION = 1;

export interface SavedParams {
  readonly weights: number[];
  readonly keywordWeights: Array<[string, number]>;
}

export const saveParams = (p: PolicyParams): SavedParams => ({
  weights: [...p.weights],
  keywordWeights: [...p.keywordWeights].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
});

export function loadParams(s: SavedParams): PolicyParams {
  // A policy saved by a build with another feature set would load shifted weights without a word.
  if (s.weights.length !== WEIGHT_COUNT) {
    throw new Error(`saved policy has ${s.weights.length} weights, this build's policy ${WEIGHT_COUNT}: retrain from round 0`);
  }
  const p = newParams();
  p.weights.set(s.weights);
  for (const [k, w] of s.keywordWeights) p.keywordWeights.set(k, w);
  return p;
}

export interface HistoryPoint {
  readonly step: number;
  readonly phase: string;
  readonly round: number;
  readonly side: "sft" | "query" | "item";
  readonly meanReward?: number;
  readonly devF1?: number;
  readonly trainF1?: number;
}

export interface Checkpoint {
  readonly version: number;
  readonly configKey: string;
  completed: string[];
  rng: number;
  step: number;
  query: { params: SavedParams; adam: AdamState };
  item: { params: SavedParams; adam: AdamState };
  history: HistoryPoint[];
  phaseMetrics: Array<Record<string, unknown>>;
  /**
   * The policies the current item sets were decoded with, before any item
   * phase wrote a round: a run resumed after query-1 must index the items as
   * the interrupted run did, not with the query policy query-1 has since moved.
   */
  itemsDecodedWith?: { query: SavedParams; item: SavedParams };
}

export function readCheckpoint(path: string, configKey: string): Checkpoint | null {
  if (!existsSync(path)) return null;
  const c = JSON.parse(readFileSync(path, "utf8")) as Checkpoint;
  if (c.version !== CHECKPOINT_VERSION) throw new Error(`${path}: unsupported checkpoint version ${c.version}`);
  return c.configKey === configKey ? c : null;
}

export function writeCheckpoint(path: string, c: Checkpoint): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, JSON.stringify(c));
  renameSync(`${path}.tmp`, path);
}
