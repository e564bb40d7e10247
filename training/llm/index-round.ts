/**
 * An LLM round (`npm run index -- --generator vllm`): round N's item index
 * from an item-side model, and a query side that names the query-side model,
 * so the worker calls it (with the round's prompt and decoding), falling back
 * to an extractor over the new item keywords.
 *
 * Items the model cannot answer after every attempt keep the starting
 * round's S_i and are counted in the round's config (`fallbacks`), never
 * dropped. Precomputed query keywords (optional) go into the round for
 * offline evaluation, the reward service and the serving cache.
 */

import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { facetsField } from "../../core/columns.js";
import { KeywordIndex } from "../../core/inverted-index.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { DECODING, itemPrompt, PROMPTS, queryPrompt } from "../../core/prompts.js";
import { extractorSpec, llmGeneratorSpec, loadQueryGenerator } from "../../core/query-generator.js";
import { REWARD_LIMITS } from "../../core/reward.js";
import type { RoundItem } from "../../core/round-format.js";
import { KeywordClient } from "../../llm/client.js";
import type { Dataset, Query } from "../data/types.js";
import { evaluateKeywords, toEvalQueries } from "../evaluate.js";
import { ROUND_QUERY_TERMS } from "../query-terms.js";
import type { Round, RoundContent } from "../round-artifact.js";
import { type BatchRecord, generateBatch } from "./batch.js";
import { formatQueryKeywords, QUERY_KEYWORDS_FILE, type QueryKeywordsLine } from "./query-keywords.js";

export interface LlmEndpoint {
  readonly baseUrl: string;
  readonly apiKey?: string | undefined;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly attempts: number;
}

export interface IndexRoundOptions {
  readonly round: number;
  readonly itemModel: string;
  readonly queryModel: string;
  readonly endpoint: LlmEndpoint;
  /** The query-side model's server (one vLLM server per model), default `endpoint`. */
  readonly queryEndpoint?: LlmEndpoint;
  /** Queries whose keywords are precomputed into the round. */
  readonly queries: readonly Query[];
  /** Keep the starting round's S_i (a query-side phase of Alg. 2: only the query model changed). */
  readonly keepItems?: boolean;
  /** Where the checkpoints live (next to the round folder, which writeRound replaces). */
  readonly checkpointPrefix: string;
  readonly onProgress?: (stage: "items" | "queries", record: BatchRecord, finished: number, total: number) => void;
}

export interface IndexReport {
  readonly items: number;
  readonly itemsResumed: number;
  readonly itemsFellBack: number;
  readonly queries: number;
  readonly queriesFellBack: number;
  /** Failure kind → count, over both stages. */
  readonly failures: Record<string, number>;
}

function clientFor(e: LlmEndpoint, model: string) {
  return new KeywordClient({ baseUrl: e.baseUrl, apiKey: e.apiKey, model, decoding: DECODING.indexing, timeoutMs: e.timeoutMs, maxRetries: 2 });
}

export async function buildLlmRound(dataset: Dataset, from: Round, opts: IndexRoundOptions): Promise<{ content: RoundContent; report: IndexReport }> {
  const byId = new Map(dataset.products.map((p) => [p.id, p]));
  const previous = new Map(from.items.map((i) => [i.id, i]));
  const ids = from.index.ids;
  const tasks = ids.map((id) => {
    const p = byId.get(id);
    if (!p) throw new Error(`round ${from.manifest.round} indexes product ${id}, which COGR_DATA lacks`);
    return { id, prompt: itemPrompt(PROMPTS, { title: p.name, description: p.description }) };
  });
  mkdirSync(dirname(opts.checkpointPrefix), { recursive: true });
  const itemClient = clientFor(opts.endpoint, opts.itemModel);
  const failures: Record<string, number> = {};
  const count = (r: BatchRecord) => {
    if (r.status === "failed") failures[r.kind ?? "unknown"] = (failures[r.kind ?? "unknown"] ?? 0) + 1;
  };
  const itemRun = await generateBatch(opts.keepItems ? [] : tasks, (prompt) => itemClient.generate(prompt, REWARD_LIMITS.kMax), {
    checkpoint: `${opts.checkpointPrefix}.items.jsonl`,
    runKey: { side: "item", model: opts.itemModel, prompts: PROMPTS, decoding: DECODING.indexing },
    concurrency: opts.endpoint.concurrency,
    attempts: opts.endpoint.attempts,
    onRecord: (r, done, total) => opts.onProgress?.("items", r, done, total),
  });
  const items: RoundItem[] = ids.map((id) => {
    const p = byId.get(id) as Dataset["products"][number];
    const rec = itemRun.records.get(id);
    if (rec) count(rec);
    const keywords = rec?.status === "ok" ? [...rec.keywords] : [...(previous.get(id)?.keywords ?? [])];
    if (!rec && !opts.keepItems) throw new Error(`item ${id} has no generation record`);
    return { id, name: p.name, class: p.class, category: p.category, keywords, ...facetsField(p.facets) };
  });
  const index = KeywordIndex.build(items, { queryTerms: ROUND_QUERY_TERMS });
  const df = new Map<string, number>();
  for (const [k, p] of index.keywordPostings) df.set(k, p.length);
  const queryGenerator = llmGeneratorSpec(opts.queryModel, extractorSpec(df, index.itemCount));
  const policy = loadQueryGenerator(queryGenerator) ?? (() => []);

  // Precomputed query keywords, one task per distinct normalised query.
  const distinct = [...new Map(opts.queries.map((q) => [normalizeKeyword(q.text), q.text])).entries()];
  const queryClient = clientFor(opts.queryEndpoint ?? opts.endpoint, opts.queryModel);
  const queryRun = await generateBatch(
    distinct.map(([norm, text]) => ({ id: norm, prompt: queryPrompt(PROMPTS, text) })),
    (prompt) => queryClient.generate(prompt, REWARD_LIMITS.kMax),
    {
      checkpoint: `${opts.checkpointPrefix}.queries.jsonl`,
      runKey: { side: "query", model: opts.queryModel, prompts: PROMPTS, decoding: DECODING.indexing },
      concurrency: opts.endpoint.concurrency,
      attempts: opts.endpoint.attempts,
      onRecord: (r, done, total) => opts.onProgress?.("queries", r, done, total),
    },
  );
  const lines: QueryKeywordsLine[] = distinct.map(([norm, text]) => {
    const rec = queryRun.records.get(norm);
    if (rec) count(rec);
    return rec?.status === "ok" ? { query: norm, keywords: rec.keywords, source: "llm" } : { query: norm, keywords: policy(text), source: "policy" };
  });
  const precomputed = new Map(lines.map((l) => [l.query, l.keywords]));

  // Offline figures on the split's queries that were precomputed (as every round records them).
  const qById = new Map(dataset.queries.map((q) => [q.id, q]));
  const summary = (split: readonly string[]) => {
    const qs = split.map((id) => qById.get(id)).filter((q): q is Query => q !== undefined && precomputed.has(normalizeKeyword(q.text)));
    if (qs.length === 0) return undefined;
    const { queries, leftOut } = toEvalQueries(qs, dataset.relevant, index);
    return evaluateKeywords(index, (q) => [...(precomputed.get(normalizeKeyword(q)) ?? [])], queries, leftOut);
  };
  const metrics: Record<string, unknown> = {};
  const dev = summary(from.manifest.split.dev);
  const train = summary(from.manifest.split.train);
  if (dev) metrics.dev = dev;
  if (train) metrics.train = train;

  const report: IndexReport = {
    items: items.length,
    itemsResumed: itemRun.resumed,
    itemsFellBack: itemRun.failed,
    queries: lines.length,
    queriesFellBack: queryRun.failed,
    failures,
  };
  const content: RoundContent = {
    round: opts.round,
    split: from.manifest.split,
    config: {
      generator: "vllm",
      fromRound: from.manifest.round,
      itemModel: opts.keepItems ? (from.manifest.config.itemModel ?? `round ${from.manifest.round}'s items`) : opts.itemModel,
      queryModel: opts.queryModel,
      prompts: { format: PROMPTS.format, version: PROMPTS.version },
      decoding: DECODING.indexing,
      fallbacks: { itemsFrom: `round ${from.manifest.round}'s S_i`, queriesFrom: "the round's extractor", ...report },
      data: dataset.dir,
    },
    items,
    index,
    queryGenerator,
    metrics,
    extraFiles: lines.length > 0 ? { [QUERY_KEYWORDS_FILE]: formatQueryKeywords(lines) } : {},
  };
  return { content, report };
}

/** Checkpoints are kept until the round is written, then removed. */
export function removeCheckpoints(prefix: string): void {
  for (const s of [".items.jsonl", ".queries.jsonl"]) if (existsSync(`${prefix}${s}`)) rmSync(`${prefix}${s}`);
}
