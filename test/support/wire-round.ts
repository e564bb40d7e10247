/**
 * A round as plain JSON: how the workerd tests receive rounds built in Node
 * (vitest.config.ts builds them; test/support/worker-fixtures.ts toWire makes
 * one from an artifact). Posting lines are as in postings.jsonl.
 */
import type { KeywordIndex } from "../../core/inverted-index.js";
import type { TailWord } from "../../core/policy-tail.js";
import type { QueryGeneratorSpec } from "../../core/query-generator.js";
import { type IndexHeader, indexFromPostings, parsePostingLine, type RoundItem, type RoundManifest } from "../../core/round-format.js";
import type { PublishSource } from "../../publish/source.js";

export interface WireRound {
  readonly manifest: RoundManifest;
  readonly header: IndexHeader;
  readonly items: readonly RoundItem[];
  readonly postings: readonly string[];
  readonly queryGenerator: QueryGeneratorSpec;
  readonly queryDfTail: ReadonlyArray<readonly [string, number]>;
  /** A policy's vocabulary tail (core/policy-tail.ts), when its round ships one. */
  readonly policyTail?: ReadonlyArray<readonly [string, TailWord]>;
}

export function wireSource(w: WireRound): PublishSource {
  return {
    manifest: w.manifest,
    header: w.header,
    items: () => w.items,
    postings: () => w.postings.map(parsePostingLine),
    queryGenerator: w.queryGenerator,
    queryDfTail: () => w.queryDfTail,
    policyTail: () => w.policyTail ?? [],
  };
}

/** The in-memory index of a wire round (the reference the served results must equal). */
export function wireIndex(w: WireRound): KeywordIndex {
  return indexFromPostings(
    w.items.map((i) => i.id),
    w.header.totalLength,
    w.postings.map(parsePostingLine),
    w.header.ranker,
    w.header.queryTerms,
  );
}
