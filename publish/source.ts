/**
 * What a publish reads: a round as a stream of items and postings
 * (PublishSource), and the round it builds on. Sources over rounds held in
 * memory are here (tests, and rounds a benchmark derives); Node streams
 * artifacts instead (publish/node/artifact.ts).
 */
import { BLOCK_LIMITS } from "../core/blocks.js";
import type { ServingManifest } from "../core/contract.js";
import { compareIds } from "../core/ids.js";
import type { TailWord } from "../core/policy-tail.js";
import { extractorOf, type QueryGeneratorSpec, splitExtractorDf, splitPolicyTail, withExtractor } from "../core/query-generator.js";
import { type IndexHeader, indexHeader, indexPostings, type MemoryRound, type PostingEntry, type RoundItem, type RoundManifest } from "../core/round-format.js";

/** A round as the plan reads it; Node streams it from the artifact, tests give arrays. */
export interface PublishSource {
  readonly manifest: RoundManifest;
  readonly header: IndexHeader;
  /** Items in ordinal order. */
  items(): Iterable<RoundItem>;
  /** Postings in key order. */
  postings(): Iterable<PostingEntry>;
  /** The served query generator (an extractor's head only). */
  readonly queryGenerator: QueryGeneratorSpec;
  /** The extractor's df tail, when it has one. */
  queryDfTail?(): Iterable<readonly [string, number]>;
  /** A policy's vocabulary tail (core/policy-tail.ts), when it has one. */
  policyTail?(): Iterable<readonly [string, TailWord]>;
}

/** The round a publish builds on: its published manifest and its artifact (the same content). */
export interface PublishBase {
  readonly manifest: ServingManifest;
  readonly source: PublishSource;
}

export function memorySource(r: MemoryRound, maxBlockBytes: number = BLOCK_LIMITS.maxBlockBytes): PublishSource {
  const byId = new Map(r.items.map((i) => [i.id, i]));
  const sorted = [...r.index.ids].sort(compareIds).map((id) => {
    const it = byId.get(id);
    if (!it) throw new Error(`index item ${id} is missing from the round's items`);
    return it;
  });
  // As writeRound ships it: an extractor's head in the generator, the rest of its df apart; a policy's tail apart.
  const extractor = extractorOf(r.queryGenerator);
  const split = extractor ? splitExtractorDf(extractor) : null;
  const policy = splitPolicyTail(split ? withExtractor(r.queryGenerator, split.head) : r.queryGenerator);
  return {
    manifest: r.manifest,
    header: indexHeader(r.index, maxBlockBytes),
    items: () => sorted,
    postings: () => indexPostings(r.index, maxBlockBytes),
    queryGenerator: policy.head,
    queryDfTail: () => split?.tail ?? [],
    policyTail: () => policy.tail,
  };
}
