/**
 * The round artifact's format: shared by the trainer that writes it, the
 * evaluator and the publisher that read it. Files live in artifacts/rounds/N/,
 * every one a stream of lines, so no file is ever one giant JSON string:
 *
 *   items.jsonl          one item a line, in ordinal (item id) order
 *   postings.jsonl       a header line, then one posting a line in key order:
 *                        [key, count, [[first, last, count, base64 block], …]]
 *   query-generator.json the round's query-side generator (bounded in size)
 *   query-df.jsonl       optional: the keyword df the generator's head leaves out
 *   query-tail.jsonl     optional: a policy's vocabulary tail, [word, entry] a line
 *                        (core/policy-tail.ts)
 */
import { fromBase64, toBase64 } from "./base64.js";
import { blockKeywordPosting, blockWordPosting, joinKeywordBlocks, joinWordBlocks, type PostingBlock } from "./blocks.js";
import { KeywordIndex } from "./inverted-index.js";
import type { WordPosting } from "./postings.js";
import type { QueryGeneratorSpec } from "./query-generator.js";
import { hasQueryTerms, NO_QUERY_TERMS, type QueryTerms, validateQueryTerms } from "./query-terms.js";
import { KEYWORD_RANKER, type RankerSpec, validateRanker } from "./ranker.js";
import { keywordKey, POSTING_PREFIX, wordKey } from "./shard.js";
import type { Split } from "./split.js";

export const ROUND_FORMAT = "cogr-round";
export const ROUND_FORMAT_VERSION = 2;
export const ROUND_FILES = {
  items: "items.jsonl",
  index: "postings.jsonl",
  queryGenerator: "query-generator.json",
  queryDf: "query-df.jsonl",
  queryTail: "query-tail.jsonl",
} as const;

export const INDEX_FORMAT = "cogr-index";
/** 3: word blocks carry block-max skip data (core/word-blocks.ts); 2 (no bounds) is still read, and served by exhaustive scoring. */
export const INDEX_FORMAT_VERSION = 3;
export const INDEX_FORMAT_VERSIONS_READ: readonly number[] = [2, 3];

export interface RoundItem {
  readonly id: string;
  readonly name: string;
  readonly class: string;
  readonly category: string;
  /** S_i, normalised, without the name (the index adds it). */
  readonly keywords: readonly string[];
  /** The catalogue's `--facet` fields, name → value (absent without them): facet columns (core/columns.ts), never indexed. */
  readonly facets?: Readonly<Record<string, string>>;
}

/** The first line of postings.jsonl. */
export interface IndexHeader {
  readonly format: typeof INDEX_FORMAT;
  readonly version: number;
  readonly itemCount: number;
  readonly totalLength: number;
  readonly keywords: number;
  readonly words: number;
  readonly maxBlockBytes: number;
  /** What the word postings' bags hold (core/ranker.ts); absent in rounds written before rankers: the keyword bag. */
  readonly ranker?: RankerSpec;
  /** Stop words and the typed words' weight (core/query-terms.ts); absent in rounds written before them: none. */
  readonly queryTerms?: QueryTerms;
}

/** One posting of the round: its key (core/shard.ts), its length, and its blocks (core/blocks.ts). */
export interface PostingEntry {
  readonly key: string;
  readonly count: number;
  readonly blocks: readonly PostingBlock[];
}

/**
 * A round held in memory: what training writes and the tests publish
 * (training/round-artifact.ts's Round adds the folder it was read from).
 */
export interface MemoryRound {
  readonly manifest: RoundManifest;
  readonly items: readonly RoundItem[];
  readonly index: KeywordIndex;
  /**
   * The round's query generator for in-process use: an extractor's df is
   * whole here (head and query-df.jsonl joined); the served copy keeps them apart.
   */
  readonly queryGenerator: QueryGeneratorSpec;
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
   * from "other content"; serving keys carry it.
   */
  readonly contentHash: string;
}

/** The text contentHash is the sha-256 of (training/round-artifact.ts computes it; core has no hashing). */
export function contentHashInput(m: Pick<RoundManifest, "checksums" | "split" | "config">): string {
  const files = Object.keys(m.checksums)
    .sort()
    .map((name) => `${name} ${m.checksums[name]}`);
  return JSON.stringify({ files, split: m.split, config: m.config });
}

export function indexHeader(index: KeywordIndex, maxBlockBytes: number): IndexHeader {
  return {
    format: INDEX_FORMAT,
    version: INDEX_FORMAT_VERSION,
    itemCount: index.itemCount,
    totalLength: index.totalLength,
    keywords: index.keywordPostings.size,
    words: index.wordPostings.size,
    maxBlockBytes,
    ranker: index.ranker,
    ...(hasQueryTerms(index.queryTerms) ? { queryTerms: index.queryTerms } : {}),
  };
}

export function parseIndexHeader(line: string | undefined, where: string): IndexHeader {
  const h = (line ? JSON.parse(line) : null) as Partial<IndexHeader> | null;
  if (h?.format !== INDEX_FORMAT) throw new Error(`${where}: not a ${INDEX_FORMAT} file`);
  if (typeof h.version !== "number" || !INDEX_FORMAT_VERSIONS_READ.includes(h.version))
    throw new Error(`${where}: unsupported ${INDEX_FORMAT} version ${String(h.version)} (this build reads ${INDEX_FORMAT_VERSIONS_READ.join(" and ")})`);
  try {
    return {
      ...(h as IndexHeader),
      ranker: h.ranker === undefined ? KEYWORD_RANKER : validateRanker(h.ranker),
      queryTerms: h.queryTerms === undefined ? NO_QUERY_TERMS : validateQueryTerms(h.queryTerms),
    };
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`);
  }
}

/** An index's postings, blocked, in key order (code units: every "k:" key before every "w:" key). */
export function* indexPostings(index: KeywordIndex, maxBlockBytes: number): Generator<PostingEntry> {
  for (const k of [...index.keywordPostings.keys()].sort()) {
    const p = index.keywordPostings.get(k) as Uint32Array;
    yield { key: keywordKey(k), count: p.length, blocks: blockKeywordPosting(p, maxBlockBytes) };
  }
  for (const w of [...index.wordPostings.keys()].sort()) {
    const p = index.wordPostings.get(w);
    if (p) yield { key: wordKey(w), count: p.items.length, blocks: blockWordPosting(p, maxBlockBytes) };
  }
}

/** The in-memory index of a round's postings (all their blocks joined) over its item ids in ordinal order. */
export function indexFromPostings(
  ids: readonly string[],
  totalLength: number,
  entries: Iterable<PostingEntry>,
  ranker: RankerSpec = KEYWORD_RANKER,
  queryTerms: QueryTerms = NO_QUERY_TERMS,
): KeywordIndex {
  const keywords = new Map<string, Uint32Array>();
  const words = new Map<string, WordPosting>();
  for (const e of entries) {
    if (e.key.startsWith(POSTING_PREFIX.keyword)) keywords.set(e.key.slice(POSTING_PREFIX.keyword.length), joinKeywordBlocks(e.blocks));
    else {
      const { df: _whole, ...p } = joinWordBlocks(e.blocks); // every block joined: df is the list's length
      words.set(e.key.slice(POSTING_PREFIX.word.length), p);
    }
  }
  return KeywordIndex.fromPostings(ids, totalLength, keywords, words, ranker, queryTerms);
}

export function postingLine(e: PostingEntry): string {
  return JSON.stringify([e.key, e.count, e.blocks.map((b) => [b.first, b.last, b.count, toBase64(b.data)])]);
}

export function parsePostingLine(line: string): PostingEntry {
  const [key, count, blocks] = JSON.parse(line) as [string, number, Array<[number, number, number, string]>];
  return { key, count, blocks: blocks.map(([first, last, n, data]) => ({ first, last, count: n, data: fromBase64(data) })) };
}
