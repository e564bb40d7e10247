/**
 * The query side of an LLM round for offline evaluation: the round's
 * precomputed keywords (query-keywords.jsonl), and for queries it lacks, the
 * round's query model called now with the round's prompt and decoding.
 * Without a model to call, missing queries are an error, never a silent
 * fallback that would measure the extractor instead of the model.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeKeyword } from "../../core/normalize.js";
import { queryPrompt } from "../../core/prompts.js";
import type { LlmGeneratorSpec, QueryGenerator } from "../../core/query-generator.js";
import { KeywordClient } from "../../llm/client.js";
import type { Query } from "../data/types.js";
import { BATCH_DEFAULTS, generateBatch } from "./batch.js";
import { readQueryKeywords } from "./query-keywords.js";

export async function llmQueryKeywords(round: number, spec: LlmGeneratorSpec, queries: readonly Query[], baseUrl: string | undefined): Promise<QueryGenerator> {
  const known = new Map([...readQueryKeywords(round)].map(([q, l]) => [q, l.keywords]));
  const missing = [...new Map(queries.map((q) => [normalizeKeyword(q.text), q.text])).entries()].filter(([q]) => !known.has(q));
  if (missing.length > 0) {
    if (!baseUrl) {
      throw new Error(
        `round ${round}'s query side is the model ${spec.model}, and ${missing.length} of these ${queries.length} queries have no precomputed keywords: ` +
          "pass --base-url (or LLM_BASE_URL), or precompute them with npm run index -- --queries …",
      );
    }
    const client = new KeywordClient({
      baseUrl,
      apiKey: process.env.LLM_API_KEY,
      model: spec.model,
      decoding: spec.decoding,
      timeoutMs: 60_000,
      maxRetries: 2,
    });
    const dir = mkdtempSync(join(tmpdir(), "cogr-eval-"));
    try {
      const run = await generateBatch(
        missing.map(([q, text]) => ({ id: q, prompt: queryPrompt(spec.prompts, text) })),
        (p) => client.generate(p),
        { checkpoint: join(dir, "queries.jsonl"), runKey: { model: spec.model }, concurrency: BATCH_DEFAULTS.concurrency },
      );
      if (run.failed > 0) throw new Error(`the model could not answer ${run.failed} of ${missing.length} queries`);
      for (const [q, r] of run.records) known.set(q, r.keywords);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return (q) => [...(known.get(normalizeKeyword(q)) ?? [])];
}
