/**
 * An experiment's configuration: what D1 stores (with its history) and KV
 * mirrors for the hot path. Weights are basis points of traffic.
 */
import { SERVING_CONFIG_KEY } from "../../../core/contract.js";

export const EXPERIMENT_LIMITS = {
  totalWeightBp: 10_000,
  abArmsMax: 8,
  idMaxChars: 64,
  saltMaxChars: 64,
} as const;

export type Design = "ab" | "interleave";
/** lifecycle.ts: running and paused are live (one at a time); the others have ended. */
export type ExperimentState = "running" | "paused" | "promoted" | "rolled_back" | "stopped";

export interface Arm {
  readonly round: number;
  readonly weight: number;
}

/** Rolled back (or, when the trip is concentrated on few networks, paused) on its own when a treatment is worse than control beyond these (absolute differences). */
export interface Guardrails {
  /** Error rate (searches that failed), e.g. 0.01. */
  readonly errorRate: number;
  /** Zero-result rate, e.g. 0.05. */
  readonly zeroResultRate: number;
  /** Searches slower than control's p95 + this many ms, as a share over control's, e.g. 0.05 at 50 ms. */
  readonly latencyMs: number;
  readonly slowShare: number;
  /** Significance of the sequential tests and of SRM (SRM uses its own, 0.001). */
  readonly alpha: number;
  /** No automatic action before each arm has this many searches. */
  readonly minSearches: number;
}

export const DEFAULT_GUARDRAILS: Guardrails = { errorRate: 0.01, zeroResultRate: 0.05, latencyMs: 50, slowShare: 0.05, alpha: 0.05, minSearches: 200 };

export interface Experiment {
  readonly id: string;
  readonly design: Design;
  readonly salt: string;
  /** A/B: 2–8 arms summing to 10 000 bp. Interleave: exactly [control, treatment]; weights unused. */
  readonly arms: readonly Arm[];
  /** The control arm's round. */
  readonly control: number;
  /** Interleave: the share of traffic (bp) that sees the interleaved list; the rest sees control. */
  readonly interleaveShareBp: number;
  readonly guardrails: Guardrails;
  readonly state: ExperimentState;
  /** For promoted experiments: the round that won. */
  readonly winner?: number;
  /** Hashed network prefixes (network.ts) whose searches the statistics leave out: added by a resume that excludes a pause's suspects. */
  readonly excludedPrefixes?: readonly string[];
  /** While paused by the guardrail: the prefixes its concentrated findings came from. */
  readonly suspectPrefixes?: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What the serving path needs (the KV mirror). */
export type LiveExperiment = Pick<Experiment, "id" | "design" | "salt" | "arms" | "control" | "interleaveShareBp">;

export { SERVING_CONFIG_KEY };
export const SERVING_CONFIG_VERSION = 1;

/** What the hot path reads from KV: the running experiment, and the round that serves when none runs. */
export interface ServingConfig {
  readonly version: number;
  readonly experiment: LiveExperiment | null;
  /** The control of a paused experiment, else the winner of the last promoted experiment or the control of the last rolled-back one; null: the newest published round. */
  readonly defaultRound: number | null;
  readonly updatedAt: string;
}
