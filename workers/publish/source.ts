/** PublishSources over rounds held in memory (tests, and rounds a benchmark derives). Node streams artifacts instead (scripts/publish/local.ts). */
import { BLOCK_LIMITS, joinKeywordBlocks, joinWordBlocks } from "../../core/blocks.js";
import { compareIds } from "../../core/ids.js";
import { KeywordIndex } from "../../core/inverted-index.js";
import type { WordPosting } from "../../core/postings.js";
import { type QueryGeneratorSpec, splitExtractorDf } from "../../core/query-generator.js";
import { type IndexHeader, indexHeader, indexPostings, parsePostingLine, type RoundItem, type RoundManifest } from "../../core/round-format.js";
import { POSTING_PREFIX } from "../../core/shard.js";
import type { PublishSource } from "./plan.js";

export interface MemoryRound {
  readonly manifest: RoundManifest;
  readonly items: readonly RoundItem[];
  readonly index: KeywordIndex;
  readonly queryGenerator: QueryGeneratorSpec;
}

export function memorySource(r: MemoryRound, maxBlockBytes: number = BLOCK_LIMITS.maxBlockBytes): PublishSource {
  const byId = new Map(r.items.map((i) => [i.id, i]));
  const sorted = [...r.index.ids].sort(compareIds).map((id) => {
    const it = byId.get(id);
    if (!it) throw new Error(`index item ${id} is missing from the round's items`);
    return it;
  });
  let spec = r.queryGenerator;
  let tail: Array<[string, number]> = [];
  if (spec.kind === "extractor") ({ head: spec, tail } = splitExtractorDf(spec));
  return {
    manifest: r.manifest,
    header: indexHeader(r.index, maxBlockBytes),
    items: () => sorted,
    postings: () => indexPostings(r.index, maxBlockBytes),
    queryGenerator: spec,
    queryDfTail: () => tail,
  };
}

/** A round as plain JSON (the workerd tests receive rounds built in Node so): posting lines as in postings.jsonl. */
export interface WireRound {
  readonly manifest: RoundManifest;
  readonly header: IndexHeader;
  readonly items: readonly RoundItem[];
  readonly postings: readonly string[];
  readonly queryGenerator: QueryGeneratorSpec;
  readonly queryDfTail: ReadonlyArray<readonly [string, number]>;
}

export function wireSource(w: WireRound): PublishSource {
  return {
    manifest: w.manifest,
    header: w.header,
    items: () => w.items,
    postings: () => w.postings.map(parsePostingLine),
    queryGenerator: w.queryGenerator,
    queryDfTail: () => w.queryDfTail,
  };
}

/** The in-memory index of a wire round (the reference the served results must equal). */
export function wireIndex(w: WireRound): KeywordIndex {
  const keywords = new Map<string, Uint32Array>();
  const words = new Map<string, WordPosting>();
  for (const e of w.postings.map(parsePostingLine)) {
    if (e.key.startsWith(POSTING_PREFIX.keyword)) keywords.set(e.key.slice(POSTING_PREFIX.keyword.length), joinKeywordBlocks(e.blocks));
    else words.set(e.key.slice(POSTING_PREFIX.word.length), joinWordBlocks(e.blocks));
  }
  return KeywordIndex.fromPostings(
    w.items.map((i) => i.id),
    w.header.totalLength,
    keywords,
    words,
  );
}
