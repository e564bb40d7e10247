/**
 * The round artifact's format: shared by the trainer that writes it, the
 * evaluator and the publisher that read it. Files live in artifacts/rounds/N/.
 */
import type { Split } from "./split.js";

export const ROUND_FORMAT = "cogr-round";
export const ROUND_FORMAT_VERSION = 1;
export const ROUND_FILES = { items: "items.jsonl", index: "index.json", queryGenerator: "query-generator.json" } as const;

export interface RoundItem {
  readonly id: string;
  readonly name: string;
  readonly class: string;
  readonly category: string;
  /** S_i, normalised, without the name (the index adds it). */
  readonly keywords: readonly string[];
}

export interface RoundManifest {
  readonly format: typeof ROUND_FORMAT;
  readonly version: number;
  readonly round: number;
  readonly createdAt: string;
  readonly split: Split;
  readonly config: Record<string, unknown>;
  readonly counts: { readonly items: number; readonly keywords: number; readonly words: number };
  /** sha-256 of each file in ROUND_FILES, and of the round's further files. */
  readonly checksums: Record<string, string>;
  readonly metrics: Record<string, unknown>;
  /**
   * sha-256 over everything the round serves: every file's checksum, the
   * split and the config (not the round number, createdAt or metrics, so
   * rebuilding identical content gives the same hash; serving keys carry the
   * round number beside it). Publish compares it to tell "already published"
   * from "other content"; serving keys carry it. Absent in manifests written
   * before it existed: the loader computes it.
   */
  readonly contentHash?: string;
}

/** The text contentHash is the sha-256 of (training/round-artifact.ts computes it; core has no hashing). */
export function contentHashInput(m: Pick<RoundManifest, "checksums" | "split" | "config">): string {
  const files = Object.keys(m.checksums)
    .sort()
    .map((name) => `${name} ${m.checksums[name]}`);
  return JSON.stringify({ files, split: m.split, config: m.config });
}
