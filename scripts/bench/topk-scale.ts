/**
 * For `npm run bench:scale`: what ranking a page of 10 costs in-process at
 * the catalogue's size, block-max top-k (core/topk.ts) against the
 * exhaustive reference (postingsFromBlocks + executeQuery), over the round's
 * blocks for the common queries: the worker's CPU for ranking, without
 * storage and HTTP. The two pages are compared first (they must be equal).
 */
import { performance } from "node:perf_hooks";
import { type PostingBlock, postingsFromBlocks } from "../../core/blocks.js";
import { loadQueryGenerator } from "../../core/query-generator.js";
import { executeQuery, planQuery } from "../../core/retrieve.js";
import { keywordKey, wordKey } from "../../core/shard.js";
import { executeTopK } from "../../core/topk.js";
import { readManifest, roundDir, roundPostings, wholeQueryGenerator } from "../../training/round-artifact.js";

export interface RankingFigure {
  readonly query: string;
  readonly retrieved: number;
  readonly postings: number;
  readonly scored: number | null;
  readonly blockMaxMs: number;
  readonly exhaustiveMs: number;
}

function medianMs(f: () => unknown, runs = 31): number {
  for (let j = 0; j < 5; j++) f();
  const xs: number[] = [];
  for (let j = 0; j < runs; j++) {
    const t = performance.now();
    f();
    xs.push(performance.now() - t);
  }
  return xs.sort((a, b) => a - b)[runs >> 1] as number;
}

/** Null for a round whose generator needs its whole index (a hinted policy): not read here. */
export function rankingFigures(root: string, round: number, queries: readonly string[], pageSize = 10): RankingFigure[] | null {
  const dir = roundDir(round, root);
  const m = readManifest(dir);
  const spec = wholeQueryGenerator(dir, m);
  if (spec.kind === "lexical-policy" && spec.policy.hints !== undefined) return null;
  const generate = loadQueryGenerator(spec) ?? (() => []);
  const { header, postings } = roundPostings(dir, m);
  const plans = queries.map((q) => planQuery(generate(q), q, header.queryTerms));
  const wanted = new Set(plans.flatMap((p) => [...p.keywords.map(keywordKey), ...p.words.map(wordKey)]));
  const blocks = new Map<string, readonly PostingBlock[]>();
  for (const e of postings) if (wanted.has(e.key)) blocks.set(e.key, e.blocks);
  const stats = { itemCount: header.itemCount, avgLength: header.totalLength / header.itemCount };
  const opts = { limit: pageSize, related: true };
  return plans.map((plan, j) => {
    let entries = 0;
    for (const k of [...plan.keywords.map(keywordKey), ...plan.words.map(wordKey)]) entries += (blocks.get(k) ?? []).reduce((s, b) => s + b.count, 0);
    const got = executeTopK(plan, blocks, stats, opts);
    const reference = executeQuery(plan, postingsFromBlocks(plan, blocks, pageSize), stats, opts);
    if (JSON.stringify(got.page) !== JSON.stringify(reference)) throw new Error(`block-max and the reference differ on "${queries[j]}"`);
    return {
      query: queries[j] as string,
      retrieved: got.page.total,
      postings: entries,
      scored: got.visited,
      blockMaxMs: medianMs(() => executeTopK(plan, blocks, stats, opts)),
      exhaustiveMs: medianMs(() => executeQuery(plan, postingsFromBlocks(plan, blocks, pageSize), stats, opts)),
    };
  });
}
