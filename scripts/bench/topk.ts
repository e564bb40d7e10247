/**
 * For `npm run bench:core`: a page of 10 from blocked postings, as the
 * worker ranks it, by block-max top-k (core/topk.ts) and by the exhaustive
 * reference (decode the word blocks holding candidates, score all of
 * I_ret(q), core/retrieve.ts executeQuery). Postings are blocked once per
 * query beforehand, so the timings are decoding and ranking only.
 */
import { blockKeywordPosting, blockWordPosting, type PostingBlock, postingsFromBlocks } from "../../core/blocks.js";
import type { KeywordIndex } from "../../core/inverted-index.js";
import { executeQuery, type QueryPlan } from "../../core/retrieve.js";
import { keywordKey, wordKey } from "../../core/shard.js";
import { executeTopK } from "../../core/topk.js";
import { percentile, timeEach } from "./stats.js";

export interface TopKBench {
  readonly pageSize: number;
  /** Every posting entry of the plans' keywords and words (the "postings visited" of the exhaustive row). */
  readonly postings: number;
  /** Entries block-max decoded and candidates it scored. */
  readonly scored: number;
  readonly blockMax: { readonly p50Ms: number; readonly p99Ms: number; readonly totalMs: number };
  readonly exhaustive: { readonly p50Ms: number; readonly p99Ms: number; readonly totalMs: number };
}

function blocksOf(index: KeywordIndex, plan: QueryPlan): Map<string, PostingBlock[]> {
  const out = new Map<string, PostingBlock[]>();
  for (const k of plan.keywords) {
    const p = index.keywordPostings.get(k);
    if (p) out.set(keywordKey(k), blockKeywordPosting(p));
  }
  for (const w of plan.words) {
    const p = index.wordPostings.get(w);
    if (p) out.set(wordKey(w), blockWordPosting(p));
  }
  return out;
}

export async function benchTopK(index: KeywordIndex, plans: readonly QueryPlan[], pageSize = 10, passes = 5): Promise<TopKBench> {
  const inputs = plans.map((plan) => ({ plan, blocks: blocksOf(index, plan) }));
  const opts = { limit: pageSize, related: true };
  let postings = 0;
  let scored = 0;
  for (const { plan, blocks } of inputs) {
    let own = 0;
    for (const b of blocks.values()) own += b.reduce((s, x) => s + x.count, 0);
    postings += own;
    const got = executeTopK(plan, blocks, index, opts);
    const reference = executeQuery(plan, postingsFromBlocks(plan, blocks, pageSize), index, opts);
    if (JSON.stringify(got.page) !== JSON.stringify(reference)) throw new Error(`block-max and the reference differ on ${plan.keywords.join(", ")}`);
    scored += got.visited ?? own;
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / passes;
  const bm = await timeEach(inputs, ({ plan, blocks }) => executeTopK(plan, blocks, index, opts), passes);
  const ex = await timeEach(inputs, ({ plan, blocks }) => executeQuery(plan, postingsFromBlocks(plan, blocks, pageSize), index, opts), passes);
  return {
    pageSize,
    postings,
    scored,
    blockMax: { p50Ms: percentile(bm, 50), p99Ms: percentile(bm, 99), totalMs: sum(bm) },
    exhaustive: { p50Ms: percentile(ex, 50), p99Ms: percentile(ex, 99), totalMs: sum(ex) },
  };
}
